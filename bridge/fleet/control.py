"""What an operator does to a fleet from anywhere that reaches its database: submit, status, retry, cancel.

These talk to the queue through DBOS's client (no workflow code runs here) and to the fleet's tables.

- ``submit`` checks the manifest, asks each target who the token works in (the queue's partition key: one
  migration per target at a time) and enqueues one workflow per workspace under an id derived from the
  migration; DBOS keeps the first workflow of an id, so submitting again starts nothing.
- ``status`` joins the queue's view (queued, running on which worker, stopped and why, verified and the
  verdict) with each migration's own state (the counts `bridge status` shows).
- ``retry`` puts a stopped or cancelled workspace back on the queue as its next attempt; ``cancel`` stops a
  queued or running one at its next step.
"""

from __future__ import annotations

import asyncio
import hashlib
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypedDict

from dbos import DBOS, DBOSClient, StepInfo, WorkflowHandle, WorkflowStatus
from sqlalchemy import Engine

from bridge.clients.http import RunControls
from bridge.clients.legacy import open_legacy
from bridge.clients.v1 import open_v1
from bridge.engine.preflight import source_identity, target_identity
from bridge.errors import BridgeError, UsageError
from bridge.fleet import registry
from bridge.fleet.database import fleet_engine, fleet_url, reaching, secret_url
from bridge.fleet.manifest import WorkspaceSpec
from bridge.fleet.registry import Submitted
from bridge.fleet.workflow import APP, APP_VERSION, QUEUE, SYNC_WORKFLOW, WORKFLOW, WORKSPACE_STEP, Verdict
from state import open_state
from state.errors import StateError
from state.status import RecordInfo, status_of

STATES = {
    "ENQUEUED": "queued",
    "DELAYED": "queued",
    "PENDING": "running",
    "SUCCESS": "verified",
    "ERROR": "stopped",
    "CANCELLED": "cancelled",
    "MAX_RECOVERY_ATTEMPTS_EXCEEDED": "stopped",
}
RETRIABLE = frozenset({"stopped", "cancelled"})


@dataclass(frozen=True, slots=True)
class Fleet:
    """An open fleet: its database and a DBOS client on it."""

    state: str
    engine: Engine
    client: DBOSClient


@contextmanager
def open_fleet(state: str, *, create: bool = False) -> Iterator[Fleet]:
    """Connect to the fleet's database; ``create`` (submit) makes DBOS's and the fleet's tables on first use,
    the other commands change nothing and refuse a database no fleet was submitted to."""
    url = fleet_url(state)
    engine = fleet_engine(url)
    try:
        with reaching(state):
            if create:
                registry.ensure_tables(engine)
                DBOS.migrate(secret_url(url))
            elif not registry.exists(engine):
                raise UsageError(
                    f"no fleet in {url.render_as_string(hide_password=True)} yet: `bridge fleet submit MANIFEST` "
                    "with the same --state starts one"
                )
            client = DBOSClient(system_database_url=secret_url(url), application_name=APP)
    except BaseException:
        engine.dispose()
        raise
    try:
        with reaching(state):
            yield Fleet(state, engine, client)
    finally:
        client.destroy()
        engine.dispose()


# -- submit --------------------------------------------------------------------------------------------------


class Submission(TypedDict):
    name: str
    workflow_id: str
    started: bool
    state: str


async def _identities(spec: WorkspaceSpec, state: str) -> tuple[str, str]:
    """The target workspace the token works in (the queue's partition key) and the source the key opens."""
    settings = spec.settings(state)
    v1_url, token = settings.require_v1()
    legacy_url, key = settings.require_legacy()
    controls = RunControls.of(settings)
    async with open_v1(v1_url, token, controls, timeout=settings.request_timeout) as v1:
        identity = await v1.me()
    async with open_legacy(legacy_url, key, controls, timeout=settings.request_timeout) as legacy:
        source = source_of(
            legacy_url, [*(s.id for s in await legacy.spaces()), *(p.id for p in await legacy.projects())]
        )
    return f"{target_identity(identity)[0]}@{v1_url}", source


def source_of(legacy_url: str, ids: list[str]) -> str:
    """The legacy workspace a key opens, recognised by its records: the legacy surface publishes no identity
    for it, and every workspace of a service shares its URL. "" for a workspace holding no space or project
    (nothing to recognise it by)."""
    if not ids:
        return ""
    digest = hashlib.sha256("\n".join(sorted(ids)).encode()).hexdigest()[:32]
    return f"{source_identity(legacy_url)}#{digest}"


