"""``verify()``: read both sides for every selected project, compare, close the ledger, build the report.

Every selected legacy project is read (all of them, or the ``--project`` ones), migrated or not, so the
ledger counts the whole source. A migrated one (the crosswalk names its v1 project) is compared with v1; one
that never reached v1 is reported with its legacy figures, held back by quarantine when a refused record
keeps it off v1 (``heldback.py``), missing otherwise. The workspace library items the runs wrote are compared
with what v1 holds now. Only the state file is trusted for identity (which v1 object a legacy record became);
every amount is read from the two surfaces as they compute it now. Nothing here writes to either surface.

Each project's comparison returns its findings (``findings.py``), and so does the library comparison;
``fold`` alone counts them. A project's actuals are compared a window at a time (``actuals.py``).
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from functools import partial
from pathlib import Path

import httpx
import structlog

from bridge.clients.http import RunControls
from bridge.clients.legacy import LegacyClient, open_legacy
from bridge.clients.models import LibraryItem, Phase
from bridge.clients.v1 import LibraryKind, ProjectCopyKind, V1Client, open_v1
from bridge.clients.wire import AiohttpTransport
from bridge.config import Settings
from bridge.engine.preflight import check_workspaces
from bridge.engine.run import Transports
from bridge.engine.tasks import run_all
from bridge.errors import ConfigError, NotFound
from bridge.verify.actuals import STREAMED, Context, compare_actuals
from bridge.verify.compare import FailOn, Verdict, worst
from bridge.verify.convert import PhaseRate, convert, format_minor
from bridge.verify.findings import Identity, Ledgers, LibraryFindings, ProjectFindings, fold
from bridge.verify.heldback import (
    HeldBy,
    HeldCount,
    RecordKey,
    Unmigrated,
    held_back,
    held_phase,
    label,
    unmigrated_report,
)
from bridge.verify.ledger import CrosswalkEntry, KindInput, KindTally, TargetObject, tally
from bridge.verify.library import library_differences, workspace_differences
from bridge.verify.project import (
    PhasePlan,
    ProjectComparer,
    actual_currency,
    actual_sums,
    phase_plans,
    phase_rate,
    selected,
)
from bridge.verify.schema import Figure, ProjectReport, QuarantinedRecord, Reconciliation, TagSummary
from bridge.verify.targets import project_targets
from bridge.verify.totals import LegacyProject, V1Branches, read_legacy, read_v1
from mappings.errors import ErrorCode, MappingError
from mappings.kinds import Kind
from mappings.records import Project
from mappings.refs import RecordRef
from state import StateStore, open_state
from state.journal import members_of
from state.models import IntentRow

log = structlog.get_logger(__name__)

WORKSPACE_SCOPE = ""
DEFAULT_CURRENCY = "USD"  # A09: the workspace currency when no v1 total names one


@dataclass(frozen=True, slots=True)
class VerifyOptions:
    projects: tuple[str, ...] = ()
    phases: tuple[str, ...] = ()
    fail_on: FailOn = FailOn.MISMATCH


class CountingTransport(httpx.AsyncBaseTransport):
    """Counts the requests one surface sends (retries included) for the report and the benchmark."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner
        self.count = 0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.count += 1
        return await self.inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self.inner.aclose()


async def verify(
    settings: Settings,
    options: VerifyOptions,
    transports: Transports | None = None,
    controls: RunControls | None = None,
) -> Reconciliation:
    """Verify the migration the settings describe; raises a BridgeError when it cannot finish.

    ``transports`` and ``controls`` are the test seams (in-process emulator, a clock that never sleeps).
    """
    legacy_url, legacy_key = settings.require_legacy()
    v1_url, token = settings.require_v1()
    state = str(settings.state)
    if "://" not in state and not Path(state).exists():
        raise ConfigError(
            f"no state file at {settings.state}: verification follows the crosswalk of a run; "
            "pass --state (or BRIDGE_STATE) pointing at the state file `bridge run` wrote"
        )
    wires = transports or Transports()
    counters = {
        "legacy": CountingTransport(wires.legacy or AiohttpTransport()),
        "v1": CountingTransport(wires.v1 or AiohttpTransport()),
    }
    controls = controls or RunControls.of(settings)
    store = open_state(state, read_only=True, migration=settings.migration)
    try:
        async with (
            open_legacy(
                legacy_url, legacy_key, controls, transport=counters["legacy"], timeout=settings.request_timeout
            ) as legacy,
            open_v1(v1_url, token, controls, transport=counters["v1"], timeout=settings.request_timeout) as v1,
        ):
            # Credentials of another workspace would compare the wrong two sides: refused before any total is read.
            await check_workspaces(legacy, v1, store, legacy_url)
            report = await Verifier(legacy, v1, store, options).run(migration_name(settings, store))
    finally:
        store.close()
    return report.model_copy(update={"requests": {name: c.count for name, c in counters.items()}})


