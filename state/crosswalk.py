"""The crosswalk: which v1 object each legacy record became, per kind and project scope.

A record is identified by ``(kind, scope, legacy_id)``; ``scope`` is the legacy project id for records that
live inside a project (phases, lines, project library copies...) and "" for workspace-wide ones (spaces,
contacts, projects, workspace library items). Each entry keeps the hash of the source record as last
written, so a re-run can tell unchanged records from changed ones without reading the target.
"""

from __future__ import annotations

import csv
import io
import json
import secrets
from collections.abc import Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from sqlalchemy import Table, bindparam, delete, func, insert, update
from sqlmodel import Session, SQLModel, col, select

from state.db import Database
from state.errors import CrosswalkConflictError
from state.models import CrosswalkRow, CrosswalkStampRow, QuarantineRow, utc_now
from state.postgres import recordset_insert, recordset_rows, recordset_update

# SQLite allows 32766 bound parameters; lookups stay far below it per statement.
LOOKUP_CHUNK = 500
_CROSSWALK = SQLModel.metadata.tables[CrosswalkRow.__tablename__]
_QUARANTINE = SQLModel.metadata.tables[QuarantineRow.__tablename__]
_STAMPS = SQLModel.metadata.tables[CrosswalkStampRow.__tablename__]
EXPORT_FIELDS = ("kind", "scope", "legacy_id", "v1_id", "source_hash", "run_id", "created_at", "updated_at")
ExportFormat = Literal["csv", "json"]


@dataclass(frozen=True, slots=True)
class CrosswalkEntry:
    """One mapping to write: the legacy record, the v1 id it became, and the hash of the source as written."""

    kind: str
    legacy_id: str
    v1_id: str
    scope: str = ""
    source_hash: str = ""


def upsert_entries(database: Database, session: Session, entries: Iterable[CrosswalkEntry], run_id: int | None) -> None:
    """Write entries inside the caller's transaction (a write of ``database``); a record already mapped to
    another v1 id is refused.

    A second v1 id for one legacy record would mean the target holds a duplicate, so that is an error for a
    person to look at, never an overwrite. Writing the same v1 id again refreshes the source hash.
    Quarantine entries of the same records are marked resolved: the record has now been migrated.
    """
    batch = list(entries)
    if not batch:
        return
    now = utc_now()
    groups: dict[tuple[str, str], list[str]] = {}
    for entry in batch:
        groups.setdefault((entry.kind, entry.scope), []).append(entry.legacy_id)
    # One query per (kind, scope) and chunk instead of one per entry: a 100-line bulk completes in a few ms.
    known: dict[tuple[str, str, str], tuple[int | None, str]] = {}
    c = _CROSSWALK.c
    for (kind, scope), ids in groups.items():
        for chunk in chunks(ids):
            rows = session.execute(
                _CROSSWALK.select()
                .with_only_columns(c.id, c.legacy_id, c.v1_id)
                .where(c.kind == kind, c.scope == scope, c.legacy_id.in_(chunk))
            )
            known.update({(kind, scope, legacy_id): (row_id, v1_id) for row_id, legacy_id, v1_id in rows})
    inserts: list[dict[str, object]] = []
    refreshed: dict[int, str] = {}  # row id -> source hash: an entry given twice takes its last hash
    for entry in batch:
        key = (entry.kind, entry.scope, entry.legacy_id)
        if key not in known:
            known[key] = (None, entry.v1_id)
            inserts.append(_columns(entry))
            continue
        row_id, v1_id = known[key]
        if v1_id != entry.v1_id:
            raise CrosswalkConflictError(
                f"legacy {entry.kind} {entry.legacy_id!r} (scope {entry.scope!r}) is already mapped to v1 "
                f"{v1_id!r}; refusing to map it to {entry.v1_id!r} as well. The target may now hold a "
                "duplicate: compare both v1 objects, delete the extra one, and report this"
            )
        if row_id is not None:
            refreshed[row_id] = entry.source_hash
    if inserts:
        insert_rows(session, _CROSSWALK, inserts, {"run_id": run_id, "created_at": now, "updated_at": now})
    if refreshed:
        _refresh(session, refreshed, {"run_id": run_id, "updated_at": now})
    restamp(session, {scope for _kind, scope in groups})
    if _may_hold_open_entries(database, session):
        _resolve(session, groups, now)