def _same_entry(before: Submitted, spec: WorkspaceSpec) -> None:
    if before.spec != spec:
        raise UsageError(
            f"workspace {spec.name} was submitted before with other settings; a name is one migration: "
            "give the changed workspace a new name, or keep its entry as it was"
        )


def _one_migration_each(fleet: Fleet, known: dict[str, Submitted], new: list[Submitted]) -> None:
    """Refuse a new entry whose target or source another name already holds (one not cancelled): two
    migrations into one target would write its books twice, two out of one source would race."""
    holders = [s for s in known.values() if (flow := _status(fleet, s)) is None or flow.status != "CANCELLED"]
    for index, entry in enumerate(new):
        for other in [*holders, *new[:index]]:
            for what, mine, theirs in (("target", entry.target, other.target), ("source", entry.source, other.source)):
                if mine and mine == theirs:
                    raise UsageError(
                        f"workspace {entry.spec.name} has the same {what} as workspace {other.spec.name} "
                        f"({'who the token is' if what == 'target' else 'what the legacy key opens'}): one "
                        f"{what}, one migration. Remove one of the two entries, or cancel {other.spec.name} first "
                        f"(`bridge fleet cancel {other.spec.name}`)"
                    )


def submit(fleet: Fleet, specs: tuple[WorkspaceSpec, ...]) -> list[Submission]:
    """Enqueue every workspace not yet submitted; one already there is left as it is (same entry) or refused."""
    known = {s.spec.name: s for s in registry.submitted(fleet.engine)}
    for spec in specs:
        before = known.get(spec.name)
        if before is not None:
            _same_entry(before, spec)
    new: list[Submitted] = []
    for spec in specs:
        if spec.name not in known:
            try:
                target, source = asyncio.run(_identities(spec, fleet.state))
            except BridgeError as exc:
                exc.add_note(f"while asking which workspaces the key and the token of {spec.name} open")
                raise
            new.append(Submitted(spec, target, 1, source))
    _one_migration_each(fleet, known, new)
    raced: set[str] = set()
    for mine in new:
        entry, inserted = registry.add(fleet.engine, mine.spec, mine.target, mine.source)
        if not inserted:  # a submit running at the same time recorded this name first
            _same_entry(entry, mine.spec)
            raced.add(entry.spec.name)
        known[entry.spec.name] = entry
    done: list[Submission] = []
    for spec in specs:
        entry = known[spec.name]
        with registry.enqueuing(fleet.engine, spec.name):
            before_status = _status(fleet, entry)
            handle: WorkflowHandle[Verdict] = fleet.client.enqueue(
                {
                    "queue_name": QUEUE,
                    "workflow_name": WORKFLOW,
                    "workflow_id": entry.workflow_id,
                    "queue_partition_key": entry.target,
                    "app_version": APP_VERSION,
                    "application_name": APP,
                },
                spec.model_dump_json(),
            )
            status = handle.get_status()
        done.append(
            {
                "name": spec.name,
                "workflow_id": entry.workflow_id,
                "started": before_status is None and spec.name not in raced,
                "state": STATES.get(status.status, status.status.lower()),
            }
        )
    return done


# -- status --------------------------------------------------------------------------------------------------


class WorkerInfo(TypedDict):
    executor_id: str
    host: str
    pid: int
    state: str
    silent_s: float


class WorkspaceStatus(TypedDict):
    name: str
    target: str
    attempt: int
    workflow_id: str
    state: str
    worker: WorkerInfo | None
    steps_done: int
    steps_total: int | None
    """The workspace step, one per project, verify: known once the workspace step has listed the projects (or
    the manifest names them); None before."""
    started_at: float | None
    """When its first step started (epoch seconds); None while queued."""
    elapsed_s: float | None
    """From its first step's start to its end, or so far."""
    reason: str | None
    reconciled: bool | None
    verdict: dict[str, Any] | None
    counts: dict[str, RecordInfo] | None
    counts_error: str | None
    sync: SyncStatus | None


