"""A migration run from start to end: preflight, replay of what was in flight, then every kind in order.

``migrate(settings, dry_run=...)`` is the one entry point of `bridge plan` (dry run: reads only, nothing sent
to v1, the executor counts the writes it would make) and `bridge run`. A live run:

1. opens the state file and the two clients (one limiter and one retry budget shared by both);
2. runs preflight (identity, legacy key, state binding, unknown target objects) before any write;
3. records the run, then replays every in-flight intent with its own key and body (``replay``; a dry run
   counts what the replay will send);
4. writes the workspace-wide kinds, then every project's kinds, projects side by side, each wave by wave in
   the order ``engine.kinds`` declares (``kinds.waves``): a kind's writer runs once the kinds it needs are
   written;
5. finishes the run as completed, completed with quarantine, or stopped (the error propagates to the CLI,
   which prints the command to resume).

Every step returns a ``Tally``; ``Report.fold`` is the one place they are added into the run's ``Plan``,
filed (a mapping's refusals go to the state file's quarantine) and shown (progress).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import httpx
import structlog

from bridge.clients.http import RunControls
from bridge.clients.legacy import LegacyClient, open_legacy
from bridge.clients.v1 import V1Client, open_v1
from bridge.config import Settings
from bridge.engine.adopt import Adoption, scopes_to_adopt
from bridge.engine.apply import Applier
from bridge.engine.books import Books
from bridge.engine.choices import Choices, Extra
from bridge.engine.collector import run_pace
from bridge.engine.documents import Documents
from bridge.engine.executor import Executor
from bridge.engine.features import lacking_kinds, left_out
from bridge.engine.guard import Guard
from bridge.engine.inventory import workspace_stock
from bridge.engine.kinds import Scope, waves
from bridge.engine.plan import Plan, Tally, total
from bridge.engine.points import WriteObserver
from bridge.engine.preflight import Preflight, preflight
from bridge.engine.progress import Progress
from bridge.engine.project import ProjectPipeline
from bridge.engine.quiet import QuietProjects
from bridge.engine.replay import replay_in_flight
from bridge.engine.source import Listed, ProjectLibrary, read_workspace
from bridge.engine.spool import Spool
from bridge.engine.tasks import run_all
from bridge.engine.workspace import WorkspaceStage, Writer
from bridge.errors import ResumableStop
from mappings.documents import TAX_DOCUMENTS
from mappings.kinds import Kind
from mappings.refs import WORKSPACE
from state.store import StateStore, open_state

log = structlog.get_logger("bridge.engine")

PROJECTS_IN_FLIGHT = 4


@dataclass(frozen=True, slots=True)
class Outcome:
    """What a run (or a plan) did: per-kind counts, quarantine, and the run id in the state file."""

    ledger: Plan
    run_id: int | None
    preflight: Preflight
    projects: tuple[str, ...] = ()
    """The legacy projects the run read, in run order (a fleet makes one step of each)."""
    touched: tuple[str, ...] = ()
    """Bridge mode: the scopes (the workspace, legacy projects) the cycle wrote in."""
    drifted: Mapping[str, Mapping[Kind, int]] = field(default_factory=dict)
    """Bridge mode: per scope read back, per kind, records changed on v1 by someone else that legacy did not
    change (left as they are)."""
    quiet: tuple[str, ...] = ()
    """Bridge mode: the projects found as the last cycle that wrote nothing in them left them (``engine.quiet``:
    read, not mapped again)."""


@dataclass(frozen=True, slots=True)
class Transports:
    """Test seam: in-process transports for both surfaces (None = real network)."""

    legacy: httpx.AsyncBaseTransport | None = None
    v1: httpx.AsyncBaseTransport | None = None


def _options(settings: Settings) -> dict[str, str | int | bool | None]:
    """The run's options as stored with the run: never a secret."""
    return {
        "legacy_url": settings.legacy_url,
        "v1_url": settings.v1_url,
        "migration": settings.migration,
        "projects": ",".join(settings.projects),
        "concurrency": settings.concurrency,
    }


