"""Schema 0008: a run records the process that runs it (host, pid and that process's start), so a reader can
tell a run still going from one whose process is gone (SIGKILLed, the machine rebooted) while the row still
says ``running``: `bridge status` shows the latter "interrupted (no live process)". The start is kept beside
the pid because a pid is reused after its process ends. Runs recorded before 0008 name no process.

Revision ID: 0008
Revises: 0007
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision: str | None = "0007"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.add_column("runs", sa.Column("host", sa.String(255), nullable=True))
    op.add_column("runs", sa.Column("pid", sa.Integer(), nullable=True))
    op.add_column("runs", sa.Column("process_started", sa.String(100), nullable=True))


def downgrade() -> None:
    op.drop_column("runs", "process_started")
    op.drop_column("runs", "pid")
    op.drop_column("runs", "host")
