"""Schema 0006: the crosswalk drops its index on ``kind`` alone.

The unique index on (kind, scope, legacy_id) starts with ``kind``, so it already answers every lookup and count
by kind; the second index only cost a write per crosswalk row (three secondary indexes per row became two) and
gave PostgreSQL's planner a narrower index to pick for a lookup the unique one serves whole.

Revision ID: 0006
Revises: 0005
"""

from __future__ import annotations

from alembic import op

revision = "0006"
down_revision: str | None = "0005"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.drop_index("ix_crosswalk_kind", table_name="crosswalk")


def downgrade() -> None:
    op.create_index("ix_crosswalk_kind", "crosswalk", ["kind"])
