"""Schema 0002: clean-close sessions; quarantine keeps the offending value and when it was resolved.

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision: str | None = "0001"
branch_labels: str | None = None
depends_on: str | None = None

TS = sa.String(32)


def upgrade() -> None:
    op.create_table(
        "sessions",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("host", sa.String(255), nullable=False),
        sa.Column("pid", sa.Integer, nullable=False),
        sa.Column("opened_at", TS, nullable=False),
        sa.Column("closed_at", TS),
        sa.Column("checked_at", TS),
    )
    with op.batch_alter_table("quarantine") as batch:
        batch.add_column(sa.Column("value", sa.Text))
        batch.add_column(sa.Column("resolved_at", TS))


def downgrade() -> None:
    with op.batch_alter_table("quarantine") as batch:
        batch.drop_column("resolved_at")
        batch.drop_column("value")
    op.drop_table("sessions")
