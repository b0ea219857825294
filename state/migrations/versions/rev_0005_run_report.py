"""Schema 0005: a run keeps its report, what it did per kind (the same counts its summary showed).

`bridge status` reads it, so the numbers an operator sees after a run are the run's own, not recounted.
Runs recorded before 0005 have an empty report.

Revision ID: 0005
Revises: 0004
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision: str | None = "0004"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.add_column("runs", sa.Column("report_json", sa.Text(), nullable=False, server_default="{}"))


def downgrade() -> None:
    op.drop_column("runs", "report_json")