async def migrate(
    settings: Settings,
    *,
    dry_run: bool,
    progress: Progress,
    transports: Transports | None = None,
    controls: RunControls | None = None,
    pipelines: bool = True,
    observer: WriteObserver | None = None,
    rebuild: bool = False,
    sync: QuietProjects | None = None,
    scan: Sequence[str] = (),
    leave: frozenset[str] = frozenset(),
) -> Outcome:
    """Plan (``dry_run``) or run the migration the settings describe.

    ``pipelines=False`` runs the workspace stage alone (a fleet's first step; each project is then a step of
    its own, run with ``settings.projects`` naming it). ``sync`` is bridge mode (`bridge sync`): updates and
    deletes only of records nobody changed on v1, the v1 rows written read back (``engine.guard``), and the
    projects that read as the last cycle found them not mapped again (the watch's ``QuietProjects``, which this
    run updates); ``scan``: the scopes it reads back whole for drift if it writes nothing; ``leave``: projects
    a run of every project reads but does not write (the cut-over ones a sync only watches).
    ``rebuild`` (`bridge crosswalk rebuild`, a dry run) books into the state what every scope of the target
    already holds (``engine.adopt``). ``transports``,
    ``controls`` and ``observer`` are test seams (in-process emulator, a clock that never sleeps, a watcher of
    every write's points).
    """
    legacy_url, legacy_key = settings.require_legacy()
    v1_url, token = settings.require_v1()
    choices = Choices.of(settings.without, settings.extras)
    wires = transports or Transports()
    controls = controls or RunControls.of(settings)
    store = open_state(str(settings.state), migration=settings.migration)
    try:
        async with (
            open_legacy(
                legacy_url, legacy_key, controls, transport=wires.legacy, timeout=settings.request_timeout
            ) as legacy,
            open_v1(v1_url, token, controls, transport=wires.v1, timeout=settings.request_timeout) as v1,
        ):
            with run_pace():
                return await _migrate(
                    settings,
                    store,
                    legacy,
                    v1,
                    choices,
                    dry_run=dry_run,
                    progress=progress,
                    pipelines=pipelines,
                    observer=observer,
                    rebuild=rebuild,
                    sync=sync,
                    scan=scan,
                    leave=leave,
                )
    finally:
        store.close()


class Report:
    """The run's one ledger: every step's tally is folded here, filed and shown."""

    def __init__(self, ledger: Plan, books: Books, progress: Progress, *, live: bool) -> None:
        self.ledger = ledger
        self.books = books
        self.progress = progress
        self.live = live

    def fold(self, tally: Tally) -> None:
        self.ledger.fold(tally)
        if self.live:
            self.books.quarantine_unsent([r.record for r in tally.quarantine if not r.filed])
        self.progress.show(self.ledger)


async def _migrate(
    settings: Settings,
    store: StateStore,
    legacy: LegacyClient,
    v1: V1Client,
    choices: Choices,
    *,
    dry_run: bool,
    progress: Progress,
    pipelines: bool,
    observer: WriteObserver | None,
    rebuild: bool,
    sync: QuietProjects | None,
    scan: Sequence[str],
    leave: frozenset[str],
) -> Outcome:
    checked = await preflight(legacy, v1, store, settings.legacy_url)
    migration = settings.migration if settings.migration != "default" else None
    namespace = checked.namespace(migration)
    ledger = Plan(namespace, checked.source, checked.target, checked.latency_s, settings.concurrency, choices=choices)
    ledger.unknown_on_target.update(checked.unknown_on_target)
    ledger.notes.extend(checked.warnings)
    run_id = None if dry_run else store.runs.start(namespace, checked.source, checked.target, _options(settings)).id
    books = Books(store.database, run_id, track=sync is not None)
    guard = Guard(v1, books, store, live=not dry_run) if sync is not None else None
    spool = Spool(settings.spool(), legacy.session, cap=settings.max_file_bytes)
    adoption = Adoption(v1, books, scopes_to_adopt(books, checked.unknown_on_target), rebuild=rebuild)
    executor = Executor(books=books, v1=None if dry_run else v1, observer=observer, spool=spool, adoption=adoption)
    report = Report(ledger, books, progress, live=not dry_run)
    log.info("bridge.run.started", run_id=run_id, migration=namespace, dry_run=dry_run)
    try:
        with progress:
            replay = await replay_in_flight(books, executor, v1)
            report.fold(replay.tally)
            salt = f"run-{run_id}"
            applier = Applier(executor, books, namespace, salt, replay.finished, guard=guard, listing=progress.listed)
            lacking = await lacking_kinds(v1)
            # Contacts' tax documents hold tax ids: carried only on the operator's `--with tax-documents`.
            opted = frozenset({TAX_DOCUMENTS}) if choices.wants(Extra.TAX_DOCUMENTS) else frozenset[str]()
            cap = settings.max_file_bytes
            documents = Documents(applier, spool, cap=cap, extras=opted, left_out=choices.without)
            projects, quiet = await _write_everything(
                settings,
                legacy,
                checked.listed,
                documents,
                report,
                choices=choices,
                pipelines=pipelines,
                lacking=lacking,
                quiet=sync,
                leave=leave,
            )
    except BaseException as exc:
        await books.aclose()
        if run_id is not None:
            stopped = isinstance(exc, ResumableStop | asyncio.CancelledError)
            store.runs.finish(run_id, "stopped" if stopped else "failed", ledger.counts())
        # The operator's Ctrl-C is no error: the log says so, not the asyncio name of its cancellation.
        cause = "interrupted" if isinstance(exc, asyncio.CancelledError) else type(exc).__name__
        log.warning("bridge.run.stopped", run_id=run_id, error=cause)
        raise
    await books.aclose()
    written = sorted(books.written or ())
    # A cycle that wrote nothing reads the scopes awaiting a verify back whole, for drift (``Guard.remark``).
    scanned = () if written else scan
    drifted = await guard.remark(written, (WORKSPACE, *projects), scanned) if guard is not None and not dry_run else {}
    ledger.unmatched_on_target.update(adoption.unmatched())
    if run_id is not None:
        store.runs.finish(run_id, "completed_with_quarantine" if ledger.quarantine else "completed", ledger.counts())
    log.info(
        "bridge.run.finished",
        run_id=run_id,
        requests=ledger.requests,
        quarantined=len(ledger.quarantine),
        kinds={row.kind.value: row.as_json() for row in ledger.ordered()},
        not_carried={held.kind: stock.count for held, stock in ledger.held()},
    )
    # Each value left behind, one log line each (the terminal groups them; the log keeps every one). A quiet
    # project's were logged by the cycle that processed it: a watch's log does not repeat them every cycle.
    for entry in (e for e in ledger.not_carried if e.scope not in quiet):
        log.info(
            "bridge.run.not_carried",
            kind=entry.kind,
            scope=entry.scope,
            legacy_id=entry.legacy_id,
            field=entry.field,
            reason=entry.reason,
        )
    touched = tuple(sorted({scope for scope, _, _ in written}))
    return Outcome(ledger, run_id, checked, projects, touched, drifted, quiet)