def migration_name(settings: Settings, store: StateStore) -> str:
    """The --migration name, else the name the last run recorded (the engine derives one from both workspaces)."""
    if settings.migration != "default":
        return settings.migration
    last = store.runs.last_runs(1)
    return last[0].migration if last else settings.migration


WORKSPACE_ITEMS: tuple[tuple[Kind, LibraryKind], ...] = (
    (Kind.CURRENCY, "currencies"),
    (Kind.FRINGE, "fringes"),
    (Kind.GLOBAL, "globals"),
    (Kind.TAG, "tags"),
)
"""The workspace library kinds a run writes, and their v1 routes."""


@dataclass(frozen=True, slots=True)
class Copies:
    phases: list[Phase]
    items: dict[str, list[LibraryItem]]


def written_items(intents: Iterable[IntentRow]) -> dict[str, dict[str, object]]:
    """Per workspace item (by name, its crosswalk key): the fields the runs wrote to it, the later write over
    the earlier (``intents``: the done intents of one kind, oldest first)."""
    written: dict[str, dict[str, object]] = {}
    for intent in intents:
        members = members_of(intent)
        body = json.loads(intent.body)
        if intent.scope == WORKSPACE_SCOPE and len(members) == 1 and isinstance(body, dict):
            written.setdefault(members[0], {}).update(body)
    return written


def space_of(project: Project) -> str | None:
    return project.space.id if project.space is not None else project.space_id


