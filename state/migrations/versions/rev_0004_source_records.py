"""Schema 0004: the workspace-wide legacy records (spaces, projects, contacts) the file has seen in its source.

They recognise the legacy workspace, which the legacy surface never names (state.source). A file written
before 0004 knows its workspace by what its crosswalk and quarantine hold of those kinds, so they are copied
here once; kinds journalled in the plural by the earliest bridges are read in the singular.

Revision ID: 0004
Revises: 0003
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision: str | None = "0003"
branch_labels: str | None = None
depends_on: str | None = None

SINGULAR = {"space": "space", "spaces": "space", "project": "project", "projects": "project"}
SINGULAR |= {"contact": "contact", "contacts": "contact"}


def upgrade() -> None:
    op.create_table(
        "source_records",
        sa.Column("kind", sa.String(64), primary_key=True),
        sa.Column("legacy_id", sa.String(200), primary_key=True),
    )
    seen = sa.table("source_records", sa.column("kind"), sa.column("legacy_id"))
    connection = op.get_bind()
    records: set[tuple[str, str]] = set()
    for table in ("crosswalk", "quarantine"):
        rows = sa.table(table, sa.column("kind"), sa.column("scope"), sa.column("legacy_id"))
        query = sa.select(rows.c.kind, rows.c.legacy_id).where(rows.c.scope == "", rows.c.kind.in_(SINGULAR))
        records.update((SINGULAR[kind], legacy_id) for kind, legacy_id in connection.execute(query))
    if records:
        op.bulk_insert(seen, [{"kind": kind, "legacy_id": legacy_id} for kind, legacy_id in sorted(records)])


def downgrade() -> None:
    op.drop_table("source_records")
