"""What `bridge status` shows of one state: the last runs, per-kind counts, in-flight intents, quarantine by code.

A reading of the store alone, so every layer above may show it: the `bridge status` command renders it, a fleet's
status reports each migration's per-kind counts from it.
"""

from __future__ import annotations

from datetime import datetime
from typing import NotRequired, TypedDict

from state.models import INTENT_STATUSES, utc_now
from state.runs import report_of
from state.store import StateStore


class RunInfo(TypedDict):
    id: int | None
    migration: str
    status: str
    started_at: str | None
    finished_at: str | None
    plan_fingerprint: str
    report: dict[str, object]
    """What the run did per kind, as its own summary counted it (empty for a run killed or still going)."""


class KindInfo(TypedDict):
    mapped: int
    quarantined_records: int
    intents: dict[str, int]


class FlightInfo(TypedDict):
    step_key: str
    kind: str
    status: str
    attempts: int
    age_s: float
    last_error_code: str | None


class StatusReport(TypedDict):
    integrity: NotRequired[list[str]]
    state: str
    schema_version: str | None
    source: str | None
    target: str | None
    runs: list[RunInfo]
    kinds: dict[str, KindInfo]
    in_flight: list[FlightInfo]
    quarantine_by_code: dict[str, int]


def status_of(store: StateStore, run_count: int) -> StatusReport:
    """What `bridge status` shows: the last runs, per-kind counts, in-flight intents, quarantine by code."""
    now = utc_now()
    binding = store.runs.binding()
    intents = store.journal.counts()
    mapped = store.crosswalk.counts()
    quarantined = store.quarantine.counts_by_kind()
    empty: dict[str, int] = dict.fromkeys(INTENT_STATUSES, 0)
    return {
        "state": store.location,
        "schema_version": store.schema_version(),
        "source": binding[0] if binding else None,
        "target": binding[1] if binding else None,
        "runs": [
            {
                "id": run.id,
                "migration": run.migration,
                "status": run.status,
                "started_at": _iso(run.started_at),
                "finished_at": _iso(run.finished_at),
                "plan_fingerprint": run.plan_fingerprint,
                "report": report_of(run),
            }
            for run in store.runs.last_runs(run_count)
        ],
        "kinds": {
            kind: {
                "mapped": mapped.get(kind, 0),
                "quarantined_records": quarantined.get(kind, 0),
                "intents": intents.get(kind, empty),
            }
            for kind in sorted(set(intents) | set(mapped) | set(quarantined))
        },
        "in_flight": [
            {
                "step_key": intent.step_key,
                "kind": intent.kind,
                "status": intent.status,
                "attempts": intent.attempts,
                "age_s": round((now - intent.created_at).total_seconds(), 1),
                "last_error_code": intent.last_error_code,
            }
            for intent in store.journal.in_flight()
        ],
        "quarantine_by_code": store.quarantine.counts_by_code(),
    }


def _iso(moment: datetime | None) -> str | None:
    return None if moment is None else moment.isoformat(timespec="seconds").replace("+00:00", "Z")