def restamp(session: Session, scopes: Collection[str]) -> None:
    """Give each of ``scopes`` a fresh stamp, in the transaction that changes its entries (revision 0009). Delete
    and insert: the same two statements on SQLite and PostgreSQL, and writers of a state take turns."""
    if not scopes:
        return
    session.execute(delete(_STAMPS).where(_STAMPS.c.scope.in_(sorted(scopes))))
    session.execute(insert(_STAMPS), [{"scope": scope, "stamp": secrets.token_hex(16)} for scope in sorted(scopes)])


def _may_hold_open_entries(database: Database, session: Session) -> bool:
    """Whether the quarantine may hold open entries: read once per store, then kept (``Database.open_quarantine``).

    Most runs quarantine nothing, and resolving was then one UPDATE per kind and scope of every batch for
    nothing, a sixth of a fleet's journal statements.
    """
    if database.open_quarantine is None:
        q = _QUARANTINE.c
        first_open = _QUARANTINE.select().with_only_columns(q.id).where(q.resolved_at.is_(None)).limit(1)
        database.open_quarantine = session.execute(first_open).first() is not None
    return database.open_quarantine


def _resolve(session: Session, groups: dict[tuple[str, str], list[str]], now: datetime) -> None:
    """Mark the open quarantine entries of these records resolved: each now has its v1 object."""
    q = _QUARANTINE.c
    for (kind, scope), ids in groups.items():
        for chunk in chunks(ids):
            # Core, like the writes above: the ORM's UPDATE first matched its condition against every object
            # in the session, which this session never loads.
            session.execute(
                update(_QUARANTINE)
                .where(q.kind == kind, q.scope == scope, q.legacy_id.in_(chunk), q.resolved_at.is_(None))
                .values(resolved_at=now)
            )


def insert_rows(session: Session, table: Table, rows: list[dict[str, object]], shared: dict[str, object]) -> None:
    """Insert ``rows`` (dicts of the same columns), each with the values of ``shared`` too, in the caller's
    transaction. Core on the table: the ORM's bulk insert spent more CPU than SQLite did.

    PostgreSQL gets one statement that reads the rows from one JSON parameter (``state.postgres.recordset_insert``
    says why), SQLite an executemany (its driver runs one in C, row by row in process).
    """
    if _on_postgres(session):
        session.execute(recordset_insert(table, list(rows[0]), list(shared)), {"rows": recordset_rows(rows), **shared})
    else:
        session.execute(insert(table), [{**row, **shared} for row in rows])


def _refresh(session: Session, hashes: dict[int, str], shared: dict[str, object]) -> None:
    """Set the source hash of each row (``hashes`` by row id) and the ``shared`` values; on PostgreSQL in one
    statement, for the reason ``insert_rows`` gives (one row per id: an UPDATE joined to two would pick either)."""
    if _on_postgres(session):
        statement = recordset_update(_CROSSWALK, "id", ["source_hash"]).values(shared)
        rows = [{"id": row_id, "source_hash": digest} for row_id, digest in hashes.items()]
        session.execute(statement, {"rows": recordset_rows(rows)})
    else:
        statement = update(_CROSSWALK).where(_CROSSWALK.c.id == bindparam("row_id"))
        rows = [{"row_id": row_id, "source_hash": digest, **shared} for row_id, digest in hashes.items()]
        session.execute(statement, rows)


def _on_postgres(session: Session) -> bool:
    return session.get_bind().dialect.name == "postgresql"


def _columns(entry: CrosswalkEntry) -> dict[str, object]:
    return {
        "kind": entry.kind,
        "scope": entry.scope,
        "legacy_id": entry.legacy_id,
        "v1_id": entry.v1_id,
        "source_hash": entry.source_hash,
    }


def chunks(ids: list[str]) -> Iterator[list[str]]:
    """``ids`` in lists short enough for one ``IN (...)`` (SQLite bounds a statement's parameters)."""
    for start in range(0, len(ids), LOOKUP_CHUNK):
        yield ids[start : start + LOOKUP_CHUNK]


