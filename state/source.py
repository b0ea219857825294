"""The legacy workspace a state file belongs to, recognised by its records.

The legacy surface never names a workspace: a key opens one, and every workspace of the service sits behind
the same base URL, so the URL alone cannot tell two workspaces apart. Their records can: the database ids of
spaces, projects and contacts (what the bridge reads with ``idMode=system``) are unique across the service
(an assumption: they are UUIDs or nanoids, never per-workspace counters). The file therefore keeps the ids of
every workspace-wide record it has seen in its source, and recognises the workspace by them:

- until a run is recorded, nothing is bound: what a preflight sees replaces what the file held (a plan of
  the wrong workspace followed by a run of the right one binds the right one);
- once a run is recorded, a source holding at least one record the file has seen is the same workspace, and
  what it holds now is added, so the file follows the workspace as records come and go (a record deleted at
  the source is not missed while any other the file has seen is still there);
- a source holding none of them is another workspace, and is refused with ``StateBindingError`` (exit 2)
  before anything is written; so is an empty source, since nothing in it shows it is the same workspace;
- a file that has seen nothing (its workspace was empty) accepts the next source, and learns it.

A rotated key changes none of this: the records belong to the workspace, not to the key.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection
from dataclasses import dataclass

from sqlalchemy import delete, insert
from sqlmodel import Session, select

from mappings.kinds import Kind
from state.db import Database
from state.errors import StateBindingError
from state.models import RunRow, SourceRecordRow

KINDS = (Kind.SPACE, Kind.PROJECT, Kind.CONTACT)
"""The kinds that recognise a workspace: the workspace-wide records every workspace lists (a refusal names the
first the file has seen of each, so they can be looked up)."""


@dataclass(frozen=True, slots=True, order=True)
class SourceRecord:
    """A workspace-wide legacy record: its kind (space, project, contact) and database id."""

    kind: Kind
    legacy_id: str


class SourceWorkspace:
    """The records a state file has seen in its source: recognising the same workspace, refusing another."""

    def __init__(self, database: Database) -> None:
        self._db = database

    def known(self) -> set[SourceRecord]:
        """Every record the file has seen in its source."""
        with self._db.read() as session:
            return _known(session)

    def recognises(self, seen: Collection[SourceRecord]) -> bool:
        """Whether ``seen`` is accepted as the file's workspace (always, until a run binds the file)."""
        with self._db.read() as session:
            return not _is_another(session, _known(session), seen)

    def check(self, seen: Collection[SourceRecord], source: str) -> None:
        """Refuse a source (described as ``source``) that is another workspace than the file's; reads only."""
        with self._db.read() as session:
            _refuse_another(session, seen, source)

    def recognise(self, seen: Collection[SourceRecord], source: str) -> None:
        """``check``, then keep what the source holds now (before the first run: instead of what was kept)."""
        with self._db.write() as session:
            known = _refuse_another(session, seen, source)
            if not _bound(session):
                session.execute(delete(SourceRecordRow))
                known = set()
            fresh = sorted(set(seen) - known)
            if fresh:
                session.execute(insert(SourceRecordRow), [{"kind": r.kind, "legacy_id": r.legacy_id} for r in fresh])


def _known(session: Session) -> set[SourceRecord]:
    rows = session.exec(select(SourceRecordRow.kind, SourceRecordRow.legacy_id))
    return {SourceRecord(Kind(kind), legacy_id) for kind, legacy_id in rows}


def _bound(session: Session) -> bool:
    return session.exec(select(RunRow.id).limit(1)).first() is not None


def _is_another(session: Session, known: set[SourceRecord], seen: Collection[SourceRecord]) -> bool:
    return bool(known) and known.isdisjoint(seen) and _bound(session)


def _refuse_another(session: Session, seen: Collection[SourceRecord], source: str) -> set[SourceRecord]:
    """What the file has seen, after refusing a source that shares none of it once a run bound the file."""
    known = _known(session)
    if not _is_another(session, known, seen):
        return known
    holds = Counter(record.kind for record in seen)
    found = ", ".join(f"{holds[kind]} {kind}{'' if holds[kind] == 1 else 's'}" for kind in KINDS)
    firsts = (min((r for r in known if r.kind == kind), default=None) for kind in KINDS)
    sample = ", ".join(f"{r.kind} {r.legacy_id}" for r in firsts if r is not None)
    raise StateBindingError(
        f"the legacy key opens another workspace than the one this state file belongs to: the source at {source} "
        f"holds {found}, and none of them is among the {len(known)} spaces, projects and contacts this file has "
        f"seen in its workspace (for example {sample}); record ids are unique across the service. Use a key of "
        "the workspace this file migrated (a rotated key of it is fine), or point --state (BRIDGE_STATE) at a "
        "new file to migrate this workspace separately. If every record this file has seen was deleted at the "
        "source, nothing is left for this file to migrate or verify"
    )