async def _wave(kinds: tuple[Kind, ...], writers: Mapping[Kind, Writer]) -> Tally:
    """The kinds of one wave, side by side (none needs another)."""
    return total(await run_all(writers[kind]() for kind in kinds))


async def _write_everything(
    settings: Settings,
    legacy: LegacyClient,
    listed: Listed,
    documents: Documents,
    report: Report,
    *,
    choices: Choices,
    pipelines: bool,
    lacking: frozenset[Kind],
    quiet: QuietProjects | None,
    leave: frozenset[str],
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Write the workspace stage, then (unless ``pipelines`` is off) every project but those to ``leave``; the
    projects written, and those of them ``quiet`` found quiet. The ``lacking`` kinds (the target's plan lacks
    their feature) are counted as not carried instead."""
    applier = documents.applier
    # ``--with contact-private``: the contacts' phone and address are carried (A101).
    private = choices.wants(Extra.CONTACT_PRIVATE)
    source = await read_workspace(legacy, listed, settings.projects, contact_private=private)
    # The projects to ``leave`` are read with the others (the workspace library is planned from every project, as
    # the state it was written from was), but not written.
    kept = tuple(library for library in source.projects if library.project.id not in leave)
    read = tuple(library.project.id for library in kept)
    whole = not settings.projects
    stage = WorkspaceStage(applier, source, whole=whole, choices=choices, lacking=lacking, documents=documents)
    report.fold(Tally(stock=left_out(source, lacking)))
    started = time.monotonic()
    if whole:
        # Counted when the whole workspace is, as verify counts it (a run of some projects leaves it out).
        report.fold(Tally(stock=await workspace_stock(legacy, source.contacts, carried=documents.kinds)))
    writers = stage.writers()
    for kinds in waves(Scope.WORKSPACE):
        report.fold(await _wave(kinds, writers))
    report.fold(Tally(timings=(("workspace", round(time.monotonic() - started, 3)),)))
    if not pipelines:
        return read, ()
    pipeline = ProjectPipeline(
        legacy=legacy,
        applier=applier,
        executor=applier.executor,
        namespace=applier.namespace,
        view=stage.view,
        choices=choices,
        documents=documents,
    )
    # Projects are independent of each other; the limiter bounds the requests in flight across all of them.
    # Budget trees (the big memory) are admitted by the lines they hold (TreeRoom), several at once.
    gate = asyncio.Semaphore(PROJECTS_IN_FLIGHT)

    cycle = quiet.cycle(legacy, applier.books, stage.view) if quiet is not None else None
    found_quiet: list[str] = []

    async def one(library: ProjectLibrary) -> None:
        project = library.project.id
        async with gate:
            began = time.monotonic()
            if cycle is None:
                async for tally in pipeline.run(library):
                    report.fold(tally)
            elif await cycle.run(library, lambda: pipeline.run(library), report.fold):
                found_quiet.append(project)
            applier.executor.forget(project)
            report.fold(Tally(timings=((f"project:{project}", round(time.monotonic() - began, 3)),)))

    await run_all(one(library) for library in kept)
    return read, tuple(sorted(found_quiet))
