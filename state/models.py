"""The state tables (schema revision 0009): runs, crosswalk and its stamps, intents, quarantine, sessions, source
records, and bridge mode's v1 marks and conflicts.

These sqlmodel classes are what queries use; the schema itself is created and upgraded only by the alembic
revisions in ``state/migrations/versions`` (see ``state.db``), so a change here needs a new revision there.
Rows handed to callers are detached snapshots: changing their attributes writes nothing.

Timestamps are stored as ISO-8601 UTC text and read back as aware datetimes, so ordering by text is
ordering by time and no reader has to guess a zone.
"""

from __future__ import annotations

from datetime import UTC, datetime
from functools import lru_cache
from typing import Literal

from sqlalchemy import Index, String, Text, TypeDecorator, UniqueConstraint
from sqlalchemy.engine import Dialect
from sqlmodel import Field, SQLModel

IntentStatus = Literal["pending", "sent", "done", "failed", "quarantined"]
INTENT_STATUSES: tuple[IntentStatus, ...] = ("pending", "sent", "done", "failed", "quarantined")
IN_FLIGHT: tuple[IntentStatus, ...] = ("pending", "sent")

RunStatus = Literal["running", "completed", "completed_with_quarantine", "stopped", "failed", "interrupted"]
RUN_STATUSES: tuple[RunStatus, ...] = (
    "running",
    "completed",
    "completed_with_quarantine",
    "stopped",
    "failed",
    "interrupted",
)


def utc_now() -> datetime:
    """The current time in UTC, to the microsecond (the journal orders intents by it)."""
    return datetime.now(UTC)


