"""``verify()``: read both sides for every selected project, compare, close the ledger, build the report.

Every selected legacy project is read (all of them, or the ``--project`` ones), migrated or not, so the
ledger counts the whole source. A migrated one (the crosswalk names its v1 project) is compared with v1; one
that never reached v1 is reported with its legacy figures, held back by quarantine when a refused record
keeps it off v1 (``heldback.py``), missing otherwise. Only the state file is trusted for identity (which v1
object a legacy record became); every amount is read from the two surfaces as they compute it now. Nothing
here writes to either surface.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import httpx
import structlog

from bridge.assumptions import used_by
from bridge.clients.http import RunControls
from bridge.clients.legacy import LegacyClient, open_legacy
from bridge.clients.models import LibraryItem, Phase
from bridge.clients.v1 import ProjectCopyKind, V1Client, open_v1
from bridge.clients.wire import AiohttpTransport
from bridge.config import Settings
from bridge.engine.preflight import check_workspaces
from bridge.engine.run import Transports
from bridge.engine.tasks import run_all
from bridge.errors import ConfigError, NotFound
from bridge.verify.compare import FailOn, Verdict, worst
from bridge.verify.convert import PhaseRate, convert, format_minor
from bridge.verify.heldback import (
    KIND_ORDER,
    HeldBy,
    RecordKey,
    Unmigrated,
    held_back,
    held_phase,
    label,
    money_of,
    summarize,
    unmigrated_report,
)
from bridge.verify.ledger import CrosswalkEntry, KindInput, SourceKey, TargetObject, is_clean, ledger
from bridge.verify.library import library_differences
from bridge.verify.project import (
    PhasePlan,
    ProjectComparer,
    actual_currency,
    actual_sums,
    phase_plans,
    phase_rate,
    selected,
)
from bridge.verify.schema import (
    Figure,
    KindLedger,
    ProjectReport,
    QuarantinedRecord,
    Reconciliation,
    TagSummary,
    Totals,
)
from bridge.verify.targets import project_targets
from bridge.verify.totals import LegacyProject, V1Branches, V1Project, read_legacy, read_v1
from bridge.verify.transactions import transaction_differences
from mappings.actuals import part_ids
from mappings.errors import ErrorCode, MappingError
from mappings.kinds import Kind
from mappings.records import Project
from mappings.refs import RecordRef
from state import StateStore, open_state

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
            verifier = Verifier(legacy, v1, store, options)
            report = await verifier.run(migration_name(settings, store))
    finally:
        store.close()
    return report.model_copy(update={"requests": {name: c.count for name, c in counters.items()}})


def migration_name(settings: Settings, store: StateStore) -> str:
    """The --migration name, else the name the last run recorded (the engine derives one from both workspaces)."""
    if settings.migration != "default":
        return settings.migration
    last = store.runs.last_runs(1)
    return last[0].migration if last else settings.migration


@dataclass(frozen=True, slots=True)
class Copies:
    phases: list[Phase]
    items: dict[str, list[LibraryItem]]


@dataclass(slots=True)
class _Sources:
    """Source keys and target objects per ledger kind, gathered while the projects are compared."""

    source: dict[str, set[SourceKey]] = field(default_factory=lambda: defaultdict(set))
    target: dict[str, list[TargetObject]] = field(default_factory=lambda: defaultdict(list))
    parents: dict[RecordKey, RecordKey] = field(default_factory=dict)
    """Each source record's parent as the source links them (a line's account, an actual's project, a
    project's space ...): what a refused record holds back is found along these."""


