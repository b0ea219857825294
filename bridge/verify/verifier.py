"""The ``Verifier``: one verification's reads of both sides, project by project, and what it returns to the fold.

``reconcile.verify`` opens the clients and the state and runs one; each project's comparison returns its
findings (``findings.py``), and so do the library, the workspace kinds and the documents.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Awaitable, Mapping, Sequence
from dataclasses import dataclass, replace
from decimal import Decimal
from functools import partial
from pathlib import Path

import structlog
from pydantic import BaseModel

from bridge.clients.legacy import LegacyClient
from bridge.clients.models import LibraryItem, Phase
from bridge.clients.v1 import V1Client
from bridge.engine.features import lacking_kinds, left_out
from bridge.engine.inventory import workspace_stock
from bridge.engine.kinds import KindSpec, Scope, of_scope, spec
from bridge.engine.source import ProjectLibrary, WorkspaceSource
from bridge.engine.tasks import run_all
from bridge.engine.wanted import LibraryPlans, View
from bridge.errors import NotFound
from bridge.verify.actuals import STREAMED, Context, compare_actuals
from bridge.verify.attached import attached
from bridge.verify.compare import Verdict, money_verdict
from bridge.verify.contacts_private import private_differences
from bridge.verify.convert import PhaseRate
from bridge.verify.declared import sources, state_scope, targets
from bridge.verify.documents import DocumentCheck, DocumentFindings, carried_in
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
from bridge.verify.ledger import CrosswalkEntry, KindInput, KindTally, SourceKey, TargetObject, tally
from bridge.verify.library import library_differences, workspace_differences, written_items
from bridge.verify.notes import note_differences
from bridge.verify.options import VerifyOptions
from bridge.verify.project import (
    ProjectComparer,
    actual_currency,
    actual_sums,
    phase_plans,
    phase_rate,
    selected,
)
from bridge.verify.purchase_orders import ORDERS, OrdersFound, compare_orders
from bridge.verify.remark_checks import RemarkChecker
from bridge.verify.remarks import available, listed_rows, with_remarks, within_parents, workspace_rates
from bridge.verify.schema import LibraryDifference, ProjectReport, QuarantinedRecord, Reconciliation
from bridge.verify.tags import tag_summaries
from bridge.verify.totals import LegacyProject, V1Branches, V1Project, library_of, read_legacy, read_v1
from mappings.errors import ErrorCode
from mappings.inventory import Stock
from mappings.kinds import Kind
from mappings.records import Project, ProjectBudget
from state import StateStore

log = structlog.get_logger(__name__)
ORDER_KIND = ORDERS.stored

WORKSPACE_SCOPE = ""
DEFAULT_CURRENCY = "USD"  # A09: the workspace currency when no v1 total names one


@dataclass(frozen=True, slots=True)
class Copies:
    """A v1 project's phases and library copies (what its totals are computed from), and every row read of
    them, by the listing's operation (the ledger's target objects)."""

    phases: list[Phase]
    items: dict[str, list[LibraryItem]]
    rows: dict[str, list[object]]


def space_of(project: Project) -> str | None:
    return project.space.id if project.space is not None else project.space_id


class Verifier:
    """One verification: the state file's identities and both clients. What it finds, each comparison
    returns; ``fold`` counts it (nothing here is changed once the comparisons start)."""

    def __init__(
        self, legacy: LegacyClient, v1: V1Client, store: StateStore, options: VerifyOptions, spool: Path | None = None
    ) -> None:
        self.spool = spool
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

    def find(self, kind: str, scope: str, legacy_id: str) -> str | None:
        """``lookup`` for the engine's ``records`` functions, which name the workspace as the mappings do."""
        return self.lookup(kind, state_scope(scope), legacy_id)

    async def run(self, migration: str) -> Reconciliation:
        projects = await self.legacy.projects()
        wanted = [p for p in projects if not self.options.projects or p.id in self.options.projects]
        unknown = set(self.options.projects) - {p.id for p in projects}
        notes = [f"--project names no legacy project: {', '.join(sorted(unknown))}"] if unknown else []
        migrated = [p for p in wanted if self.lookup(Kind.PROJECT, WORKSPACE_SCOPE, p.id)]
        # Projects are independent: verified side by side, within the clients' shared in-flight limit.
        compared = await run_all(self._counted(self._project_or_gone(p)) for p in migrated)
        first = compared[0].report if compared else None
        currency = first.phases[0].total.currency if first and first.phases else DEFAULT_CURRENCY
        # Every selected project counts in the source, migrated or not: one that never reached v1 is read too.
        others = [p for p in wanted if not self.lookup(Kind.PROJECT, WORKSPACE_SCOPE, p.id)]
        unmigrated = await run_all(self._counted(self._unmigrated(p, currency)) for p in others)
        read = {f.library.project.id: f.library for f in (*compared, *unmigrated) if f.library is not None}
        libraries = tuple(read.get(p.id) or ProjectLibrary(p, (), ProjectBudget(project_id=p.id), ()) for p in wanted)
        rows = await self._workspace_rows()
        workspace, stock = await self._workspace(libraries, rows)
        documents = await self._documents([*compared, *unmigrated])
        library = self._library(rows)
        if self.options.contact_private and not self.options.projects:
            library = LibraryFindings(library.differences + tuple(await self._private(rows)))
        remarks = await RemarkChecker(self.v1, self.legacy, self.find).check(libraries, whole=not self.options.projects)
        quarantine = [
            QuarantinedRecord(kind=r.kind, scope=r.scope, legacy_id=r.legacy_id, code=r.code, message=r.message)
            for r in self.quarantine_rows
        ]
        identity = Identity(
            self.options.fail_on,
            migration,
            self.latest_run,
            self.source_workspace,
            self.target_workspace,
            currency,
            self.options.left_out,
        )
        return fold(
            identity,
            migrated=compared,
            unmigrated=unmigrated,
            workspace=workspace + documents.ledgers,
            stock=stock,
            library=library,
            quarantine=quarantine,
            notes=notes,
            remarks=remarks,
            documents=documents.differences,
        )

    async def _documents(self, compared: Sequence[ProjectFindings]) -> DocumentFindings:
        """The documents' ledger and differences (``verify.documents``): the contacts' files on a verification
        of the whole workspace, the receipts of the projects read."""
        whole = not self.options.projects
        contacts = tuple(await self.legacy.contacts()) if whole else None
        above = {key: up for f in compared if f.library for key, up in self._chain(f.library.project).items()}

        def find(kind: str, scope: str, legacy_id: str) -> str | None:
            if kind in STREAMED:
                return self.store.crosswalk.lookup_many(kind, [legacy_id], scope).get(legacy_id)
            return self.lookup(kind, scope, legacy_id)

        check = DocumentCheck(
            self.v1,
            self.legacy.session,
            self.crosswalk,
            self.quarantine,
            spool=self.spool,
            latest_run=self.latest_run,
            find=find,
            above=above,
            proven=self.options.proven,
        )
        verified = frozenset(f.report.v1_project_id for f in compared if f.report.v1_project_id)
        return await check.run(contacts, await attached(self.legacy, compared), None if whole else verified)

    async def _counted(self, compared: Awaitable[ProjectFindings]) -> ProjectFindings:
        """A project's findings with the files hanging on its purchase orders, for the documents' ledger (read
        as a run reads them; its receipts were read with its actuals)."""
        found = await compared
        library = found.library
        if library is None:
            return found
        orders = await self.legacy.purchase_order_records(library.project.id)
        return replace(found, order_files=tuple((order.id, order.attachments) for order in orders if order.attachments))

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
        records: Mapping[KindSpec, frozenset[SourceKey]],
        scope: str,
        parents: Mapping[RecordKey, RecordKey],
        targets: Mapping[Kind, tuple[TargetObject, ...]] | None,
    ) -> Ledgers:
        """The ledger's part for kinds read whole in one scope: their buckets, the set check against
        ``targets`` (None: nothing of the scope listed on v1), and what refused records hold back of them.

        A kind's records are keyed as the crosswalk keys them (its stored kind, ``KindSpec.stored``); a
        record it refused outright may sit in another scope (a workspace fringe refused in its project)."""
        keys = [(kind.stored, s, legacy_id) for kind, source in records.items() for s, legacy_id in source]
        held = held_back(keys, parents, self.crosswalk, self.quarantine)
        tallies: dict[str, KindTally] = {}
        for kind, source in records.items():
            named = {kind.kind.value, kind.stored}
            held_here = {(s, i): by.label for (k, s, i), by in held.items() if k == kind.stored and (s, i) in source}
            # Entries of a scope holding none of the kind are left out, as for a project not selected.
            counted = bool(source) or scope == WORKSPACE_SCOPE
            entries = self.scoped.get((kind.stored, scope), {}) if counted else {}
            if self.options.projects and scope == WORKSPACE_SCOPE:
                # Chosen projects: the workspace kinds counted are theirs (the projects), not every entry's.
                entries = {legacy_id: entry for legacy_id, entry in entries.items() if (scope, legacy_id) in source}
            quarantine = {
                (s, i): code
                for (k, s, i), code in self.quarantine.items()
                if k in named and (s, i) in source and (s, i) not in held_here
            }
            target = targets.get(kind.kind, ()) if targets is not None else None
            crosswalk = {(scope, legacy_id): entry for legacy_id, entry in entries.items()}
            data = KindInput(kind.kind.value, source, crosswalk, quarantine, target, held_here)
            tallies[kind.kind.value] = tally(data, self.latest_run)
        # What is held back, counted under the declared kind of each record held (not its crosswalk kind).
        listed_held = [
            (kind.kind.value, key, by)
            for kind, source in records.items()
            for key, by in held.items()
            if key[0] == kind.stored and key[1:] in source
        ]
        below = Counter(((by.kind, by.scope, by.legacy_id), name) for name, _, by in listed_held)
        refused = frozenset(key for _, key, _ in listed_held if key in self.quarantine)
        return Ledgers(tallies, HeldCount(below, refused))

    def _budget_ledgers(self, library: ProjectLibrary, legacy: LegacyProject, copies: Copies | None) -> Ledgers:
        """The ledger's part for the project's kinds read whole (every project kind declared with records:
        library copies, phases, lines), against the rows ``copies`` listed (None: not on v1)."""
        scope = library.project.id
        source = WorkspaceSource((), (), (library,))
        view = View(source, LibraryPlans.of(source), library, self.lookup(Kind.PROJECT, WORKSPACE_SCOPE, scope) or "")
        view = replace(view, tree=legacy.budget.lines)
        kinds = [kind for kind in of_scope(Scope.PROJECT) if kind.records is not None]
        records = {kind: sources(kind, view, self.find, scope) for kind in kinds}
        own: RecordKey = (Kind.PROJECT, WORKSPACE_SCOPE, scope)
        parents = self._chain(library.project)
        for kind, found in records.items():
            parents.update({(kind.stored, s, legacy_id): own for s, legacy_id in found})
        # A line hangs under its parent line (the tree), the top of the tree under the project.
        lines = {line.id for line in legacy.budget.lines}
        parents.update(
            {
                (Kind.LINE, scope, line.id): (Kind.LINE, scope, line.parent_id)
                for line in legacy.budget.lines
                if line.parent_id in lines
            }
        )
        listed = None
        if copies is not None:
            listed = {kind.kind: targets(kind, copies.rows.get(kind.natural.listed_by, ()), scope) for kind in kinds}
        return self._listed(records, scope, parents, listed)

    async def _orders(
        self, project: Project, legacy: LegacyProject, currency: str, v1_project_id: str | None
    ) -> tuple[OrdersFound, Ledgers]:
        """The project's purchase orders compared (``verify.purchase_orders``) and their part of the ledger."""
        found = await compare_orders(
            self.legacy,
            self.v1,
            project_id=project.id,
            v1_project_id=v1_project_id,
            currency=currency,
            phases=legacy.budget.phases,
            lookup=lambda kind, legacy_id: self.lookup(kind, project.id, legacy_id),
            transactions=lambda ids: self.store.crosswalk.lookup_many(Kind.ACTUAL, ids, project.id),
        )
        own: RecordKey = (Kind.PROJECT, WORKSPACE_SCOPE, project.id)
        parents = {**self._chain(project), **found.parents}
        parents.update({(ORDER_KIND, project.id, legacy_id): own for _, legacy_id in found.sources[ORDERS]})
        return found, self._listed(found.sources, project.id, parents, found.targets)

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
        library = await with_remarks(self.legacy, library_of(project, legacy))
        orders, order_ledgers = await self._orders(project, legacy, actuals_currency, None)
        ledgers = self._budget_ledgers(library, legacy, None) + actuals.ledgers + order_ledgers
        report = report.model_copy(update={"notes": report.notes + notes, "purchase_orders": orders.report})
        return ProjectFindings(
            report,
            tuple(verdicts),
            ledgers,
            library=library,
            stock=actuals.stock,
            attached=actuals.attached,
            banked=actuals.banked,
        )

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
            library = await with_remarks(self.legacy, library_of(project, legacy))
            _, order_ledgers = await self._orders(project, legacy, actuals_currency, None)
            ledgers = self._budget_ledgers(library, legacy, None) + actuals.ledgers + order_ledgers
            return self._gone(project, error, ledgers, library, actuals.stock)

    def _gone(
        self,
        project: Project,
        error: NotFound,
        ledgers: Ledgers,
        library: ProjectLibrary | None = None,
        stock: tuple[Stock, ...] = (),
    ) -> ProjectFindings:
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
        return ProjectFindings(report, (Verdict.MISMATCH,), ledgers, library=library, stock=stock)

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
        copies = await self._copies(v1)
        library = library_differences(legacy.budget, lookup, copies.items, copies.phases)
        library += note_differences(project.id, legacy.budget.lines, v1.lines, lookup)
        library += actuals.parts
        tags, tag_notes = tag_summaries(
            legacy, plans, currency, self.quarantine, partial(self.lookup, Kind.TAG, WORKSPACE_SCOPE)
        )
        sums = actual_sums(actuals, actuals_currency)
        orders, order_ledgers = await self._orders(project, legacy, actuals_currency, v1_project_id)
        verdicts = [*result.verdicts, *(Verdict.QUARANTINE for _ in refused), *(a.verdict for a in sums)]
        verdicts += orders.verdicts
        verdicts += [Verdict.MISMATCH for _ in library]
        verdicts += [f.verdict for t in tags for f in (*t.totals.values(), *t.fringes.values())]
        log.info(
            "bridge.verify.project",
            project=project.id,
            verdict=money_verdict(verdicts).value,
            differences=len(result.differences),
            settings_differing=len(library),
        )
        report = ProjectReport(
            project_id=project.id,
            v1_project_id=v1_project_id,
            name=project.name or project.id,
            verdict=money_verdict(verdicts),
            phases=[*result.phases, *refused_phases],
            accounts=result.accounts,
            tags=tags,
            actuals=sums,
            differences=result.differences,
            library=library,
            tree=result.tree,
            transactions=list(actuals.transactions),
            notes=notes + result.notes,
            purchase_orders=orders.report,
        )
        library_read = await with_remarks(self.legacy, library_of(project, legacy))
        ledgers = self._budget_ledgers(library_read, legacy, copies) + actuals.ledgers + order_ledgers
        return ProjectFindings(
            report,
            tuple(verdicts),
            ledgers,
            tuple(tag_notes),
            library_read,
            actuals.stock,
            actuals.attached,
            banked=actuals.banked,
        )

    async def _copies(self, v1: V1Project) -> Copies:
        """The v1 project's phases and library copies, and the rows of every project kind's listing (its lines
        are already read, with the totals)."""
        rows: dict[str, list[object]] = {"budget_listLines": [_row(line) for line in v1.lines]}
        for kind in of_scope(Scope.PROJECT):
            listing = kind.natural.listed_by
            if kind.records is not None and listing not in rows:
                rows[listing] = [row async for page in self.v1.rows(listing, (v1.v1_id,)) for row in page]
        phases = [Phase.model_validate(row) for row in rows["budget_listPhases"]]
        items = {
            str(kind.stored_as): [LibraryItem.model_validate(row) for row in rows[kind.natural.listed_by]]
            for kind in of_scope(Scope.PROJECT)
            if kind.stored_as is not None
        }
        return Copies(phases, items, rows)

    def _workspace_kinds(self) -> tuple[KindSpec, ...]:
        """The workspace kinds the verification counts: all of them for the whole workspace; for chosen projects
        only the projects (the source read then holds the others only in part)."""
        whole = not self.options.projects
        return tuple(
            kind
            for kind in of_scope(Scope.WORKSPACE)
            if kind.records is not None and (whole or (kind.from_projects and not kind.merged))
        )

    async def _workspace_rows(self) -> dict[str, list[object]]:
        """The rows of the v1 listing of every workspace kind counted or compared (the library items are
        compared with what the runs wrote whatever projects are chosen)."""
        rows: dict[str, list[object]] = {}
        for kind in {*self._workspace_kinds(), *_merged()}:
            rows[kind.natural.listed_by] = await listed_rows(self.v1, kind, self.lookup)
        return rows

    async def _workspace(
        self, libraries: Sequence[ProjectLibrary], rows: Mapping[str, list[object]]
    ) -> tuple[Ledgers, tuple[Stock, ...]]:
        """The ledger's part for the workspace kinds (``_workspace_kinds``), read from the selected projects'
        libraries and, for the whole workspace, the spaces and contacts; and, for the whole workspace, what it
        holds of the kinds the bridge does not write."""
        kinds = self._workspace_kinds()
        whole = not self.options.projects
        spaces = tuple(await self.legacy.spaces()) if whole else ()
        contacts = tuple(await self.legacy.contacts()) if whole else ()
        rates = await workspace_rates(self.legacy) if whole else ()
        source = WorkspaceSource(spaces, contacts, tuple(libraries), rates)
        view = View(source, LibraryPlans.of(source, whole=whole))
        lacking = await lacking_kinds(self.v1)
        records = {kind: available(kind, lacking, view, self.find) for kind in kinds}
        listed = {kind.kind: targets(kind, rows[kind.natural.listed_by], WORKSPACE_SCOPE) for kind in kinds}
        listed[Kind.PROJECT] = tuple(t for t in listed.get(Kind.PROJECT, ()) if self._selected(t.v1_id))
        parents = {key: above for library in libraries for key, above in self._chain(library.project).items()}
        parents.update(within_parents(records))
        carried = carried_in(self.crosswalk, self.quarantine)  # an opt-in kind the runs carried is not held
        held = await workspace_stock(self.legacy, contacts, carried=carried) if whole else ()
        stock = (*held, *left_out(source, lacking))
        return self._listed(records, WORKSPACE_SCOPE, parents, listed), stock

    async def _private(self, rows: Mapping[str, list[object]]) -> list[LibraryDifference]:
        """The contacts' private fields against v1's (``contacts_private``): their own read of the contacts,
        made only on the opt-in."""
        listing = spec(Kind.CONTACT).natural.listed_by
        lookup = partial(self.lookup, Kind.CONTACT, WORKSPACE_SCOPE)
        return private_differences(await self.legacy.contacts(), rows.get(listing, []), lookup)

    def _library(self, rows: Mapping[str, list[object]]) -> LibraryFindings:
        """The workspace library items the runs wrote (the kinds merged from the projects' libraries), against
        what v1 holds of them now."""
        differences = []
        for kind in _merged():
            written = written_items(self.store.journal.by_status("done", kind=kind.kind.value))
            if written:
                items = [LibraryItem.model_validate(row) for row in rows[kind.natural.listed_by]]
                lookup = partial(self.lookup, kind.stored, WORKSPACE_SCOPE)
                differences += workspace_differences(kind.kind, written, lookup, items)
        return LibraryFindings(tuple(differences))


def _merged() -> tuple[KindSpec, ...]:
    """The workspace library kinds: merged from the projects' libraries, written by the runs as they were."""
    return tuple(kind for kind in of_scope(Scope.WORKSPACE) if kind.merged)


def _row(model: BaseModel) -> dict[str, object]:
    """A parsed v1 record as the row its listing answered (published names, unmodelled fields kept)."""
    return model.model_dump(by_alias=True, mode="json")