def _status(fleet: Fleet, entry: Submitted) -> WorkflowStatus | None:
    found = fleet.client.list_workflows(workflow_ids=[entry.workflow_id], load_input=False)
    return found[0] if found else None


def _counts(state: str, name: str) -> tuple[dict[str, RecordInfo] | None, str | None]:
    """The records per kind `bridge status --migration NAME` shows, or why there are none yet."""
    try:
        with open_state(state, read_only=True, migration=name) as store:
            return status_of(store, 1)["records"], None
    except StateError as exc:
        return None, str(exc)


def _steps_total(steps: list[StepInfo], spec: WorkspaceSpec) -> int | None:
    """The workspace step, one step per project and verify (``workflow.migrate_workspace``): the projects are
    the workspace step's recorded result, or the manifest's selection before it."""
    for step in steps:
        output = step.get("output")
        if step["function_name"] == WORKSPACE_STEP and isinstance(output, dict):
            return len(output["projects"]) + 2
    return len(spec.projects) + 2 if spec.projects else None


def _timing(steps: list[StepInfo], flow: WorkflowStatus | None, now: float) -> tuple[float | None, float | None]:
    """When the workspace's first step started (epoch seconds) and how long it has taken: to the workflow's end
    (verified, stopped, cancelled), or so far."""
    starts = [begun for step in steps if (begun := step.get("started_at_epoch_ms")) is not None]
    if not starts:
        return None, None
    first = min(starts) / 1000
    end = flow.completed_at / 1000 if flow is not None and flow.completed_at is not None else now
    return first, round(max(end - first, 0.0), 1)


def status(fleet: Fleet) -> list[WorkspaceStatus]:
    """Every submitted workspace: where its workflow is, who runs it, why it stopped, its verdict and counts."""
    workers = registry.all_workers(fleet.engine)
    now = time.time()
    rows: list[WorkspaceStatus] = []
    for entry in registry.submitted(fleet.engine):
        flow = _status(fleet, entry)
        state = "missing" if flow is None else STATES.get(flow.status, flow.status.lower())
        worker = workers.get(flow.executor_id or "") if flow is not None and state == "running" else None
        output = flow.output if flow is not None and state == "verified" else None
        counts, counts_error = _counts(fleet.state, entry.spec.name)
        steps = fleet.client.list_workflow_steps(entry.workflow_id) if flow is not None else []
        started_at, elapsed = _timing(steps, flow, now)
        rows.append(
            {
                "name": entry.spec.name,
                "target": entry.target,
                "attempt": entry.attempt,
                "workflow_id": entry.workflow_id,
                "state": state,
                "worker": None
                if worker is None
                else {
                    "executor_id": worker.executor_id,
                    "host": worker.host,
                    "pid": worker.pid,
                    "state": worker.state,
                    "silent_s": round(worker.silent_s, 1),
                },
                "steps_done": sum(1 for step in steps if step.get("error") is None and "output" in step),
                "steps_total": _steps_total(steps, entry.spec),
                "started_at": started_at,
                "elapsed_s": elapsed,
                "reason": str(flow.error) if flow is not None and flow.error is not None else None,
                "reconciled": bool(output["reconciled"]) if isinstance(output, dict) else None,
                "verdict": output["summary"] if isinstance(output, dict) else None,
                "counts": counts,
                "counts_error": counts_error,
                "sync": sync_status(fleet, entry, now),
            }
        )
    return rows


# -- retry and cancel ----------------------------------------------------------------------------------------


def _entry(fleet: Fleet, name: str) -> tuple[Submitted, str]:
    entry = registry.find(fleet.engine, name)
    if entry is None:
        names = ", ".join(s.spec.name for s in registry.submitted(fleet.engine)) or "none"
        raise UsageError(f"no workspace {name!r} was submitted to this fleet (submitted: {names})")
    flow = _status(fleet, entry)
    return entry, "missing" if flow is None else STATES.get(flow.status, flow.status.lower())


def retry(fleet: Fleet, name: str) -> Submission:
    """Queue a stopped or cancelled workspace again, as its next attempt (it resumes from its journal)."""
    entry, state = _entry(fleet, name)
    if state not in RETRIABLE and state != "missing":
        raise UsageError(f"workspace {name} is {state}: only a stopped or cancelled workspace is retried")
    again = registry.next_attempt(fleet.engine, name) if state != "missing" else entry
    return submit(fleet, (again.spec,))[0]