class Verifier:
    """One verification: the state file's identities and both clients. What it finds, each comparison
    returns; ``fold`` counts it (nothing here is changed once the comparisons start)."""

    def __init__(self, legacy: LegacyClient, v1: V1Client, store: StateStore, options: VerifyOptions) -> None:
        self.legacy = legacy
        self.v1 = v1
        self.store = store
        self.options = options
        # The streamed kinds' entries (one per actual and split part) are looked up a window at a time instead.
        self.crosswalk: dict[RecordKey, CrosswalkEntry] = {
            (kind, scope, legacy_id): CrosswalkEntry(v1_id, str(run_id))
            for kind, scope, legacy_id, v1_id, run_id in store.crosswalk.links(skip=STREAMED)
        }
        self.scoped: dict[tuple[str, str], dict[str, CrosswalkEntry]] = defaultdict(dict)
        for (kind, scope, legacy_id), entry in self.crosswalk.items():
            self.scoped[kind, scope][legacy_id] = entry
        self.quarantine_rows = store.quarantine.entries()
        self.quarantine = {(r.kind, r.scope, r.legacy_id): r.code for r in self.quarantine_rows}
        runs = store.runs.last_runs(1)
        self.latest_run = str(runs[0].id) if runs else None
        self.source_workspace, self.target_workspace = store.runs.binding() or ("", "")

    def lookup(self, kind: str, scope: str, legacy_id: str) -> str | None:
        entry = self.crosswalk.get((kind, scope, legacy_id))
        return entry.v1_id if entry else None

    async def run(self, migration: str) -> Reconciliation:
        projects = await self.legacy.projects()
        wanted = [p for p in projects if not self.options.projects or p.id in self.options.projects]
        unknown = set(self.options.projects) - {p.id for p in projects}
        notes = [f"--project names no legacy project: {', '.join(sorted(unknown))}"] if unknown else []
        migrated = [p for p in wanted if self.lookup(Kind.PROJECT, WORKSPACE_SCOPE, p.id)]
        # Projects are independent: verified side by side, within the clients' shared in-flight limit.
        compared = await run_all(self._project_or_gone(p) for p in migrated)
        first = compared[0].report if compared else None
        currency = first.phases[0].total.currency if first and first.phases else DEFAULT_CURRENCY
        # Every selected project counts in the source, migrated or not: one that never reached v1 is read too.
        others = [p for p in wanted if not self.lookup(Kind.PROJECT, WORKSPACE_SCOPE, p.id)]
        unmigrated = await run_all(self._unmigrated(p, currency) for p in others)
        workspace = await self._workspace(wanted)
        library = await self._library()
        quarantine = [
            QuarantinedRecord(kind=r.kind, scope=r.scope, legacy_id=r.legacy_id, code=r.code, message=r.message)
            for r in self.quarantine_rows
        ]
        identity = Identity(
            self.options.fail_on, migration, self.latest_run, self.source_workspace, self.target_workspace, currency
        )
        return fold(
            identity,
            migrated=compared,
            unmigrated=unmigrated,
            workspace=workspace,
            library=library,
            quarantine=quarantine,
            notes=notes,
        )

    def _chain(self, project: Project) -> dict[RecordKey, RecordKey]:
        """The project's own parent link as the source has it (its space): what may hold it back."""
        space = space_of(project)
        key: RecordKey = (Kind.PROJECT, WORKSPACE_SCOPE, project.id)
        return {key: (Kind.SPACE, WORKSPACE_SCOPE, space)} if space else {}

    def _holder(self, project: Project) -> str | None:
        """The label of the refused record keeping the project off v1: its own refusal, or its space's."""
        key: RecordKey = (Kind.PROJECT, WORKSPACE_SCOPE, project.id)
        code = self.quarantine.get(key)
        if code is not None and code != ErrorCode.TREE_ANCESTOR_QUARANTINED:
            return label(key[0], key[2], code)
        above: HeldBy | None = held_back([key], self._chain(project), self.crosswalk, self.quarantine).get(key)
        return above.label if above else None

    def _listed(
        self,
        records: Mapping[Kind, Sequence[str]],
        scope: str,
        parents: Mapping[RecordKey, RecordKey],
        targets: Mapping[Kind, list[TargetObject]] | None,
    ) -> Ledgers:
        """The ledger's part for records read whole in one scope: their buckets, the set check against
        ``targets`` (None: nothing of the scope listed on v1), and what refused records hold back of them."""
        keys = [(kind, scope, legacy_id) for kind, ids in records.items() for legacy_id in ids]
        held = held_back(keys, parents, self.crosswalk, self.quarantine)
        tallies: dict[str, KindTally] = {}
        for kind, ids in records.items():
            source = frozenset((scope, legacy_id) for legacy_id in ids)
            held_here = {(s, i): by.label for (k, s, i), by in held.items() if k == kind}
            # Entries of a scope holding none of the kind are left out, as for a project not selected.
            counted = bool(source) or scope == WORKSPACE_SCOPE
            entries = self.scoped.get((kind, scope), {}) if counted else {}
            quarantine = {
                (s, i): code
                for (k, s, i), code in self.quarantine.items()
                if counted and k == kind and s == scope and (s, i) not in held_here
            }
            target = tuple(targets.get(kind, ())) if targets is not None else None
            crosswalk = {(scope, legacy_id): entry for legacy_id, entry in entries.items()}
            data = KindInput(kind, source, crosswalk, quarantine, target, held_here)
            tallies[kind] = tally(data, self.latest_run)
        return Ledgers(tallies, HeldCount.of(held, self.quarantine))

    def _budget_ledgers(
        self, project: Project, legacy: LegacyProject, targets: Mapping[Kind, list[TargetObject]] | None
    ) -> Ledgers:
        """The ledger's part for the project's budget kinds, read whole (phases, lines, fringe and global copies)."""
        budget = legacy.budget
        scope = project.id
        own: RecordKey = (Kind.PROJECT, WORKSPACE_SCOPE, project.id)
        parents = self._chain(project)
        lines = {line.id for line in budget.lines}
        records: dict[Kind, list[str]] = {
            Kind.PHASE: [p.id for p in budget.phases],
            Kind.FRINGE: [f.id for f in budget.fringes],
            Kind.GLOBAL: [g.id for g in budget.globals_],
            Kind.LINE: [line.id for line in budget.lines],
        }
        for kind in (Kind.PHASE, Kind.FRINGE, Kind.GLOBAL):
            parents.update({(kind, scope, legacy_id): own for legacy_id in records[kind]})
        parents.update(
            {
                (Kind.LINE, scope, line.id): (Kind.LINE, scope, line.parent_id) if line.parent_id in lines else own
                for line in budget.lines
            }
        )
        return self._listed(records, scope, parents, targets)

    def _context(self, project: Project, currency: str) -> Context:
        """What the project's actuals are compared in (``actuals.py``)."""
        chain = self._chain(project)
        above = [(Kind.PROJECT, WORKSPACE_SCOPE, project.id), *chain.values()]
        return Context(
            project_id=project.id,
            crosswalk=self.store.crosswalk,
            quarantine=self.quarantine,
            chain=chain,
            migrated_above=frozenset(key for key in above if key in self.crosswalk),
            line_copy=partial(self.lookup, Kind.LINE, project.id),
            currency=currency,
            latest_run=self.latest_run,
        )

    async def _unmigrated(self, project: Project, currency: str) -> ProjectFindings:
        """A selected project with no v1 project: its source counted, its figures held back or missing."""
        legacy = await read_legacy(self.legacy, project.id)
        actuals_currency = actual_currency(legacy, currency)
        actuals = await compare_actuals(self.legacy, None, None, self._context(project, actuals_currency))
        notes: list[str] = []
        held_by = self._holder(project)
        report = unmigrated_report(
            Unmigrated(
                project_id=project.id,
                name=project.name or project.id,
                phases=[
                    (p, phase_rate(p, currency, notes))
                    for p in legacy.budget.phases
                    if selected(p, self.options.phases)
                ],
                totals=legacy.budget.totals,
                actual_count=actuals.count,
                actual_total=actuals.total_amount,
                actual_rate=PhaseRate(actuals_currency, Decimal(1), actuals_currency),
                held_by=held_by,
            ),
            currency,
        )
        log.info("bridge.verify.project", project=project.id, verdict=report.verdict.value, held_back_by=held_by)
        verdicts = [p.total.verdict for p in report.phases] + [a.verdict for a in report.actuals]
        ledgers = self._budget_ledgers(project, legacy, None) + actuals.ledgers
        return ProjectFindings(report.model_copy(update={"notes": report.notes + notes}), tuple(verdicts), ledgers)

    def _selected(self, v1_project_id: str) -> bool:
        if not self.options.projects:
            return True
        return any(self.lookup(Kind.PROJECT, WORKSPACE_SCOPE, p) == v1_project_id for p in self.options.projects)

    async def _project_or_gone(self, project: Project) -> ProjectFindings:
        """The project's comparison, or a mismatch saying its v1 copy is gone (the rest is still verified)."""
        try:
            legacy = await read_legacy(self.legacy, project.id)
        except NotFound as error:
            return self._gone(project, error, Ledgers())
        try:
            return await self._project(project, legacy)
        except NotFound as error:
            # Counted in the source even though its v1 copy is gone: its actuals are read without a v1 side.
            actuals_currency = actual_currency(legacy, DEFAULT_CURRENCY)
            actuals = await compare_actuals(self.legacy, None, None, self._context(project, actuals_currency))
            return self._gone(project, error, self._budget_ledgers(project, legacy, None) + actuals.ledgers)

    def _gone(self, project: Project, error: NotFound, ledgers: Ledgers) -> ProjectFindings:
        report = ProjectReport(
            project_id=project.id,
            v1_project_id=self.lookup(Kind.PROJECT, WORKSPACE_SCOPE, project.id),
            name=project.name or project.id,
            verdict=Verdict.MISMATCH,
            phases=[],
            accounts=[],
            tags=[],
            actuals=[],
            differences=[],
            library=[],
            tree=[],
            notes=[f"the v1 project the crosswalk names could not be read: {error}"],
        )
        return ProjectFindings(report, (Verdict.MISMATCH,), ledgers)

    async def _project(self, project: Project, legacy: LegacyProject) -> ProjectFindings:
        v1_project_id = self.lookup(Kind.PROJECT, WORKSPACE_SCOPE, project.id) or ""
        v1 = await read_v1(self.v1, v1_project_id)
        scope = project.id
        currency = next((v.currency for v in v1.totals.values() if v.currency), DEFAULT_CURRENCY)
        actuals_currency = actual_currency(legacy, currency)
        quarantined = {(k, i): code for (k, s, i), code in self.quarantine.items() if s == scope}
        actuals = await compare_actuals(self.legacy, self.v1, v1_project_id, self._context(project, actuals_currency))

        def lookup(kind: str, legacy_id: str) -> str | None:
            return self.lookup(kind, scope, legacy_id)

        plans, refused, notes = phase_plans(
            legacy,
            v1,
            lookup,
            currency,
            wanted=self.options.phases,
            quarantined=quarantined,
        )
        comparer = ProjectComparer(
            project.id,
            project_name=project.name or project.id,
            legacy=legacy,
            v1=v1,
            plans=plans,
            lookup=lookup,
            quarantined=quarantined,
            quarantined_actuals=actuals.quarantined,
            currency=currency,
        )
        known = frozenset(entry.v1_id for entry in self.scoped.get((Kind.LINE, scope), {}).values())
        result = await comparer.compare(V1Branches(self.v1, v1, known))
        # A refused phase never reached v1: its whole total is held back, shown beside the compared phases.
        refused_phases = [
            held_phase(phase, legacy.budget.totals.get(phase.id, 0), phase_rate(phase, currency, notes), currency, by)
            for phase, code in refused
            for by in (label(Kind.PHASE, phase.id, code),)
        ]
        copies = await self._copies(v1.v1_id)
        library = library_differences(legacy.budget, lookup, copies.items, copies.phases)
        tags, tag_notes = self._tags(legacy, plans, currency)
        sums = actual_sums(actuals, actuals_currency)
        verdicts = [*result.verdicts, *(Verdict.QUARANTINE for _ in refused), *(a.verdict for a in sums)]
        verdicts += [Verdict.MISMATCH for _ in library]
        verdicts += [f.verdict for t in tags for f in (*t.totals.values(), *t.fringes.values())]
        log.info(
            "bridge.verify.project",
            project=project.id,
            verdict=worst(verdicts).value,
            differences=len(result.differences),
            settings_differing=len(library),
        )
        report = ProjectReport(
            project_id=project.id,
            v1_project_id=v1_project_id,
            name=project.name or project.id,
            verdict=worst(verdicts),
            phases=[*result.phases, *refused_phases],
            accounts=result.accounts,
            tags=tags,
            actuals=sums,
            differences=result.differences,
            library=library,
            tree=result.tree,
            transactions=list(actuals.transactions),
            notes=notes + result.notes,
        )
        targets = project_targets(project.id, v1, copies.phases, copies.items)
        ledgers = self._budget_ledgers(project, legacy, targets) + actuals.ledgers
        return ProjectFindings(report, tuple(verdicts), ledgers, tuple(tag_notes))

    async def _copies(self, v1_project_id: str) -> Copies:
        """The v1 project's phases and its library copies (what its totals are computed from)."""
        routes: tuple[tuple[str, ProjectCopyKind], ...] = (
            (Kind.FRINGE, "fringes"),
            (Kind.GLOBAL, "globals"),
            (Kind.CURRENCY, "currencies"),
        )
        items = {kind: [item async for item in self.v1.project_copies(v1_project_id, route)] for kind, route in routes}
        return Copies(await self.v1.phases(v1_project_id), items)

    def _tags(self, legacy: LegacyProject, plans: list[PhasePlan], currency: str) -> tuple[list[TagSummary], list[str]]:
        """Each legacy tag's totals and fringe totals, as money not carried, and notes saying so.

        v1 publishes no write for a budget line's tags (BudgetLineCreate and BudgetLineUpdate have no tag
        field), so no v1 line carries a migrated tag and no v1 tag total can equal the legacy one: each
        figure is the legacy amount with the verdict not_carried, and v1 is not read for it.
        """
        summaries = []
        notes = []
        compared = [p for p in plans if p.legacy.type != "rollup"]
        carried_not = 0
        for tag_id, totals in sorted(legacy.tags.items()):
            code = self.quarantine.get((Kind.TAG, legacy.budget.project_id, tag_id))
            if code is not None:
                notes.append(f"tag {tag_id!r} of project {legacy.budget.project_id} is quarantined ({code})")
                continue
            amounts: dict[str, Figure] = {}
            fringes: dict[str, Figure] = {}
            for plan in compared:
                for out, raw in (
                    (amounts, totals.phase_totals.get(plan.legacy.id, 0)),
                    (fringes, totals.fringe_totals.get(plan.legacy.id, 0)),
                ):
                    out[plan.v1_id] = _tag_figure(tag_id, plan, raw, currency)
            carried_not += sum(abs(f.legacy_minor or 0) for f in amounts.values())
            v1_tag = self.lookup(Kind.TAG, WORKSPACE_SCOPE, tag_id)
            summaries.append(TagSummary(name=tag_id, v1_tag_id=v1_tag, totals=amounts, fringes=fringes))
        if summaries:
            notes.append(
                f"project {legacy.budget.project_id}: {len(summaries)} line tags not carried (no published write "
                f"for a budget line's tags on v1); their tag totals come to {format_minor(carried_not, currency)} "
                f"{currency} across phases"
            )
        return summaries, notes

    async def _workspace(self, wanted: Sequence[Project]) -> Ledgers:
        """The ledger's part for the workspace kinds: the selected projects, and spaces and contacts when the
        whole workspace is verified."""
        records: dict[Kind, list[str]] = {Kind.PROJECT: [p.id for p in wanted]}
        targets: dict[Kind, list[TargetObject]] = {}
        if not self.options.projects:
            records[Kind.SPACE] = [space.id for space in await self.legacy.spaces()]
            records[Kind.CONTACT] = [c.id for c in await self.legacy.contacts()]
            targets[Kind.SPACE] = [TargetObject(x.id, WORKSPACE_SCOPE, x.name) async for x in self.v1.spaces()]
            targets[Kind.CONTACT] = [
                TargetObject(c.id, WORKSPACE_SCOPE, c.name or c.display_name or "") async for c in self.v1.contacts()
            ]
        targets[Kind.PROJECT] = [
            TargetObject(p.id, WORKSPACE_SCOPE, p.name) async for p in self.v1.projects() if self._selected(p.id)
        ]
        parents = {key: above for project in wanted for key, above in self._chain(project).items()}
        return self._listed(records, WORKSPACE_SCOPE, parents, targets)

    async def _library(self) -> LibraryFindings:
        """The workspace library items the runs wrote, against what v1 holds of them now."""
        differences = []
        for kind, route in WORKSPACE_ITEMS:
            written = written_items(self.store.journal.by_status("done", kind=kind))
            if written:
                items = [item async for item in self.v1.library_items(route)]
                lookup = partial(self.lookup, kind, WORKSPACE_SCOPE)
                differences += workspace_differences(kind, written, lookup, items)
        return LibraryFindings(tuple(differences))


def _tag_figure(tag: str, plan: PhasePlan, raw: object, currency: str) -> Figure:
    """A legacy tag total as money not carried: v1 holds no tag on any line, so there is no v1 figure."""
    try:
        legacy = convert(raw if isinstance(raw, int | float) else 0, plan.rate, RecordRef(Kind.TAG, tag), "totals")
        legacy_minor: int | None = legacy.minor
        amount: str | None = str(legacy.amount)
    except MappingError:
        legacy_minor, amount = None, None
    return Figure(
        legacy_amount=amount,
        legacy_currency=plan.rate.currency,
        rate=str(plan.rate.rate),
        legacy_minor=legacy_minor,
        v1_minor=None,
        currency=currency,
        difference_minor=None,
        verdict=Verdict.EXACT if legacy_minor == 0 else Verdict.NOT_CARRIED,
        rounding_bound_minor="0",
        quarantined_minor=0,
    )
