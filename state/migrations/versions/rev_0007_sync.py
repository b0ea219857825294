"""Schema 0007: bridge mode. What the bridge last saw on v1 of each record it wrote, and the conflict queue.

``v1_marks`` holds, per crosswalk record, the mark of its v1 row as the bridge last read it after its own
writes (``bridge.sync.marks``): a later row with another mark was changed on v1 by someone else (drift).
``conflicts`` holds the records changed on both sides: written by nobody until a person takes one side.
``cutovers`` holds, per legacy project, the declared freeze instant and when its cutover was finalized.

Revision ID: 0007
Revises: 0006
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision: str | None = "0006"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "v1_marks",
        sa.Column("kind", sa.String(64), primary_key=True),
        sa.Column("scope", sa.String(200), primary_key=True),
        sa.Column("legacy_id", sa.String(200), primary_key=True),
        sa.Column("v1_id", sa.String(200), nullable=False),
        sa.Column("mark", sa.String(80), nullable=False),
        sa.Column("marked_at", sa.String(32), nullable=False),
    )
    op.create_table(
        "conflicts",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("kind", sa.String(64), nullable=False),
        sa.Column("scope", sa.String(200), nullable=False),
        sa.Column("legacy_id", sa.String(200), nullable=False),
        sa.Column("v1_id", sa.String(200), nullable=False),
        sa.Column("change", sa.String(16), nullable=False),
        sa.Column("legacy_json", sa.Text(), nullable=False),
        sa.Column("legacy_hash", sa.String(128), nullable=False),
        sa.Column("v1_json", sa.Text(), nullable=False),
        sa.Column("detected_at", sa.String(32), nullable=False),
        sa.Column("resolved_at", sa.String(32), nullable=True),
        sa.Column("taken", sa.String(16), nullable=True),
    )
    op.create_index("ix_conflicts_record", "conflicts", ["kind", "scope", "legacy_id"])
    op.create_table(
        "cutovers",
        sa.Column("project", sa.String(200), primary_key=True),
        sa.Column("frozen_at", sa.String(32), nullable=False),
        sa.Column("finalized_at", sa.String(32), nullable=True),
        sa.Column("certificate", sa.Text(), nullable=True),
    )


def downgrade() -> None:
    op.drop_table("cutovers")
    op.drop_index("ix_conflicts_record", "conflicts")
    op.drop_table("conflicts")
    op.drop_table("v1_marks")
