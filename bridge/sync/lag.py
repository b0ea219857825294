"""Lag, as measured per record a cycle wrote (issue 32): how long legacy's change waited to be seen, and how long
the write took once it was.

- **source lag**: the moment the cycle decided the write (its intent recorded in the journal, right after the
  record's read and mapping) minus the record's legacy write time (``lastModified``; the project's
  ``updatedAt``) as the cycle read it (``clients.legacy_stamps``: the write times since the last cycle began);
- **apply lag**: the write done on v1 (the intent completed) minus that decision.

A record with no published write time (a tag, a note, a library item made from several records), gone from the
source (a delete), or written before the last cycle began (a write retried) has no source lag: it is counted, not
measured. A record is matched to its write time by its legacy id (A116). At most ``SAMPLES`` values per project
and cycle are kept in the sync log (the first written), with the exact count beside them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from bridge.canonical import Json
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


def measured(intents: Sequence[IntentRow], stamps: Mapping[str, datetime]) -> dict[str, Json]:
    """Per project (``WORKSPACE`` for the workspace's other records), the lags of the records ``intents`` wrote,
    given the write times the cycle noted as it read (by legacy id)."""
    lags: dict[str, _Lags] = {}
    for intent in intents:
        if intent.status == "done":
            for member in members_of(intent):
                lags.setdefault(_where(intent, member), _Lags()).add(intent, stamps.get(member))
    return {where: found.as_json() for where, found in sorted(lags.items())}
