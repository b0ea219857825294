"""Schema 0001: runs, crosswalk, intents, quarantine (no quarantine value, no clean-close sessions).

Revision ID: 0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision: str | None = None
branch_labels: str | None = None
depends_on: str | None = None

TS = sa.String(32)


def upgrade() -> None:
    op.create_table(
        "runs",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("migration", sa.String(200), nullable=False),
        sa.Column("source_identity", sa.String(500), nullable=False),
        sa.Column("target_identity", sa.String(500), nullable=False),
        sa.Column("started_at", TS, nullable=False),
        sa.Column("finished_at", TS),
        sa.Column("status", sa.String(40), nullable=False),
        sa.Column("options_json", sa.Text, nullable=False),
        sa.Column("plan_fingerprint", sa.String(128), nullable=False),
    )
    op.create_table(
        "crosswalk",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("kind", sa.String(64), nullable=False, index=True),
        sa.Column("scope", sa.String(200), nullable=False),
        sa.Column("legacy_id", sa.String(200), nullable=False),
        sa.Column("v1_id", sa.String(200), nullable=False, index=True),
        sa.Column("source_hash", sa.String(128), nullable=False),
        sa.Column("run_id", sa.Integer, sa.ForeignKey("runs.id")),
        sa.Column("created_at", TS, nullable=False),
        sa.Column("updated_at", TS, nullable=False),
        sa.UniqueConstraint("kind", "scope", "legacy_id", name="uq_crosswalk_record"),
    )
    op.create_table(
        "intents",
        sa.Column("step_key", sa.String(300), primary_key=True),
        sa.Column("run_id", sa.Integer, sa.ForeignKey("runs.id")),
        sa.Column("kind", sa.String(64), nullable=False, index=True),
        sa.Column("scope", sa.String(200), nullable=False),
        sa.Column("method", sa.String(10), nullable=False),
        sa.Column("path", sa.String(500), nullable=False),
        sa.Column("idempotency_key", sa.String(255), nullable=False, unique=True),
        sa.Column("body", sa.Text, nullable=False),
        sa.Column("members_json", sa.Text, nullable=False),
        sa.Column("status", sa.String(16), nullable=False, index=True),
        sa.Column("attempts", sa.Integer, nullable=False),
        sa.Column("last_error_code", sa.String(100)),
        sa.Column("last_request_id", sa.String(200)),
        sa.Column("response_summary", sa.Text),
        sa.Column("created_at", TS, nullable=False, index=True),
        sa.Column("updated_at", TS, nullable=False),
    )
    op.create_table(
        "quarantine",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("kind", sa.String(64), nullable=False),
        sa.Column("scope", sa.String(200), nullable=False),
        sa.Column("legacy_id", sa.String(200), nullable=False),
        sa.Column("code", sa.String(100), nullable=False, index=True),
        sa.Column("message", sa.Text, nullable=False),
        sa.Column("field", sa.String(200)),
        sa.Column("step_key", sa.String(300)),
        sa.Column("run_id", sa.Integer, sa.ForeignKey("runs.id")),
        sa.Column("created_at", TS, nullable=False),
        sa.UniqueConstraint("kind", "scope", "legacy_id", "code", name="uq_quarantine_record_code"),
    )


def downgrade() -> None:
    for table in ("quarantine", "intents", "crosswalk", "runs"):
        op.drop_table(table)