class Crosswalk:
    """Lookups, writes, counts and exports of the legacy -> v1 id map."""

    def __init__(self, database: Database) -> None:
        self._db = database

    def put(self, entries: Sequence[CrosswalkEntry], *, run_id: int | None = None) -> None:
        """Write entries in one transaction (see ``upsert_entries`` for the rules)."""
        with self._db.write() as session:
            upsert_entries(self._db, session, entries, run_id)

    def remove(self, kind: str, legacy_id: str, scope: str = "") -> None:
        """Forget one record's entry: the run deleted its v1 object again (a purchase order draft whose
        currency v1 set otherwise than assumed), so the next run may write it afresh."""
        with self._db.write() as session:
            session.execute(
                delete(CrosswalkRow).where(
                    col(CrosswalkRow.kind) == kind,
                    col(CrosswalkRow.scope) == scope,
                    col(CrosswalkRow.legacy_id) == legacy_id,
                )
            )
            restamp(session, [scope])

    def stamp(self, scope: str = "") -> str:
        """The scope's stamp: another one means its entries changed in between ("" when none was written since
        revision 0009)."""
        with self._db.read() as session:
            found = session.execute(_STAMPS.select().with_only_columns(_STAMPS.c.stamp).where(_STAMPS.c.scope == scope))
            return found.scalar() or ""

    def get(self, kind: str, legacy_id: str, scope: str = "") -> CrosswalkRow | None:
        """The whole entry for one legacy record, or None when it has not been migrated."""
        with self._db.read() as session:
            return session.exec(
                select(CrosswalkRow).where(
                    CrosswalkRow.kind == kind, CrosswalkRow.scope == scope, CrosswalkRow.legacy_id == legacy_id
                )
            ).first()

    def lookup(self, kind: str, legacy_id: str, scope: str = "") -> str | None:
        """The v1 id of one legacy record, or None."""
        row = self.get(kind, legacy_id, scope)
        return row.v1_id if row else None

    def lookup_many(self, kind: str, legacy_ids: Iterable[str], scope: str = "") -> dict[str, str]:
        """v1 ids by legacy id for those of ``legacy_ids`` that are mapped (missing ones are left out)."""
        return self._pairs(kind, scope, legacy_ids, by_v1=False)

    def legacy_of(self, kind: str, v1_ids: Iterable[str], scope: str = "") -> dict[str, str]:
        """Legacy ids by v1 id for those of ``v1_ids`` the crosswalk knows in ``scope`` (the others left out)."""
        return self._pairs(kind, scope, v1_ids, by_v1=True)

    def _pairs(self, kind: str, scope: str, ids: Iterable[str], *, by_v1: bool) -> dict[str, str]:
        """The other id by each of ``ids`` (v1 ids when ``by_v1``, else legacy ids) that an entry holds."""
        given, other = (
            (CrosswalkRow.v1_id, CrosswalkRow.legacy_id) if by_v1 else (CrosswalkRow.legacy_id, CrosswalkRow.v1_id)
        )
        wanted = list(dict.fromkeys(ids))
        found: dict[str, str] = {}
        with self._db.read() as session:
            for chunk in chunks(wanted):
                rows = session.exec(
                    select(given, other).where(
                        CrosswalkRow.kind == kind, CrosswalkRow.scope == scope, col(given).in_(chunk)
                    )
                )
                found.update(dict(rows.all()))
        return found

    def entries(self, kind: str | None = None, scope: str | None = None) -> list[CrosswalkRow]:
        """Every entry (optionally of one kind and/or scope), ordered by kind, scope and legacy id."""
        return list(self._iter_rows(kind, scope))

    def mappings(self, scope: str) -> list[tuple[str, str, str, str]]:
        """(kind, legacy id, v1 id, source hash) of every entry in ``scope``: what a run keeps in memory, read
        as plain columns (``entries`` builds a row object per entry and parses its two timestamps)."""
        with self._db.read() as session:
            statement = select(
                CrosswalkRow.kind, CrosswalkRow.legacy_id, CrosswalkRow.v1_id, CrosswalkRow.source_hash
            ).where(CrosswalkRow.scope == scope)
            return [(kind, legacy_id, v1_id, digest) for kind, legacy_id, v1_id, digest in session.exec(statement)]

    def links(self, *, skip: Collection[str] = ()) -> list[tuple[str, str, str, str, int | None]]:
        """(kind, scope, legacy id, v1 id, run id) of every entry but those of the ``skip`` kinds, as plain
        columns: what a verification matches both sides with (``entries`` builds a row object per entry and
        parses two timestamps it never reads). A verification skips the kinds it looks up a window at a time."""
        c = _CROSSWALK.c
        statement = _CROSSWALK.select().with_only_columns(c.kind, c.scope, c.legacy_id, c.v1_id, c.run_id)
        if skip:
            statement = statement.where(c.kind.not_in(list(skip)))
        with self._db.read() as session:
            rows = session.execute(statement)
            return [(kind, scope, legacy_id, v1_id, run_id) for kind, scope, legacy_id, v1_id, run_id in rows]

    def v1_ids(self, kinds: Iterable[str]) -> set[str]:
        """The v1 ids of every entry of ``kinds``."""
        c = _CROSSWALK.c
        statement = _CROSSWALK.select().with_only_columns(c.v1_id).where(c.kind.in_(list(kinds)))
        with self._db.read() as session:
            return set(session.execute(statement).scalars())

    def runs_of(self, kind: str, scope: str = "") -> dict[int | None, int]:
        """How many entries of ``kind`` in ``scope`` each run wrote (None: written outside any run)."""
        with self._db.read() as session:
            rows = session.exec(
                select(CrosswalkRow.run_id, func.count())
                .where(CrosswalkRow.kind == kind, CrosswalkRow.scope == scope)
                .group_by(col(CrosswalkRow.run_id))
            )
            return {run_id: int(count) for run_id, count in rows}

    def find_legacy(self, v1_id: str) -> list[CrosswalkRow]:
        """Which legacy record(s) became this v1 object (more than one means a bulk mapped many to one)."""
        with self._db.read() as session:
            return list(session.exec(select(CrosswalkRow).where(CrosswalkRow.v1_id == v1_id)))

    def counts(self) -> dict[str, int]:
        """Number of mapped records per kind."""
        with self._db.read() as session:
            rows = session.exec(select(CrosswalkRow.kind, func.count()).group_by(CrosswalkRow.kind))
            return {kind: int(count) for kind, count in rows}

    def export(self, fmt: ExportFormat, kind: str | None = None) -> str:
        """The crosswalk as CSV (header row, one line per entry; formula-like text neutralised, see ``csv_cell``)
        or a JSON array of objects (exact values)."""
        records = [
            {name: _export_value(getattr(row, name)) for name in EXPORT_FIELDS} for row in self._iter_rows(kind, None)
        ]
        if fmt == "json":
            return json.dumps(records, indent=2, sort_keys=False) + "\n"
        buffer = io.StringIO()
        # RFC 4180's CRLF: the writer quotes a cell holding any character of its line terminator, so a source
        # id with a bare CR is quoted too (with "\n" alone it was written raw and split the row).
        writer = csv.DictWriter(buffer, fieldnames=EXPORT_FIELDS, lineterminator="\r\n")
        writer.writeheader()
        writer.writerows({name: csv_cell(value) for name, value in record.items()} for record in records)
        return buffer.getvalue()

    def _iter_rows(self, kind: str | None, scope: str | None) -> Iterator[CrosswalkRow]:
        statement = select(CrosswalkRow)
        if kind is not None:
            statement = statement.where(CrosswalkRow.kind == kind)
        if scope is not None:
            statement = statement.where(CrosswalkRow.scope == scope)
        statement = statement.order_by(col(CrosswalkRow.kind), col(CrosswalkRow.scope), col(CrosswalkRow.legacy_id))
        with self._db.read() as session:
            yield from session.exec(statement).all()


def _export_value(value: datetime | int | str | None) -> int | str | None:
    if isinstance(value, datetime):
        return value.isoformat().replace("+00:00", "Z")
    return value


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
"""A spreadsheet reads a cell starting with one of these as a formula (OWASP, CSV injection)."""


def csv_cell(value: int | str | None) -> int | str | None:
    """A text cell a spreadsheet would run as a formula gets a leading single quote, so it shows as text.

    Legacy ids come from the source (a tag's id is its name: ``=HYPERLINK(...)`` is a valid one); numbers
    (``run_id``, the only numeric column) are written as they are. The JSON export is never altered: a script
    wanting the exact ids reads that.
    """
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value
