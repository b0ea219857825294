"""Bridge mode's part of the state: the v1 marks of the records the bridge wrote, the conflict queue, and each
project's cutover.

A mark is what the bridge last saw of one record's v1 row after its own writes (``engine.guard`` computes it).
A conflict is a record changed on legacy while its v1 row moved away from its mark: it stays open, and nothing
writes the record, until a person takes one side (`bridge conflicts resolve`). A cutover is a project's declared
freeze instant and, once finalized, the certificate that proves it (`bridge cutover`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import bindparam, delete, exists, insert
from sqlmodel import SQLModel, col, select

from state.db import Database
from state.models import ConflictRow, CutoverRow, MarkRow, utc_now

_MARKS = SQLModel.metadata.tables[MarkRow.__tablename__]


@dataclass(frozen=True, slots=True)
class Mark:
    """One record's v1 row as the bridge last saw it."""

    kind: str
    scope: str
    legacy_id: str
    v1_id: str
    mark: str


@dataclass(frozen=True, slots=True)
class Conflict:
    """A record changed on both sides: what legacy wants written (``change`` update or delete) and v1's row."""

    kind: str
    scope: str
    legacy_id: str
    v1_id: str
    change: str
    legacy_json: str
    legacy_hash: str
    v1_json: str


class Marks:
    """Read and replace the v1 marks of one scope's records."""

    def __init__(self, database: Database) -> None:
        self._db = database

    def of(self, scope: str) -> dict[tuple[str, str], Mark]:
        """(kind, legacy id) -> mark, for ``scope``; read as plain columns (a sync reads every mark of each
        project it writes in, and a row object per mark was most of an idle cycle's state time)."""
        statement = select(MarkRow.kind, MarkRow.legacy_id, MarkRow.v1_id, MarkRow.mark).where(MarkRow.scope == scope)
        with self._db.read() as session:
            rows = session.exec(statement).all()
        return {(kind, legacy): Mark(kind, scope, legacy, v1_id, mark) for kind, legacy, v1_id, mark in rows}

    def held(self, scope: str) -> bool:
        """Whether ``scope`` holds any mark (not read: a sync asks it of every project it reads)."""
        with self._db.read() as session:
            return bool(session.execute(select(exists().where(_MARKS.c.scope == scope))).scalar())

    def put(self, marks: Sequence[Mark]) -> None:
        """Replace the marks of these records (one transaction)."""
        if not marks:
            return
        now = utc_now()
        c = _MARKS.c
        # Core on the table, one executemany: the ORM's DELETE matched its condition against the session's objects
        # once per mark, 23 s for the 25,000 marks of a first sync on `medium`.
        replaced = delete(_MARKS).where(
            c.kind == bindparam("k"), c.scope == bindparam("s"), c.legacy_id == bindparam("l")
        )
        with self._db.write() as session:
            session.execute(replaced, [{"k": m.kind, "s": m.scope, "l": m.legacy_id} for m in marks])
            session.execute(
                insert(_MARKS),
                [
                    {
                        "kind": m.kind,
                        "scope": m.scope,
                        "legacy_id": m.legacy_id,
                        "v1_id": m.v1_id,
                        "mark": m.mark,
                        "marked_at": now,
                    }
                    for m in marks
                ],
            )

    def remove(self, kind: str, scope: str, legacy_id: str) -> None:
        with self._db.write() as session:
            session.execute(
                delete(MarkRow).where(
                    col(MarkRow.kind) == kind, col(MarkRow.scope) == scope, col(MarkRow.legacy_id) == legacy_id
                )
            )


class Conflicts:
    """The conflict queue: one open conflict per record at most, its values refreshed as both sides move."""

    def __init__(self, database: Database) -> None:
        self._db = database

    def file(self, conflicts: Iterable[Conflict]) -> None:
        """Open a conflict per record, or refresh the values of the one already open."""
        now = utc_now()
        with self._db.write() as session:
            for c in conflicts:
                row = session.exec(
                    select(ConflictRow).where(
                        ConflictRow.kind == c.kind,
                        ConflictRow.scope == c.scope,
                        ConflictRow.legacy_id == c.legacy_id,
                        col(ConflictRow.resolved_at).is_(None),
                    )
                ).first()
                if row is None:
                    row = ConflictRow(
                        kind=c.kind,
                        scope=c.scope,
                        legacy_id=c.legacy_id,
                        v1_id=c.v1_id,
                        change=c.change,
                        legacy_json=c.legacy_json,
                        legacy_hash=c.legacy_hash,
                        v1_json=c.v1_json,
                        detected_at=now,
                    )
                else:
                    row.change, row.legacy_json, row.legacy_hash, row.v1_json = (
                        c.change,
                        c.legacy_json,
                        c.legacy_hash,
                        c.v1_json,
                    )
                session.add(row)

    def listed(self, *, open_only: bool = True) -> list[ConflictRow]:
        """The conflicts, oldest first (the open ones unless told)."""
        query = select(ConflictRow).order_by(col(ConflictRow.id))
        if open_only:
            query = query.where(col(ConflictRow.resolved_at).is_(None))
        with self._db.read() as session:
            return list(session.exec(query).all())

    def open_records(self, scope: str) -> set[tuple[str, str]]:
        """(kind, legacy id) of the records of ``scope`` with an open conflict."""
        return {(c.kind, c.legacy_id) for c in self.listed() if c.scope == scope}

    def get(self, conflict_id: int) -> ConflictRow | None:
        with self._db.read() as session:
            return session.get(ConflictRow, conflict_id)

    def resolve(self, conflict_id: int, taken: str, at: datetime | None = None) -> None:
        with self._db.write() as session:
            row = session.get(ConflictRow, conflict_id)
            if row is not None:
                row.resolved_at = at or utc_now()
                row.taken = taken
                session.add(row)


class Cutovers:
    """Per legacy project: the freeze declared (`bridge cutover freeze`) and the cutover finalized."""

    def __init__(self, database: Database) -> None:
        self._db = database

    def get(self, project: str) -> CutoverRow | None:
        with self._db.read() as session:
            return session.get(CutoverRow, project)

    def freeze(self, project: str, at: datetime) -> CutoverRow:
        """Declare ``project`` frozen at ``at`` (a second freeze keeps the first instant)."""
        with self._db.write() as session:
            row = session.get(CutoverRow, project)
            if row is None:
                row = CutoverRow(project=project, frozen_at=at)
                session.add(row)
            return row

    def finalize(self, project: str, certificate: str, at: datetime) -> None:
        with self._db.write() as session:
            row = session.get(CutoverRow, project)
            if row is not None:
                row.finalized_at, row.certificate = at, certificate
                session.add(row)

    def cut_over(self) -> set[str]:
        """The projects whose cutover is finalized: later syncs only watch them."""
        with self._db.read() as session:
            rows = session.exec(select(CutoverRow).where(col(CutoverRow.finalized_at).is_not(None))).all()
        return {row.project for row in rows}