class Verifier:
    """One verification: the state file's identities, both clients, and what was found so far."""

    def __init__(self, legacy: LegacyClient, v1: V1Client, store: StateStore, options: VerifyOptions) -> None:
        self.legacy = legacy
        self.v1 = v1
        self.options = options
        self.crosswalk: dict[tuple[str, str, str], CrosswalkEntry] = {
            (kind, scope, legacy_id): CrosswalkEntry(v1_id, str(run_id))
            for kind, scope, legacy_id, v1_id, run_id in store.crosswalk.links()
        }
        self.quarantine_rows = store.quarantine.entries()
        self.quarantine = {(r.kind, r.scope, r.legacy_id): r.code for r in self.quarantine_rows}
        runs = store.runs.last_runs(1)
        self.latest_run = str(runs[0].id) if runs else None
        self.source_workspace, self.target_workspace = store.runs.binding() or ("", "")
        self.sources = _Sources()
        self.notes: list[str] = []
        self.verdicts: list[Verdict] = []

    def lookup(self, kind: str, scope: str, legacy_id: str) -> str | None:
        entry = self.crosswalk.get((kind, scope, legacy_id))
        return entry.v1_id if entry else None

    async def run(self, migration: str) -> Reconciliation:
        projects = await self.legacy.projects()
        wanted = [p for p in projects if not self.options.projects or p.id in self.options.projects]
        unknown = set(self.options.projects) - {p.id for p in projects}
        if unknown:
            self.notes.append(f"--project names no legacy project: {', '.join(sorted(unknown))}")
        self.sources.source[Kind.PROJECT] = {(WORKSPACE_SCOPE, p.id) for p in wanted}
        for p in wanted:
            space = p.space.id if p.space is not None else p.space_id
            if space:
                self.sources.parents[Kind.PROJECT, WORKSPACE_SCOPE, p.id] = (Kind.SPACE, WORKSPACE_SCOPE, space)
        migrated = [p for p in wanted if self.lookup(Kind.PROJECT, WORKSPACE_SCOPE, p.id)]
        # Projects are independent: verified side by side, within the clients' shared in-flight limit.
        reports = await run_all(self._project_or_gone(p) for p in migrated)
        currency = reports[0].phases[0].total.currency if reports and reports[0].phases else DEFAULT_CURRENCY
        # Every selected project counts in the source, migrated or not: one that never reached v1 is read too.
        others = [p for p in wanted if not self.lookup(Kind.PROJECT, WORKSPACE_SCOPE, p.id)]
        unmigrated = await run_all(self._unmigrated(p, currency) for p in others)
        if not self.options.projects:
            await self._workspace_kinds()
        self.sources.target[Kind.PROJECT] = [
            TargetObject(p.id, WORKSPACE_SCOPE, p.name) async for p in self.v1.projects() if self._selected(p.id)
        ]
        held = held_back(self._source_records(), self.sources.parents, self.crosswalk, self.quarantine)
        ledgers = self._ledgers(held)
        verdicts = self.verdicts
        failing = any(self.options.fail_on.fails(v) for v in verdicts)
        quarantine = [
            QuarantinedRecord(kind=r.kind, scope=r.scope, legacy_id=r.legacy_id, code=r.code, message=r.message)
            for r in self.quarantine_rows
        ]
        every = [*reports, *unmigrated]
        return Reconciliation(
            reconciled=not failing and is_clean(ledgers) and bool(reports),
            held_back=summarize(ledgers, quarantine, held, money_of(every)),
            fail_on=self.options.fail_on,
            generated_at=datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z"),
            migration=migration,
            run=self.latest_run,
            source_workspace=self.source_workspace,
            target_workspace=self.target_workspace,
            currency=currency,
            verdicts=Totals(**{v.value: sum(1 for x in verdicts if x is v) for v in Verdict}),
            projects=every,
            ledger=ledgers,
            quarantine=quarantine,
            requests={},
            assumptions=[f"{a.id} {a.topic}" for a in used_by("verify")],
            notes=sorted(self.notes) + ([] if reports else ["no migrated project to verify: run `bridge run` first"]),
        )

    def _source_records(self) -> list[RecordKey]:
        return [(kind, scope, i) for kind, keys in self.sources.source.items() for scope, i in keys]

    def _holder(self, key: RecordKey) -> str | None:
        """The label of the refused record keeping ``key`` off v1: its own refusal, or one above it."""
        code = self.quarantine.get(key)
        if code is not None and code != ErrorCode.TREE_ANCESTOR_QUARANTINED:
            return label(key[0], key[2], code)
        above: HeldBy | None = held_back([key], self.sources.parents, self.crosswalk, self.quarantine).get(key)
        return above.label if above else None

    async def _unmigrated(self, project: Project, currency: str) -> ProjectReport:
        """A selected project with no v1 project: its source counted, its figures held back or missing."""
        legacy = await read_legacy(self.legacy, project.id)
        self._collect_source(project.id, legacy)
        notes: list[str] = []
        held_by = self._holder((Kind.PROJECT, WORKSPACE_SCOPE, project.id))
        actuals = actual_currency(legacy, currency)
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
                actual_count=len(legacy.actuals),
                actual_total=legacy.total_amount,
                actual_rate=PhaseRate(actuals, Decimal(1), actuals),
                held_by=held_by,
            ),
            currency,
        )
        self.verdicts += [p.total.verdict for p in report.phases] + [a.verdict for a in report.actuals]
        log.info("bridge.verify.project", project=project.id, verdict=report.verdict.value, held_back_by=held_by)
        return report.model_copy(update={"notes": report.notes + notes})

    def _selected(self, v1_project_id: str) -> bool:
        if not self.options.projects:
            return True
        return any(self.lookup(Kind.PROJECT, WORKSPACE_SCOPE, p) == v1_project_id for p in self.options.projects)

    async def _project_or_gone(self, project: Project) -> ProjectReport:
        """The project's comparison, or a mismatch saying its v1 copy is gone (the rest is still verified)."""
        try:
            return await self._project(project)
        except NotFound as error:
            self.verdicts.append(Verdict.MISMATCH)
            return ProjectReport(
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

    async def _project(self, project: Project) -> ProjectReport:
        v1_project_id = self.lookup(Kind.PROJECT, WORKSPACE_SCOPE, project.id) or ""
        legacy = await read_legacy(self.legacy, project.id)
        self._collect_source(project.id, legacy)  # counted in the source even if its v1 copy is gone
        v1 = await read_v1(self.v1, v1_project_id)
        scope = project.id
        currency = next((v.currency for v in v1.totals.values() if v.currency), DEFAULT_CURRENCY)
        quarantined = {(k, i): code for (k, s, i), code in self.quarantine.items() if s == scope}
        plans, refused, notes = phase_plans(
            legacy,
            v1,
            lambda k, i: self.lookup(k, scope, i),
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
            lookup=lambda k, i: self.lookup(k, scope, i),
            quarantined=quarantined,
            currency=currency,
        )
        known = frozenset(e.v1_id for (k, s, _i), e in self.crosswalk.items() if k == Kind.LINE and s == scope)
        result = await comparer.compare(V1Branches(self.v1, v1, known))
        # A refused phase never reached v1: its whole total is held back, shown beside the compared phases.
        result.phases += [
            held_phase(phase, legacy.budget.totals.get(phase.id, 0), phase_rate(phase, currency, notes), currency, by)
            for phase, code in refused
            for by in (label(Kind.PHASE, phase.id, code),)
        ]
        result.verdicts += [Verdict.QUARANTINE] * len(refused)
        copies = await self._copies(v1.v1_id)
        library = library_differences(legacy.budget, lambda k, i: self.lookup(k, scope, i), copies.items, copies.phases)
        self.verdicts += [Verdict.MISMATCH] * len(library)
        result.tags = await self._tags(legacy, v1, plans, currency)
        result.actuals = actual_sums(legacy, v1, actual_currency(legacy, currency), quarantined)
        self._collect_target(project.id, v1, copies)
        verdicts = [*result.verdicts, *(a.verdict for a in result.actuals), *(Verdict.MISMATCH for _ in library)]
        verdicts += [f.verdict for t in result.tags for f in (*t.totals.values(), *t.fringes.values())]
        self.verdicts += verdicts
        log.info(
            "bridge.verify.project",
            project=project.id,
            verdict=worst(verdicts).value,
            differences=len(result.differences),
            settings_differing=len(library),
        )
        return ProjectReport(
            project_id=project.id,
            v1_project_id=v1_project_id,
            name=project.name or project.id,
            verdict=worst(verdicts),
            phases=result.phases,
            accounts=result.accounts,
            tags=result.tags,
            actuals=result.actuals,
            differences=result.differences,
            library=library,
            tree=result.tree,
            transactions=transaction_differences(
                legacy, v1, lambda k, i: self.lookup(k, scope, i), actual_currency(legacy, currency), quarantined
            ),
            notes=notes + result.notes,
        )

    async def _copies(self, v1_project_id: str) -> Copies:
        """The v1 project's phases and its library copies (what its totals are computed from)."""
        routes: tuple[tuple[str, ProjectCopyKind], ...] = (
            (Kind.FRINGE, "fringes"),
            (Kind.GLOBAL, "globals"),
            (Kind.CURRENCY, "currencies"),
        )
        items = {kind: [item async for item in self.v1.project_copies(v1_project_id, route)] for kind, route in routes}
        return Copies(await self.v1.phases(v1_project_id), items)

    async def _tags(
        self, legacy: LegacyProject, v1: V1Project, plans: list[PhasePlan], currency: str
    ) -> list[TagSummary]:
        """Each legacy tag's totals and fringe totals, as money not carried.

        v1 publishes no write for a budget line's tags (BudgetLineCreate and BudgetLineUpdate have no tag
        field), so no v1 line carries a migrated tag and no v1 tag total can equal the legacy one: each
        figure is the legacy amount with the verdict not_carried, and v1 is not read for it.
        """
        summaries = []
        compared = [p for p in plans if p.legacy.type != "rollup"]
        carried_not = 0
        for tag_id, totals in sorted(legacy.tags.items()):
            code = self.quarantine.get((Kind.TAG, legacy.budget.project_id, tag_id))
            if code is not None:
                self.notes.append(f"tag {tag_id!r} of project {legacy.budget.project_id} is quarantined ({code})")
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
            self.notes.append(
                f"project {legacy.budget.project_id}: {len(summaries)} line tags not carried (no published write "
                f"for a budget line's tags on v1); their tag totals come to {format_minor(carried_not, currency)} "
                f"{currency} across phases"
            )
        return summaries

    def _collect_source(self, project_id: str, legacy: LegacyProject) -> None:
        """Source keys of the project-scoped kinds, and each record's parent as the source links them."""
        s = self.sources
        budget = legacy.budget
        project: RecordKey = (Kind.PROJECT, WORKSPACE_SCOPE, project_id)
        lines = {line.id for line in budget.lines}
        for kind, ids in (
            (Kind.PHASE, [p.id for p in budget.phases]),
            (Kind.ACTUAL, [a.id for a in legacy.actuals]),
            (Kind.FRINGE, [f.id for f in budget.fringes]),
            (Kind.GLOBAL, [g.id for g in budget.globals_]),
        ):
            s.source[kind] |= {(project_id, i) for i in ids}
            s.parents.update({(kind, project_id, i): project for i in ids})
        s.source[Kind.LINE] |= {(project_id, line.id) for line in budget.lines}
        s.parents.update(
            {
                (Kind.LINE, project_id, line.id): (Kind.LINE, project_id, line.parent_id)
                if line.parent_id in lines
                else project
                for line in budget.lines
            }
        )
        for a in legacy.actuals:
            for part in part_ids(a):
                s.source[Kind.SPLIT].add((project_id, part))
                s.parents[Kind.SPLIT, project_id, part] = (Kind.ACTUAL, project_id, a.id)

    def _collect_target(self, project_id: str, v1: V1Project, copies: Copies) -> None:
        """Target objects of the project-scoped kinds, for the ledger's set check."""
        for kind, objects in project_targets(project_id, v1, copies.phases, copies.items).items():
            self.sources.target[kind] += objects

    async def _workspace_kinds(self) -> None:
        """Spaces and contacts (workspace-wide) for the ledger, when the whole workspace is verified."""
        s = self.sources
        s.source[Kind.SPACE] = {(WORKSPACE_SCOPE, space.id) for space in await self.legacy.spaces()}
        s.source[Kind.CONTACT] = {(WORKSPACE_SCOPE, c.id) for c in await self.legacy.contacts()}
        s.target[Kind.SPACE] = [TargetObject(x.id, WORKSPACE_SCOPE, x.name) async for x in self.v1.spaces()]
        s.target[Kind.CONTACT] = [
            TargetObject(c.id, WORKSPACE_SCOPE, c.name or c.display_name or "") async for c in self.v1.contacts()
        ]

    def _ledgers(self, held: Mapping[RecordKey, HeldBy]) -> list[KindLedger]:
        entries = []
        for kind in KIND_ORDER:
            if kind not in self.sources.source:
                continue
            source = frozenset(self.sources.source[kind])
            scopes = {scope for scope, _ in source} or {WORKSPACE_SCOPE}
            crosswalk = {(s, i): e for (k, s, i), e in self.crosswalk.items() if k == kind and s in scopes}
            held_back = {(s, i): by.label for (k, s, i), by in held.items() if k == kind}
            quarantine = {
                (s, i): c
                for (k, s, i), c in self.quarantine.items()
                if k == kind and s in scopes and (s, i) not in held_back
            }
            target = tuple(self.sources.target[kind]) if kind in self.sources.target else None
            data = KindInput(kind, source, crosswalk, quarantine, target, held_back)
            entries.append(ledger(data, self.latest_run))
        return entries


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