@lru_cache(maxsize=256)
def _utc_text(value: datetime) -> str:
    """An aware datetime as the stored text. Cached: the rows of one write share one ``now`` (a bulk's 100
    crosswalk entries, created and updated), and writing it anew for each row was an eighth of the journal
    thread's CPU."""
    return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class UtcDateTime(TypeDecorator[datetime]):
    """An aware datetime stored as fixed-width ISO-8601 UTC text, so text order is time order."""

    impl = String(32)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> str | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("state timestamps must be timezone-aware (use state.models.utc_now())")
        return _utc_text(value)

    def process_result_value(self, value: str | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        # fromisoformat reads the trailing Z as UTC (Python 3.11) in a tenth of strptime's time: every row read
        # with a timestamp (an intent, a crosswalk entry) paid strptime twice.
        return datetime.fromisoformat(value).astimezone(UTC)


class RunRow(SQLModel, table=True):
    """One invocation of a migration against one source and one target workspace."""

    __tablename__ = "runs"

    id: int | None = Field(default=None, primary_key=True)
    migration: str = Field(max_length=200)
    source_identity: str = Field(max_length=500)
    target_identity: str = Field(max_length=500)
    started_at: datetime = Field(sa_type=UtcDateTime)
    finished_at: datetime | None = Field(default=None, sa_type=UtcDateTime)
    status: str = Field(default="running", max_length=40)
    options_json: str = Field(default="{}", sa_type=Text)
    plan_fingerprint: str = Field(default="", max_length=128)
    # Added in revision 0005: what the run did per kind (the engine's report), written when it finishes or stops.
    report_json: str = Field(default="{}", sa_type=Text, sa_column_kwargs={"server_default": "{}"})
    # Added in revision 0008: the process running it (``state.processes``), so a reader tells a live run from
    # one whose process is gone although its row still says running.
    host: str | None = Field(default=None, max_length=255)
    pid: int | None = Field(default=None)
    process_started: str | None = Field(default=None, max_length=100)


class CrosswalkRow(SQLModel, table=True):
    """Which v1 object a legacy record became. ``scope`` is the legacy project id, or "" workspace-wide."""

    __tablename__ = "crosswalk"
    __table_args__ = (UniqueConstraint("kind", "scope", "legacy_id", name="uq_crosswalk_record"),)

    id: int | None = Field(default=None, primary_key=True)
    # No index of its own since revision 0006: the unique (kind, scope, legacy_id) index serves lookups by kind.
    kind: str = Field(max_length=64)
    scope: str = Field(default="", max_length=200)
    legacy_id: str = Field(max_length=200)
    v1_id: str = Field(max_length=200, index=True)
    source_hash: str = Field(default="", max_length=128)
    run_id: int | None = Field(default=None, foreign_key="runs.id")
    created_at: datetime = Field(sa_type=UtcDateTime)
    updated_at: datetime = Field(sa_type=UtcDateTime)


class CrosswalkStampRow(SQLModel, table=True):
    """A scope's crosswalk stamp (revision 0009): a fresh random value written by every transaction that changes
    the scope's entries, so a reader tells a scope unchanged since it last looked without reading its entries
    (bridge mode's quiet projects, ``bridge.engine.quiet``). Random, not a counter: a state restored from an old
    copy and written again never shows a stamp seen before for other entries. A scope not written since 0009
    has no row."""

    __tablename__ = "crosswalk_stamps"

    scope: str = Field(primary_key=True, max_length=200)
    stamp: str = Field(max_length=32)


class IntentRow(SQLModel, table=True):
    """One write the engine means to send, journalled before it is sent (a state machine, see journal.py)."""

    __tablename__ = "intents"

    step_key: str = Field(primary_key=True, max_length=300)
    run_id: int | None = Field(default=None, foreign_key="runs.id")
    kind: str = Field(max_length=64, index=True)
    scope: str = Field(default="", max_length=200)
    method: str = Field(max_length=10)
    path: str = Field(max_length=500)
    # Added in revision 0003: the published v1 operationId the request is (e.g. budget_createLinesBulk).
    operation: str = Field(default="", max_length=100, sa_column_kwargs={"server_default": ""})
    idempotency_key: str = Field(max_length=255, unique=True)
    body: str = Field(sa_type=Text)
    members_json: str = Field(default="[]", sa_type=Text)
    status: str = Field(default="pending", max_length=16, index=True)
    attempts: int = 0
    last_error_code: str | None = Field(default=None, max_length=100)
    last_request_id: str | None = Field(default=None, max_length=200)
    response_summary: str | None = Field(default=None, sa_type=Text)
    created_at: datetime = Field(sa_type=UtcDateTime, index=True)
    updated_at: datetime = Field(sa_type=UtcDateTime)


class QuarantineRow(SQLModel, table=True):
    """A legacy record that was not migrated, with a stable code and the field at fault."""

    __tablename__ = "quarantine"
    __table_args__ = (UniqueConstraint("kind", "scope", "legacy_id", "code", name="uq_quarantine_record_code"),)

    id: int | None = Field(default=None, primary_key=True)
    kind: str = Field(max_length=64)
    scope: str = Field(default="", max_length=200)
    legacy_id: str = Field(max_length=200)
    code: str = Field(max_length=100, index=True)
    message: str = Field(sa_type=Text)
    field: str | None = Field(default=None, max_length=200)
    # Added in revision 0002: the offending value as text (never a secret) and when a later run migrated it.
    value: str | None = Field(default=None, sa_type=Text)
    step_key: str | None = Field(default=None, max_length=300)
    run_id: int | None = Field(default=None, foreign_key="runs.id")
    created_at: datetime = Field(sa_type=UtcDateTime)
    resolved_at: datetime | None = Field(default=None, sa_type=UtcDateTime)


class SessionRow(SQLModel, table=True):
    """A writer that opened the file (revision 0002). ``closed_at`` NULL after it is gone = an unclean stop."""

    __tablename__ = "sessions"

    id: int | None = Field(default=None, primary_key=True)
    host: str = Field(max_length=255)
    pid: int
    opened_at: datetime = Field(sa_type=UtcDateTime)
    closed_at: datetime | None = Field(default=None, sa_type=UtcDateTime)
    checked_at: datetime | None = Field(default=None, sa_type=UtcDateTime)


class SourceRecordRow(SQLModel, table=True):
    """A workspace-wide legacy record the file has seen in its source (revision 0004): how it knows the workspace.

    ``kind`` is space, project or contact; ``legacy_id`` its database id (see state.source).
    """

    __tablename__ = "source_records"

    kind: str = Field(primary_key=True, max_length=64)
    legacy_id: str = Field(primary_key=True, max_length=200)


class MarkRow(SQLModel, table=True):
    """What the bridge last saw on v1 of one record it wrote (revision 0007, ``bridge.sync.marks``)."""

    __tablename__ = "v1_marks"

    kind: str = Field(primary_key=True, max_length=64)
    scope: str = Field(primary_key=True, max_length=200)
    legacy_id: str = Field(primary_key=True, max_length=200)
    v1_id: str = Field(max_length=200)
    mark: str = Field(max_length=80)
    marked_at: datetime = Field(sa_type=UtcDateTime)


class ConflictRow(SQLModel, table=True):
    """A record changed on both sides since the bridge last wrote it (revision 0007): written by nobody until a
    person takes one side. ``change`` is what legacy did (``update`` or ``delete``); the JSON columns hold the
    body legacy wants written and the v1 row as read."""

    __tablename__ = "conflicts"
    __table_args__ = (Index("ix_conflicts_record", "kind", "scope", "legacy_id"),)

    id: int | None = Field(default=None, primary_key=True)
    kind: str = Field(max_length=64)
    scope: str = Field(max_length=200)
    legacy_id: str = Field(max_length=200)
    v1_id: str = Field(max_length=200)
    change: str = Field(max_length=16)
    legacy_json: str = Field(sa_type=Text)
    legacy_hash: str = Field(max_length=128)
    v1_json: str = Field(sa_type=Text)
    detected_at: datetime = Field(sa_type=UtcDateTime)
    resolved_at: datetime | None = Field(default=None, sa_type=UtcDateTime)
    taken: str | None = Field(default=None, max_length=16)


class CutoverRow(SQLModel, table=True):
    """One project's cutover (revision 0007): the freeze instant declared, and when it was finalized."""

    __tablename__ = "cutovers"

    project: str = Field(primary_key=True, max_length=200)
    frozen_at: datetime = Field(sa_type=UtcDateTime)
    finalized_at: datetime | None = Field(default=None, sa_type=UtcDateTime)
    certificate: str | None = Field(default=None, sa_type=Text)


STATE_TABLES = tuple(
    SQLModel.metadata.tables[row.__tablename__]
    for row in (
        RunRow,
        CrosswalkRow,
        CrosswalkStampRow,
        IntentRow,
        QuarantineRow,
        SessionRow,
        SourceRecordRow,
        MarkRow,
        ConflictRow,
        CutoverRow,
    )
)
"""The tables of a state (SQLModel's metadata is process-wide: other tables may share it)."""
