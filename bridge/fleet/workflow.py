"""One durable workflow per workspace, on DBOS Transact: its steps are the run's declared stages.

::

    workspace stage  ->  project p_1  ->  project p_2  ->  ...  ->  verify

Each step is what `bridge run` does for that stage, through the same engine, journal and idempotency keys:
the workspace stage alone (``migrate(pipelines=False)``), then one project at a time (``--project``
semantics), then `bridge verify`. DBOS records each step's result once it returns; a worker that dies inside
a step leaves it unrecorded, and whoever resumes the workflow runs the step again, which replays the journal
and sends nothing twice. The projects a workspace holds are the workspace step's recorded result, so a
resumed workflow walks the same list.

Steps run on the worker's event loop, so the worker's ``--concurrency`` is one fixed cap that every run's
requests share (``RunControls.ceiling``), on top of each run's own adaptive limiter: one tenant's 429s slow
only that tenant's runs.

What a worker binds (``bind``) is process-wide: the fleet's database, the shared cap, where reports go. A
step that finds the migration's state held by another process (a worker declared dead that is in fact only
slow) waits for it instead of failing.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypedDict, TypeVar

import structlog
from dbos import DBOS
from tenacity import AsyncRetrying, RetryCallState, retry_if_exception_type, stop_after_delay, wait_exponential

from bridge.clients.http import RunControls
from bridge.clients.limiter import AimdLimiter
from bridge.config import Settings
from bridge.engine.progress import Progress
from bridge.engine.run import migrate
from bridge.errors import BridgeError, RetriableError, RetryBudgetExhausted, ServiceUnavailable
from bridge.fleet.manifest import WorkspaceSpec
from bridge.logging import redact_text, register_secret
from bridge.sync.cycle import run_cycle
from bridge.sync.log import SyncLog
from bridge.terminal import plain
from bridge.verify.compare import FailOn
from bridge.verify.reconcile import VerifyOptions, verify
from bridge.verify.report import write_reports
from bridge.verify.summary import summary
from state import open_state
from state.errors import StateInUseError, StateLockedError, StateStorageError

log = structlog.get_logger("bridge.fleet")

QUEUE = "bridge-fleet"
WORKFLOW = "bridge.fleet.migrate"
SYNC_WORKFLOW = "bridge.fleet.sync"
WORKSPACE_STEP = "bridge.fleet.workspace"
APP = "workspace-bridge-fleet"
APP_VERSION = "workspace-bridge-fleet-1"
"""Every worker and every submission use this version: DBOS recovers and dequeues only within one version."""
HELD_WAIT_S = 120.0
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class WorkerContext:
    """What every step on this worker shares."""

    state: str
    ceiling: AimdLimiter
    report_dir: Path
    # Seconds a step keeps retrying a stop that passes by itself (``HEALS``) before the workspace stops.
    heal_for: float = 600.0


_bound: list[WorkerContext] = []


def bind(context: WorkerContext) -> None:
    """Set this process's worker context (once, before DBOS launches)."""
    _bound[:] = [context]


def _context() -> WorkerContext:
    if not _bound:
        raise RuntimeError("a fleet step ran in a process that is not a fleet worker (bind() was not called)")
    return _bound[0]


class StageStoppedError(Exception):
    """A step stopped with a BridgeError: its message (never a secret), kept simple so DBOS can store it."""


class StageResult(TypedDict):
    stage: str
    run_id: int | None
    projects: list[str]
    quarantined: int
    requests: int


class Verdict(TypedDict):
    reconciled: bool
    summary: dict[str, object]


class CycleResult(TypedDict):
    """One bridge-mode cycle of a workspace, as `fleet status` shows it."""

    seq: int
    finished: str
    requests: int
    open_conflicts: int
    verdict: str


def _settings(spec_json: str, **extra: object) -> Settings:
    context = _context()
    settings = WorkspaceSpec.model_validate_json(spec_json).settings(context.state, **extra)
    for secret in (settings.legacy_key, settings.token):
        if secret is not None:
            register_secret(secret)
    return settings


# Stops that pass by themselves: the service or the fleet's database away, a full disk, rate limits past the
# run's budget. The fleet retries them (each attempt resumes from the journal: nothing is sent twice) for up to
# the worker's bound; a stop a person must act on (credentials, permissions, a record the source refuses)
# stops the workspace at once, with its reason.
HEALS = (ServiceUnavailable, RetryBudgetExhausted, RetriableError, StateStorageError, StateLockedError)


async def _held_patiently(work: Callable[[], Awaitable[T]], stage: str) -> T:
    """Run ``work``; a migration held by another process is waited for, a stop that passes by itself is retried
    with backoff for up to the worker's bound, any other bridge error becomes the step's StageStoppedError."""
    try:
        async for attempt in AsyncRetrying(
            retry=retry_if_exception_type(StateInUseError) | retry_if_exception_type(HEALS),
            wait=wait_exponential(multiplier=1, max=30),
            stop=stop_after_delay(max(HELD_WAIT_S, _context().heal_for)),
            before_sleep=_said,
            reraise=True,
        ):
            with attempt:
                result: T = await work()
                return result
    except BridgeError as exc:
        # Stored by DBOS (its workflow_status table) and printed by `fleet status` and the worker: the same
        # masking as a single run's log (every registered secret in every encoding) and the same escaping.
        raise StageStoppedError(plain(f"{stage}: {type(exc).__name__}: {exc}")) from None
    raise AssertionError("unreachable: tenacity either returns or re-raises")


