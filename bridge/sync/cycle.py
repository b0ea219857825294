"""One sync cycle: bring v1 in step with legacy for the selected projects, prove it, and log it.

A cycle is a run in bridge mode (``engine.run.migrate(sync=True)``): a full read of the selected projects (the
legacy surface has no change feed), a diff against the state's hashes, the guard's drift check before each update
or delete (``engine.guard``), the writes, and the read-back of what was written. Then:

- a light verify of the projects written in since the last verify, begun by the first cycle that writes nothing
  (the verdict is about a quiet state; a cycle that writes leaves them waiting, and the last verdict stands). A
  watch runs it beside its next cycles, so a change made meanwhile waits for no verify, and takes its verdict in
  the cycle it ends in, unless a cycle wrote in its projects first (then they wait for the next quiet one);
- one hash-chained line in the sync log (``sync.log``): what changed per kind, drift, open conflicts, the
  verdict and money per currency, the snapshot roots of both sides per project (``sync.snapshot``), the source
  and apply lag of each record written (``sync.lag``), the projects found quiet (``engine.quiet``) and the
  cycle's CPU time.

A cycle killed at any instant resumes as a run does (the journal), and the next cycle's line chains onto the
last whole one.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from bridge.canonical import Json
from bridge.clients.http import RunControls
from bridge.clients.legacy_stamps import stamping
from bridge.config import Settings
from bridge.engine.progress import Progress
from bridge.engine.quiet import QuietProjects
from bridge.engine.run import Outcome, Transports, migrate
from bridge.errors import UsageError
from bridge.sync.lag import measured
from bridge.sync.log import SyncLog
from bridge.sync.quiet import after, read_stamps
from bridge.sync.snapshot import roots
from bridge.verify.compare import FailOn
from bridge.verify.documents import ProvenDocuments
from bridge.verify.headline import money_rows
from bridge.verify.options import VerifyOptions
from bridge.verify.reconcile import verify
from bridge.verify.schema import Reconciliation
from mappings.refs import WORKSPACE
from state.store import StateStore, open_state

# What a line says of each kind: the fates a cycle can give a record, as the plan names them.
CHANGES = ("to_create", "to_update", "deleted_on_target", "conflicted", "removed_at_source", "quarantined")


@dataclass(slots=True)
class Verifying:
    """A verify a watch runs beside its next cycles, of ``projects`` as they stood when it began; ``stale`` once a
    cycle writes in one of them before its verdict is taken (the verdict would be of a state gone by)."""

    task: asyncio.Task[Reconciliation]
    projects: tuple[str, ...]
    # The documents the watch had proved when it began: the ones it took from earlier verifies are the rest.
    proved: int = 0
    stale: bool = False


@dataclass(slots=True)
class Watch:
    """What a `bridge sync --watch` keeps from one cycle to the next, in memory: the projects found quiet
    (``engine.quiet``), the documents a verify proved (``verify.documents.ProvenDocuments``), and the verify
    running beside the cycles (``background``: a watch's; a single cycle waits for its verify)."""

    quiet: QuietProjects = field(default_factory=QuietProjects)
    proven: ProvenDocuments = field(default_factory=ProvenDocuments)
    background: bool = False
    verifying: Verifying | None = None

    def verdict(self, touched: Sequence[str]) -> Verifying | None:
        """The verify that ended, when one did and no cycle wrote in its projects meanwhile (``touched``: this
        cycle's scopes); it is forgotten either way once ended."""
        running = self.verifying
        if running is None:
            return None
        running.stale = running.stale or bool(set(touched) & set(running.projects))
        if not running.task.done():
            return None
        self.verifying = None
        return None if running.stale else running


@dataclass(frozen=True, slots=True)
class Cycle:
    """What one cycle did, and the line it appended to the sync log."""

    outcome: Outcome
    report: Reconciliation | None
    record: dict[str, Json]
    seq: int

    @property
    def writes(self) -> int:
        return self.outcome.ledger.requests

    @property
    def open_conflicts(self) -> int:
        count = self.record["openConflicts"]
        return count if isinstance(count, int) else 0


def _stamp(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _changes(outcome: Outcome) -> dict[str, Json]:
    changed: dict[str, Json] = {}
    for row in outcome.ledger.ordered():
        counts = row.as_json()
        moved: dict[str, Json] = {name: counts[name] for name in CHANGES if counts.get(name)}  # type: ignore[misc]
        if moved:
            changed[row.kind.value] = moved
    return changed


def _unverified(last: Json) -> list[str]:
    """The projects the last cycle left awaiting a verify."""
    found = last.get("unverified") if isinstance(last, dict) else None
    return [str(project) for project in found] if isinstance(found, list) else []


def _started(last: Json) -> datetime | None:
    """When the last cycle began: a record written since was changed after that cycle read it (or during)."""
    began = last.get("started") if isinstance(last, dict) else None
    return datetime.fromisoformat(began.replace("Z", "+00:00")) if isinstance(began, str) else None


def _verdict(report: Reconciliation | None, projects: list[str], taken: int) -> dict[str, Json]:
    if report is None:
        return {"verified": False, "why": "nothing to verify, or writes still settling: the last verdict stands"}
    money: list[Json] = [
        {
            "currency": row.currency,
            "phase": row.phase,
            "legacyMinor": row.legacy_minor,
            "v1Minor": row.v1_minor,
            "heldBackMinor": row.held_back_minor,
        }
        for row in money_rows(report)
    ]
    verdict: dict[str, Json] = {"verified": True, "projects": list(projects), "reconciled": report.reconciled}
    # Documents whose bytes an earlier verify of this watch proved, listed by v1 as they were then (A118).
    return verdict | {"failOn": report.fail_on.value, "money": money, "documentsProvedEarlier": taken}


async def run_cycle(
    settings: Settings,
    log: SyncLog,
    *,
    progress: Progress | None = None,
    transports: Transports | None = None,
    controls: RunControls | None = None,
    fail_on: FailOn = FailOn.MISMATCH,
    watch: Watch | None = None,
) -> Cycle:
    """One cycle over the projects ``settings`` selects (every project when none is). A project whose cutover is
    finalized is only watched: nothing is written for it, and its legacy writes after the freeze are listed.
    ``watch``: what the watch's earlier cycles left (its quiet projects, the documents it proved)."""
    started = datetime.now(UTC)
    cpu = time.process_time()
    watch = watch or Watch()
    quiet = watch.quiet
    settings, leave, watched = _selection(settings)
    with stamping(_started(log.last)) as stamps:
        outcome = await migrate(
            settings,
            dry_run=False,
            progress=progress or Progress(),
            transports=transports,
            controls=controls,
            sync=quiet,
            scan=_unverified(log.last) if watch.verifying is None else (),
            leave=leave,
        )
    late: dict[str, Json] = {}
    for project, frozen in watched.items():
        written = after(await read_stamps(settings, project, transports=transports, controls=controls), frozen)
        late[project] = [f"{s.kind} {s.legacy_id} written {s.at.isoformat()}" for s in written]
    # Verified once quiet (as validation during CDC waits out the rows still moving): a cycle that wrote adds its
    # projects to those awaiting a verify; the first cycle that writes nothing verifies them. A change made while
    # a verify runs would otherwise wait out the verify too.
    waiting = sorted({*_unverified(log.last), *(scope for scope in outcome.touched if scope != WORKSPACE)})
    ended = watch.verdict(outcome.touched)
    if ended is None and waiting and not outcome.touched and watch.verifying is None:
        options = VerifyOptions(projects=tuple(waiting), fail_on=fail_on, proven=watch.proven)
        task = asyncio.create_task(verify(settings, options, transports=transports, controls=controls))
        watch.verifying = Verifying(task, tuple(waiting), watch.proven.reused)
        if not watch.background:
            await task
            ended = watch.verdict(())
    report = ended.task.result() if ended is not None else None
    checked = list(ended.projects) if ended is not None else []
    taken = watch.proven.reused - ended.proved if ended is not None else 0
    waiting = [project for project in waiting if project not in checked]
    store = open_state(str(settings.state), read_only=True, migration=settings.migration)
    try:
        snapshot = {scope or WORKSPACE: _roots(store, scope, outcome, quiet) for scope in ("", *outcome.projects)}
        conflicts = len(store.conflicts.listed())
        intents = store.journal.of_run(outcome.run_id) if outcome.run_id is not None and outcome.ledger.requests else []
    finally:
        store.close()
    record: dict[str, Json] = {
        "started": _stamp(started),
        "finished": _stamp(datetime.now(UTC)),
        "run": outcome.run_id,
        "projects": list(outcome.projects),
        "touched": list(outcome.touched),
        "requests": outcome.ledger.requests,
        "changes": _changes(outcome),
        "drifted": {scope: {kind.value: n for kind, n in kinds.items()} for scope, kinds in outcome.drifted.items()},
        "openConflicts": conflicts,
        "verdict": _verdict(report, checked, taken),
        "verifying": list(watch.verifying.projects) if watch.verifying is not None else [],
        "unverified": list(waiting),
        "afterCutover": late,
        "roots": snapshot,
        "lag": measured(intents, stamps),
        "quiet": list(outcome.quiet),
        # The process's CPU time over the cycle, a verify running beside it included.
        "cpuMs": round((time.process_time() - cpu) * 1000),
    }
    log.append(record)
    return Cycle(outcome, report, record, log.seq)


def _roots(store: StateStore, scope: str, outcome: Outcome, quiet: QuietProjects) -> Json:
    """A scope's snapshot roots; a quiet project's as the cycle that found it quiet computed them (nothing of it
    has changed in the state since: its crosswalk is part of what made it quiet)."""
    if scope in outcome.quiet and scope in quiet.roots:
        return quiet.roots[scope]
    found: Json = dict(roots(store, scope))
    if scope in quiet.known:
        quiet.roots[scope] = found
    return found


def _selection(settings: Settings) -> tuple[Settings, frozenset[str], dict[str, datetime]]:
    """The settings of the projects to keep in step, the cut-over projects a cycle of every project leaves out,
    and the freeze instant of each cut-over one to watch."""
    # Opened as a run opens it: a state file of an older schema is upgraded (a cycle writes), not refused.
    store = open_state(str(settings.state), migration=settings.migration)
    try:
        cut = {project: store.cutovers.get(project) for project in store.cutovers.cut_over()}
    finally:
        store.close()
    frozen = {project: row.frozen_at for project, row in cut.items() if row is not None}
    if not settings.projects:
        # Every project: those still in bridge mode kept in step, the cut-over ones watched.
        return settings, frozenset(frozen), frozen
    kept = tuple(project for project in settings.projects if project not in frozen)
    if not kept:
        raise UsageError("every project named is cut over: name at least one still in bridge mode with --project")
    watched = {project: at for project, at in frozen.items() if project in settings.projects}
    return settings.model_copy(update={"projects": kept}), frozenset(), watched


def default_log(settings: Settings) -> Path:
    """Where the sync log goes unless told: beside a state file, else in the report folder."""
    state = str(settings.state)
    return Path(f"{state}.sync.jsonl") if "://" not in state else settings.report_dir / "sync.jsonl"
