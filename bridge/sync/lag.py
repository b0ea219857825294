"""Lag, as measured per record a cycle wrote (issue 32): how long legacy's change waited to be seen, and how long
the write took once it was.

- **source lag**: the moment the cycle decided the write (its intent recorded in the journal, right after the
  record's read and mapping) minus the record's legacy write time (``lastModified``; the project's
  ``updatedAt``), read again after the cycle for the projects it wrote in (``sync.quiet``);
- **apply lag**: the write done on v1 (the intent completed) minus that decision.

A record with no published write time (a tag, a note, a library item made from several records) or gone from
the source (a delete) has no source lag: it is counted, not measured. A record is matched to its write time by
its legacy id within its project (A116). At most ``SAMPLES`` values per project and cycle are kept in the
sync log (the first written), with the exact count beside them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from bridge.canonical import Json
from bridge.clients.http import RunControls
from bridge.config import Settings
from bridge.engine.run import Transports
from bridge.sync.quiet import read_stamps
from mappings.kinds import Kind
from mappings.refs import WORKSPACE
from state.journal import members_of
from state.models import IntentRow

SAMPLES = 1000


def _ms(later: datetime, earlier: datetime) -> int:
    return max(0, round((later - earlier).total_seconds() * 1000))


def _where(intent: IntentRow, member: str) -> str:
    """The project a written record belongs to: its scope, or itself when it is a project's own record
    (``WORKSPACE`` for the workspace's other records, which publish no write time)."""
    if intent.scope:
        return intent.scope
    return member if intent.kind == Kind.PROJECT.value else WORKSPACE


@dataclass(slots=True)
class _Lags:
    records: int = 0
    unstamped: int = 0
    source_ms: list[int] = field(default_factory=list)
    apply_ms: list[int] = field(default_factory=list)

    def add(self, intent: IntentRow, written: datetime | None) -> None:
        self.records += 1
        if written is None:
            self.unstamped += 1
        elif len(self.source_ms) < SAMPLES:
            self.source_ms.append(_ms(intent.created_at, written))
            self.apply_ms.append(_ms(intent.updated_at, intent.created_at))

    def as_json(self) -> Json:
        source: list[Json] = list(self.source_ms)
        apply: list[Json] = list(self.apply_ms)
        return {"records": self.records, "unstamped": self.unstamped, "sourceMs": source, "applyMs": apply}


def measured(intents: Sequence[IntentRow], stamps: Mapping[str, Mapping[str, datetime]]) -> dict[str, Json]:
    """Per project (``WORKSPACE`` for the workspace's records), the lags of the records ``intents`` wrote, given
    each project's write times by legacy id."""
    lags: dict[str, _Lags] = {}
    for intent in intents:
        if intent.status == "done":
            for member in members_of(intent):
                where = _where(intent, member)
                lags.setdefault(where, _Lags()).add(intent, stamps.get(where, {}).get(member))
    return {where: found.as_json() for where, found in sorted(lags.items())}


async def cycle_lags(
    settings: Settings,
    intents: Sequence[IntentRow],
    *,
    transports: Transports | None = None,
    controls: RunControls | None = None,
) -> dict[str, Json]:
    """The lags of a cycle's writes (``intents``: its run's), the write times read for the projects written."""
    projects = sorted({_where(intent, m) for intent in intents for m in members_of(intent)} - {WORKSPACE})
    stamps: dict[str, dict[str, datetime]] = {}
    for project in projects:
        found = await read_stamps(settings, project, transports=transports, controls=controls)
        stamps[project] = {stamp.legacy_id: stamp.at for stamp in found}
    return measured(intents, stamps)