def _said(state: RetryCallState) -> None:
    failure = state.outcome.exception() if state.outcome is not None else None
    log.warning(
        "bridge.fleet.step.retrying",
        attempt=state.attempt_number,
        error=type(failure).__name__,
        message=redact_text(str(failure)),
    )


async def _migrate_stage(spec_json: str, stage: str, projects: tuple[str, ...] | None) -> StageResult:
    """The workspace stage (``projects`` None: the manifest's selection, no pipelines) or one project."""
    extra = {} if projects is None else {"projects": projects}
    settings = _settings(spec_json, **extra)

    async def work() -> StageResult:
        controls = RunControls.of(settings, _context().ceiling)
        outcome = await migrate(
            settings, dry_run=False, progress=Progress(), controls=controls, pipelines=projects is not None
        )
        return {
            "stage": stage,
            "run_id": outcome.run_id,
            "projects": list(outcome.projects),
            "quarantined": len(outcome.ledger.quarantine),
            "requests": outcome.ledger.requests,
        }

    return await _held_patiently(work, stage)


@DBOS.step(name=WORKSPACE_STEP)
async def workspace_step(spec_json: str) -> StageResult:
    return await _migrate_stage(spec_json, "workspace", None)


@DBOS.step(name="bridge.fleet.project")
async def project_step(spec_json: str, project_id: str) -> StageResult:
    return await _migrate_stage(spec_json, f"project:{project_id}", (project_id,))


@DBOS.step(name="bridge.fleet.verify")
async def verify_step(spec_json: str) -> Verdict:
    settings = _settings(spec_json)
    context = _context()

    async def work() -> Verdict:
        # The manifest's projects, as the run moved them; mismatch fails, as `bridge verify` does by default.
        chosen = VerifyOptions(projects=settings.projects, fail_on=FailOn.MISMATCH)
        report = await verify(settings, chosen, controls=RunControls.of(settings, context.ceiling))
        written = write_reports(report, context.report_dir / settings.migration)
        return {"reconciled": report.reconciled, "summary": summary(report, written)}

    return await _held_patiently(work, "verify")


@DBOS.step(name="bridge.fleet.sync.cycle")
async def sync_step(spec_json: str) -> CycleResult:
    """One sync cycle of the workspace (``bridge.sync.cycle``); its log in the worker's report folder.

    The cycle names its projects (the manifest's, else every project the migration moved) as the migration's
    project steps did: a run over the whole workspace decides which project's values a library item holds
    (A18), and would find the copies the project steps wrote changed. A project added at the source after the
    migration is not synced: submit the workspace again under a new name to move it."""
    settings = _settings(spec_json)
    context = _context()
    if not settings.projects:
        with open_state(settings.state, read_only=True, migration=settings.migration) as store:
            moved = tuple(sorted(legacy for kind, legacy, _, _ in store.crosswalk.mappings("") if kind == "project"))
        settings = settings.model_copy(update={"projects": moved})

    async def work() -> CycleResult:
        folder = context.report_dir / settings.migration
        folder.mkdir(parents=True, exist_ok=True)
        with SyncLog.open(folder / "sync.jsonl") as log:
            cycle = await run_cycle(settings, log, controls=RunControls.of(settings, context.ceiling))
        verdict = cycle.record["verdict"]
        said = "not verified" if not isinstance(verdict, dict) or not verdict.get("verified") else "reconciled"
        if isinstance(verdict, dict) and verdict.get("verified") and not verdict.get("reconciled"):
            said = "differences"
        return {
            "seq": cycle.seq,
            "finished": str(cycle.record["finished"]),
            "requests": cycle.writes,
            "open_conflicts": cycle.open_conflicts,
            "verdict": said,
        }

    return await _held_patiently(work, "sync")


@DBOS.workflow(name=SYNC_WORKFLOW)
async def sync_workspace(spec_json: str, cycles: int, interval_s: float) -> CycleResult | None:
    """Bridge mode for one workspace: ``cycles`` cycles (0: until cancelled), ``interval_s`` apart. The waits
    are DBOS's durable sleeps: a worker that dies mid-wait is replaced by one that wakes at the same instant."""
    last: CycleResult | None = None
    done = 0
    while cycles == 0 or done < cycles:
        if done:
            await DBOS.sleep_async(interval_s)
        last = await sync_step(spec_json)
        done += 1
    return last


@DBOS.workflow(name=WORKFLOW)
async def migrate_workspace(spec_json: str) -> Verdict:
    """Move one workspace: the workspace stage, each of its projects, then verify."""
    first = await workspace_step(spec_json)
    for project_id in first["projects"]:
        await project_step(spec_json, project_id)
    return await verify_step(spec_json)
