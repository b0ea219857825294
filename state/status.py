"""What `bridge status` shows of one state: the last runs, the records per kind, the journal per kind, the
in-flight intents, quarantine by code.

Records (what the crosswalk maps, what quarantine holds) and the journal (write requests by status) are kept
apart: a record is one legacy object, an intent one request, and one bulk request writes many records. A run
recorded ``running`` is shown ``interrupted`` when its process is gone (``state.processes``).

A reading of the store alone, so every layer above may show it: the `bridge status` command renders it, a fleet's
status reports each migration's records per kind from it.
"""

from __future__ import annotations

from datetime import datetime
from typing import NotRequired, TypedDict

from state.models import INTENT_STATUSES, RunRow, utc_now
from state.processes import Liveness, run_liveness
from state.runs import report_of
from state.store import StateStore


class RunInfo(TypedDict):
    id: int | None
    migration: str
    status: str
    """As recorded, except a run recorded ``running`` whose process is gone: ``interrupted`` (see ``process``)."""
    process: Liveness | None
    """For a run recorded ``running``: whether its process still runs (``state.processes.run_liveness``)."""
    host: str | None
    pid: int | None
    started_at: str | None
    finished_at: str | None
    duration_s: float | None
    """Finished minus started; for a live run, so far; None for a run whose end is not known."""
    plan_fingerprint: str
    report: dict[str, object]
    """What the run did per kind, as its own summary counted it (empty for a run killed or still going)."""


class RecordInfo(TypedDict):
    """One kind's records: how many the crosswalk maps to a v1 object, how many sit in quarantine."""

    migrated: int
    quarantined: int


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
    records: dict[str, RecordInfo]
    journal: dict[str, dict[str, int]]
    """Per kind, the write intents (one a request) by status."""
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
        "runs": [_run_info(run, now) for run in store.runs.last_runs(run_count)],
        "records": {
            kind: {"migrated": mapped.get(kind, 0), "quarantined": quarantined.get(kind, 0)}
            for kind in sorted(set(mapped) | set(quarantined))
        },
        "journal": {kind: {**empty, **intents[kind]} for kind in sorted(intents)},
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


def _run_info(run: RunRow, now: datetime) -> RunInfo:
    process = run_liveness(run.host, run.pid, run.process_started) if run.status == "running" else None
    end = run.finished_at or (now if process in ("live", "unknown") else None)
    return {
        "id": run.id,
        "migration": run.migration,
        "status": "interrupted" if process == "gone" else run.status,
        "process": process,
        "host": run.host,
        "pid": run.pid,
        "started_at": _iso(run.started_at),
        "finished_at": _iso(run.finished_at),
        "duration_s": None if end is None else round((end - run.started_at).total_seconds(), 1),
        "plan_fingerprint": run.plan_fingerprint,
        "report": report_of(run),
    }


def _iso(moment: datetime | None) -> str | None:
    return None if moment is None else moment.isoformat(timespec="seconds").replace("+00:00", "Z")
