"""Schema 0009: a stamp per crosswalk scope, written anew by every transaction that changes the scope's entries.

A watch (`bridge sync --watch`) skips mapping a project whose reads answer as before and whose context is the
same; the project's crosswalk and the workspace's are part of that context. Reading and sorting every entry of
each to see they had not changed was a quarter of an idle cycle's CPU on `medium`; reading two stamps is not.
Scopes written before 0009 have no stamp until their next write (their entries have not changed since either).

Revision ID: 0009
Revises: 0008
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision: str | None = "0008"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "crosswalk_stamps",
        sa.Column("scope", sa.String(200), primary_key=True),
        sa.Column("stamp", sa.String(32), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("crosswalk_stamps")
