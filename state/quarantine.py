"""Quarantine: legacy records that were not migrated, each with a stable code, a message and the field at fault.

A record lands here either from the mappings (bad input found before any request; never journalled) or
from the journal (the target refused a request for this record). Entries stay as history: when a later run
migrates the record, the crosswalk write marks its entries resolved instead of deleting them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from sqlalchemy import func
from sqlmodel import Session, col, select

from state.db import Database
from state.models import QuarantineRow, utc_now
from state.redaction import names_a_secret

# A quarantined value is shown to operators, not replayed; long blobs are cut so the file stays small.
MAX_VALUE_CHARS = 500


@dataclass(frozen=True, slots=True)
class QuarantineEntry:
    """One record that was not migrated, and why. ``value`` is the offending value as text, never a secret."""

    kind: str
    legacy_id: str
    code: str
    message: str
    scope: str = ""
    field: str | None = None
    value: str | None = None


def add_entries(
    database: Database,
    session: Session,
    entries: Iterable[QuarantineEntry],
    *,
    run_id: int | None,
    step_key: str | None,
) -> None:
    """File entries inside the caller's transaction (a write of ``database``); the same record and code again
    refreshes the entry."""
    # Before the rows: a transaction that rolls back leaves it set, which only costs the crosswalk one UPDATE.
    database.open_quarantine = True
    now = utc_now()
    for entry in entries:
        # A field named like a credential keeps its name and code but never its value (see state.redaction).
        value = None if entry.value is None or names_a_secret(entry.field or "") else entry.value[:MAX_VALUE_CHARS]
        row = session.exec(
            select(QuarantineRow).where(
                QuarantineRow.kind == entry.kind,
                QuarantineRow.scope == entry.scope,
                QuarantineRow.legacy_id == entry.legacy_id,
                QuarantineRow.code == entry.code,
            )
        ).first()
        if row is None:
            row = QuarantineRow(
                kind=entry.kind,
                scope=entry.scope,
                legacy_id=entry.legacy_id,
                code=entry.code,
                created_at=now,
                message=entry.message,
            )
            session.add(row)
        row.message = entry.message
        row.field = entry.field
        row.value = value
        row.run_id = run_id
        row.step_key = step_key
        row.resolved_at = None


class Quarantine:
    """Files, lists and counts quarantined records."""

    def __init__(self, database: Database) -> None:
        self._db = database

    def add(self, entries: Sequence[QuarantineEntry], *, run_id: int | None = None) -> None:
        """File records found bad before any request was journalled (one transaction)."""
        with self._db.write() as session:
            add_entries(self._db, session, entries, run_id=run_id, step_key=None)

    def entries(self, *, kind: str | None = None, include_resolved: bool = False) -> list[QuarantineRow]:
        """Quarantined records (open ones unless ``include_resolved``), ordered by kind, scope, legacy id, code."""
        statement = select(QuarantineRow)
        if kind is not None:
            statement = statement.where(QuarantineRow.kind == kind)
        if not include_resolved:
            statement = statement.where(col(QuarantineRow.resolved_at).is_(None))
        statement = statement.order_by(
            col(QuarantineRow.kind), col(QuarantineRow.scope), col(QuarantineRow.legacy_id), col(QuarantineRow.code)
        )
        with self._db.read() as session:
            return list(session.exec(statement))

    def counts_by_code(self) -> dict[str, int]:
        """Open quarantine entries per error code."""
        with self._db.read() as session:
            rows = session.exec(
                select(QuarantineRow.code, func.count())
                .where(col(QuarantineRow.resolved_at).is_(None))
                .group_by(QuarantineRow.code)
            )
            return {code: int(count) for code, count in rows}

    def counts_by_kind(self) -> dict[str, int]:
        """Open quarantined records per kind (a record with two codes counts once)."""
        with self._db.read() as session:
            rows = session.exec(
                select(
                    QuarantineRow.kind,
                    func.count(func.distinct(QuarantineRow.scope + "\x1f" + QuarantineRow.legacy_id)),
                )
                .where(col(QuarantineRow.resolved_at).is_(None))
                .group_by(QuarantineRow.kind)
            )
            return {kind: int(count) for kind, count in rows}