def cancel(fleet: Fleet, name: str) -> str:
    """Cancel a queued or running workspace (a running one stops at its next step); the state it had."""
    entry, state = _entry(fleet, name)
    if state not in ("queued", "running"):
        raise UsageError(f"workspace {name} is {state}: only a queued or running workspace is cancelled")
    fleet.client.cancel_workflow(entry.workflow_id)
    return state


# -- bridge mode ---------------------------------------------------------------------------------------------


class SyncStatus(TypedDict):
    """A workspace's bridge mode as `fleet status` shows it: its sync workflow, cycles done and the last one."""

    workflow_id: str
    state: str
    cycles: int
    last_finished: str | None
    lag_s: float | None
    requests: int
    open_conflicts: int | None
    verdict: str | None


def _syncs(fleet: Fleet, entry: Submitted) -> list[WorkflowStatus]:
    """The workspace's sync workflows, oldest first (``<migration workflow>:sync:<n>``)."""
    found = fleet.client.list_workflows(workflow_id_prefix=f"{entry.workflow_id}:sync:", load_input=False)
    return sorted(found, key=lambda flow: int(flow.workflow_id.rsplit(":", 1)[1]))


def start_sync(fleet: Fleet, names: list[str], *, cycles: int, interval_s: float) -> list[tuple[str, str, bool]]:
    """Queue bridge mode for each named workspace (submitted before): (name, sync workflow id, started). One whose
    sync is queued or running is left as it is."""
    done: list[tuple[str, str, bool]] = []
    for name in names:
        entry, _ = _entry(fleet, name)
        with registry.enqueuing(fleet.engine, name):
            flows = _syncs(fleet, entry)
            if flows and STATES.get(flows[-1].status) in ("queued", "running"):
                done.append((name, flows[-1].workflow_id, False))
                continue
            workflow_id = f"{entry.workflow_id}:sync:{len(flows) + 1}"
            fleet.client.enqueue(
                {
                    "queue_name": QUEUE,
                    "workflow_name": SYNC_WORKFLOW,
                    "workflow_id": workflow_id,
                    "queue_partition_key": entry.target,
                    "app_version": APP_VERSION,
                    "application_name": APP,
                },
                entry.spec.model_dump_json(),
                cycles,
                interval_s,
            )
            done.append((name, workflow_id, True))
    return done


def stop_sync(fleet: Fleet, names: list[str]) -> list[tuple[str, str]]:
    """Cancel each named workspace's queued or running sync (it stops at its next step or wait)."""
    stopped: list[tuple[str, str]] = []
    for name in names:
        entry, _ = _entry(fleet, name)
        flows = _syncs(fleet, entry)
        if flows and STATES.get(flows[-1].status) in ("queued", "running"):
            fleet.client.cancel_workflow(flows[-1].workflow_id)
            stopped.append((name, flows[-1].workflow_id))
    return stopped


def sync_status(fleet: Fleet, entry: Submitted, now: float) -> SyncStatus | None:
    """The workspace's latest sync: its cycles' results (each recorded step's output), the lag since the last."""
    flows = _syncs(fleet, entry)
    if not flows:
        return None
    flow = flows[-1]
    outputs: list[dict[str, Any]] = [
        output
        for step in fleet.client.list_workflow_steps(flow.workflow_id)
        if isinstance(output := step.get("output"), dict)
    ]
    last = outputs[-1] if outputs else None
    finished = str(last["finished"]) if last is not None else None
    lag = None
    if finished is not None:
        lag = round(now - datetime.fromisoformat(finished.replace("Z", "+00:00")).timestamp(), 1)
    conflicts: int | None = None
    try:
        with open_state(fleet.state, read_only=True, migration=entry.spec.name) as store:
            conflicts = len(store.conflicts.listed())
    except StateError:
        conflicts = None
    state = STATES.get(flow.status, flow.status.lower())
    return {
        "workflow_id": flow.workflow_id,
        # A sync that ended its cycles is done, not "verified" (the migration's word).
        "state": "done" if state == "verified" else state,
        "cycles": len(outputs),
        "last_finished": finished,
        "lag_s": lag,
        "requests": sum(int(output["requests"]) for output in outputs),
        "open_conflicts": conflicts,
        "verdict": str(last["verdict"]) if last is not None else None,
    }
