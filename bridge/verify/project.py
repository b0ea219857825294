"""Comparing one migrated project: phase totals, the topsheet, the drill-down, tags and actual sums.

The legacy tree is built from the one legacy budget read; each legacy figure is converted to workspace
minor units with its phase's rate (A09) and carried beside it into the report. Quarantined lines and
actuals are subtracted as an explanation, never silently: the report lists what they contribute.

Rollup phases are compared at the project level only: they are formulas over the other phases, which are
compared all the way down. Hidden phases are not compared: v1 reads return visible phases only.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal

from bridge.verify import amounts as written
from bridge.verify.actuals import ActualsFound
from bridge.verify.compare import NOTHING, Explanation, Verdict, classify
from bridge.verify.convert import (
    Converted,
    PhaseRate,
    as_counted,
    conversion_bound,
    convert,
    convert_amount,
)
from bridge.verify.drill import Finding, Node, Presence, drill, figures_of
from bridge.verify.quarantine import Contributions, contributions, top_quarantined
from bridge.verify.schema import (
    AccountSummary,
    ActualsSum,
    Difference,
    Figure,
    Location,
    PhaseSummary,
    TreeNode,
)
from bridge.verify.totals import LegacyProject, V1Branches, V1Project, amounts
from mappings.errors import MappingError
from mappings.kinds import Kind
from mappings.money import parse_decimal
from mappings.records import Actual, Phase, RawNumber
from mappings.refs import RecordRef

LookupV1 = Callable[[str, str], str | None]
"""(kind, legacy id) -> v1 id within this project's scope (or the workspace's for tags)."""


@dataclass(frozen=True, slots=True)
class PhasePlan:
    """One legacy phase as compared: its v1 id and how its figures convert."""

    legacy: Phase
    v1_id: str
    rate: PhaseRate

    @property
    def name(self) -> str:
        return self.legacy.name or self.legacy.alias or self.legacy.id


@dataclass(slots=True)
class ProjectComparison:
    """Everything compared in one project, before it becomes a ``ProjectReport``."""

    phases: list[PhaseSummary] = field(default_factory=list)
    accounts: list[AccountSummary] = field(default_factory=list)
    differences: list[Difference] = field(default_factory=list)
    tree: list[TreeNode] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    verdicts: list[Verdict] = field(default_factory=list)


def phase_plans(
    legacy: LegacyProject,
    v1: V1Project,
    lookup: LookupV1,
    currency: str,
    *,
    wanted: tuple[str, ...],
    quarantined: Mapping[tuple[str, str], str],
) -> tuple[list[PhasePlan], list[tuple[Phase, str]], list[str]]:
    """The phases to compare (``wanted`` = legacy ids or names; empty = all), the refused ones with their
    codes (their totals are held back, see ``heldback.py``) and notes on the ones skipped."""
    plans: list[PhasePlan] = []
    refused: list[tuple[Phase, str]] = []
    notes: list[str] = []
    for phase in legacy.budget.phases:
        if not selected(phase, wanted):
            continue
        label = phase.name or phase.id
        v1_id = lookup(Kind.PHASE, phase.id)
        if (Kind.PHASE, phase.id) in quarantined and v1_id is None:
            refused.append((phase, quarantined[Kind.PHASE, phase.id]))
            continue
        if v1_id is None:
            notes.append(f"phase {label!r} ({phase.id}) has no v1 phase in the crosswalk: not migrated yet")
            continue
        if v1_id not in v1.totals:
            notes.append(f"phase {label!r} ({phase.id}) is hidden on v1 (v1 totals list visible phases only)")
            continue
        plans.append(PhasePlan(phase, v1_id, phase_rate(phase, currency, notes)))
    return plans, refused, notes


def selected(phase: Phase, wanted: tuple[str, ...]) -> bool:
    """Whether ``--phase`` (legacy ids or names; empty = all) selects the phase."""
    return not wanted or bool({phase.id, phase.name, phase.alias} & set(wanted))


def phase_rate(phase: Phase, workspace_currency: str, notes: list[str]) -> PhaseRate:
    """The phase's currency and rate (A09); no currency means the workspace currency at rate 1."""
    cur = phase.currency
    code = (cur.code if cur and cur.code else workspace_currency).upper()
    if cur is None or cur.exchange_rate is None:
        if code != workspace_currency:
            notes.append(f"phase {phase.id} is in {code} with no exchange rate: compared at rate 1")
        return PhaseRate(code, Decimal(1), workspace_currency)
    try:
        rate = parse_decimal(cur.exchange_rate, RecordRef(Kind.PHASE, phase.id), "currency.exchangeRate")
    except MappingError as error:
        notes.append(f"phase {phase.id}: exchange rate unreadable, compared at rate 1: {error}")
        rate = Decimal(1)
    return PhaseRate(code, rate, workspace_currency)


class ProjectComparer:
    """Compares one project; ``compare()`` does the reads the drill needs through ``branches``."""

    def __init__(
        self,
        project_id: str,
        *,
        project_name: str,
        legacy: LegacyProject,
        v1: V1Project,
        plans: list[PhasePlan],
        lookup: LookupV1,
        quarantined: Mapping[tuple[str, str], str],
        quarantined_actuals: Sequence[Actual],
        currency: str,
    ) -> None:
        self.project_id = project_id
        self.project_name = project_name
        self.legacy = legacy
        self.v1 = v1
        self.plans = {p.v1_id: p for p in plans}
        self.lookup = lookup
        self.quarantined = quarantined
        self.quarantined_actuals = quarantined_actuals
        self.currency = currency
        self.result = ProjectComparison()
        self.rounding: dict[str, Decimal] = {p.v1_id: conversion_bound(p.rate) for p in plans}
        self.nodes: dict[str, Node] = {}
        self.parents: dict[str, str] = {}
        self.excluded: set[str] = set()
        self.converted: dict[str, dict[str, Converted]] = {}
        self.root = self._tree()
        self.quarantine = self._contributions()

    # Building the legacy tree -----------------------------------------------------------------------------

    def _convert(self, value: RawNumber, plan: PhasePlan, ref: RecordRef, what: str) -> Converted:
        try:
            return convert(value, plan.rate, ref, what)
        except MappingError as error:
            self.result.notes.append(f"legacy figure unreadable, counted as 0: {error}")
            return convert(0, plan.rate, ref, what)

    def _figures(self, key: str, totals: Mapping[str, RawNumber], ref: RecordRef, *, rollups: bool) -> dict[str, int]:
        """A node's legacy totals converted per v1 phase id; the conversions are kept for the report."""
        converted: dict[str, Converted] = {}
        for v1_id, plan in self.plans.items():
            if plan.legacy.type == "rollup" and not rollups:
                continue
            converted[v1_id] = self._convert(totals.get(plan.legacy.id, 0), plan, ref, f"totals.{plan.legacy.id}")
        self.converted[key] = converted
        return {v1_id: c.minor for v1_id, c in converted.items()}

    def _tree(self) -> Node:
        """The legacy tree without quarantined subtrees: what they add is an explanation, not a node."""
        budget = self.legacy.budget
        root = Node(
            self.project_id,
            "project",
            None,
            None,
            None,
            self.v1.v1_id,
            self._figures(self.project_id, budget.totals, RecordRef(Kind.PROJECT, self.project_id), rollups=True),
            v1=amounts(self.v1.totals),
        )
        self.nodes[self.project_id] = root
        known = {line.id for line in budget.lines}
        self.parents = {
            line.id: line.parent_id if line.parent_id in known else self.project_id for line in budget.lines
        }
        quarantined = {line.id for line in budget.lines if (Kind.LINE, line.id) in self.quarantined}
        tops = top_quarantined(budget.lines, self.parents, quarantined)
        ordered = sorted(budget.lines, key=lambda line: line.position)
        for line in ordered:
            figures = self._figures(line.id, line.totals, RecordRef(Kind.LINE, line.id, self.project_id), rollups=False)
            node = Node(line.id, line.type, line.account_id, line.path, line.description, None, figures)
            node.v1_id = self.lookup(Kind.LINE, line.id)
            self.nodes[line.id] = node
        self.excluded = {line.id for line in budget.lines if line.id in tops or self._below(line.id, tops)}
        for line in ordered:
            if line.id not in self.excluded:
                self.nodes[self.parents[line.id]].children.append(self.nodes[line.id])
        return root

    def _below(self, line_id: str, tops: set[str]) -> bool:
        seen: set[str] = set()
        current = self.parents.get(line_id)
        while current is not None and current != self.project_id and current not in seen:
            if current in tops:
                return True
            seen.add(current)
            current = self.parents.get(current)
        return False

    def _contributions(self) -> Contributions:
        """What quarantined lines and actuals add to every legacy total (see ``quarantine.py``)."""
        actual_plans = [p for p in self.plans.values() if p.legacy.type == "actual"]
        actuals: list[tuple[str, dict[str, Converted]]] = []
        for actual in self.quarantined_actuals:
            # A split is counted where its parts are coded; a plain actual on its own line (A16).
            parts = [(p.account_id, p.amount) for p in actual.subactuals] or [(actual.account_id, actual.amount)]
            for line_id, amount in parts:
                if line_id in self.parents:
                    counted = as_counted(amount)  # A39
                    actuals.append((line_id, {p.v1_id: convert_amount(counted, p.rate) for p in actual_plans}))
        by_legacy = {plan.legacy.id: v1_id for v1_id, plan in self.plans.items()}
        rollups: dict[str, list[tuple[int, str]]] = {}
        for v1_id, plan in self.plans.items():
            if plan.legacy.type == "rollup":
                inputs = [by_legacy[i] for i in plan.legacy.phase_ids if i in by_legacy]
                signs = [1, *([-1] * (len(inputs) - 1))] if plan.legacy.operation == "difference" else [1] * len(inputs)
                rollups[v1_id] = list(zip(signs, inputs, strict=True))
        quarantined = {line.id for line in self.legacy.budget.lines if (Kind.LINE, line.id) in self.quarantined}
        return contributions(
            self.project_id,
            self.legacy.budget.lines,
            parents=self.parents,
            figures=self.converted,
            quarantined_lines=quarantined,
            quarantined_actuals=actuals,
            rollups=rollups,
        )

    def explain(self, node: Node, phase_id: str) -> Explanation:
        """Rounding of the conversion, the legacy float's own precision, and the quarantined part."""
        own = self.converted.get(node.key, {}).get(phase_id)
        bound = self.rounding.get(phase_id, Decimal(0)) + (own.precision if own else Decimal(0))
        bound += self.quarantine.slack[node.key][phase_id]
        return Explanation(bound, self.quarantine.amounts[node.key][phase_id])

    # Comparing ---------------------------------------------------------------------------------------------

    def figure(self, node: Node, phase_id: str, legacy: int | None, v1: int | None, verdict: Verdict) -> Figure:
        plan = self.plans[phase_id]
        read = self.converted.get(node.key, {}).get(phase_id)
        return Figure(
            legacy_amount=None if legacy is None or read is None else str(read.amount),
            legacy_currency=plan.rate.currency,
            rate=str(plan.rate.rate),
            legacy_minor=legacy,
            v1_minor=v1,
            currency=self.currency,
            difference_minor=None if legacy is None or v1 is None else v1 - legacy,
            verdict=verdict,
            rounding_bound_minor=str(self.explain(node, phase_id).rounding_bound),
            quarantined_minor=self.quarantine.amounts[node.key][phase_id],
        )

    async def compare(self, branches: V1Branches) -> ProjectComparison:
        self._phase_totals()
        tree_phases = [pid for pid, plan in self.plans.items() if plan.legacy.type != "rollup"]
        findings = await drill(self.root, tree_phases, branches, self.explain)
        self._topsheet(tree_phases)
        for finding in findings:
            self._finding(finding)
        self.result.tree = [t for t in (self._tree_node(c) for c in self.root.children) if t is not None]
        self.result.notes += branches.notes
        return self.result

    def _phase_totals(self) -> None:
        for phase_id, plan in self.plans.items():
            legacy = self.root.legacy.get(phase_id)
            v1 = self.v1.totals[phase_id].amount
            verdict = classify(legacy, v1, self.explain(self.root, phase_id))
            self.result.verdicts.append(verdict)
            self.result.phases.append(
                PhaseSummary(
                    legacy_phase_id=plan.legacy.id,
                    v1_phase_id=phase_id,
                    name=plan.name,
                    type=plan.legacy.type,
                    total=self.figure(self.root, phase_id, legacy, v1, verdict),
                    fringe=self._fringe(plan) if plan.legacy.type != "rollup" else None,
                )
            )
            if verdict is not Verdict.EXACT:
                self._difference(self.root, phase_id, legacy, v1, verdict)

    def _fringe(self, plan: PhasePlan) -> Figure:
        """The phase's fringe total: the legacy lines' ``fringeTotal`` summed, against v1's ``fringe``."""
        total = held_back = Decimal(0)
        for line in self.legacy.budget.lines:
            data = line.phase_data.get(plan.legacy.id)
            amount = as_counted((data.model_extra or {}).get("fringeTotal")) if data is not None else Decimal(0)
            total += amount
            if line.id in self.excluded:
                held_back += amount
        legacy = convert_amount(total, plan.rate)
        quarantined = convert_amount(held_back, plan.rate)
        v1 = self.v1.totals[plan.v1_id].fringe
        bound = self.rounding[plan.v1_id] + legacy.precision + quarantined.precision + abs(quarantined.rounding)
        verdict = classify(legacy.minor, v1, Explanation(bound, quarantined.minor))
        self.result.verdicts.append(verdict)
        return Figure(
            legacy_amount=str(total),
            legacy_currency=plan.rate.currency,
            rate=str(plan.rate.rate),
            legacy_minor=legacy.minor,
            v1_minor=v1,
            currency=self.currency,
            difference_minor=v1 - legacy.minor,
            verdict=verdict,
            rounding_bound_minor=str(bound),
            quarantined_minor=quarantined.minor,
        )

    def _topsheet(self, phase_ids: list[str]) -> None:
        for account in self.root.children:
            if account.v1 is None and account.presence is Presence.BOTH:
                continue
            figures: dict[str, Figure] = {}
            for phase_id in phase_ids:
                legacy, v1 = figures_of(account, phase_id)
                verdict = classify(legacy, v1, self.explain(account, phase_id))
                self.result.verdicts.append(verdict)
                figures[phase_id] = self.figure(account, phase_id, legacy, v1, verdict)
                if verdict in (Verdict.ROUNDING, Verdict.QUARANTINE):
                    self._difference(account, phase_id, legacy, v1, verdict)
            self.result.accounts.append(
                AccountSummary(
                    account_code=account.code,
                    path=account.path,
                    description=account.description,
                    line_id=account.key,
                    totals=figures,
                )
            )

    def _finding(self, finding: Finding) -> None:
        self.result.verdicts.append(finding.verdict)
        self._difference(finding.node, finding.phase_id, finding.legacy, finding.v1, finding.verdict)

    def _difference(self, node: Node, phase_id: str, legacy: int | None, v1: int | None, verdict: Verdict) -> None:
        plan = self.plans[phase_id]
        is_root = node is self.root
        location = Location(
            project_id=self.project_id,
            project_name=self.project_name,
            phase_id=plan.legacy.id,
            phase_name=plan.name,
            kind="project" if is_root else node.kind,
            account_code=None if is_root else node.code,
            path=None if is_root else node.path,
            line_id=None if is_root or node.presence is Presence.UNEXPECTED else node.key,
            v1_line_id=None if is_root else node.v1_id,
            description=None if is_root else node.description,
            presence=node.presence,
        )
        figure = self.figure(node, phase_id, legacy, v1, verdict)
        self.result.differences.append(Difference(location=location, figure=figure, summary=_summary(location, figure)))

    def _tree_node(self, node: Node) -> TreeNode | None:
        if node.v1 is None and node.presence is Presence.BOTH:
            return None  # never read: its parent agreed, so nothing under it differs
        verdicts: dict[str, Verdict] = {}
        for phase_id in self.plans:
            if self.plans[phase_id].legacy.type == "rollup":
                continue
            legacy, v1 = figures_of(node, phase_id)
            verdict = classify(legacy, v1, self.explain(node, phase_id))
            if verdict is not Verdict.EXACT:
                verdicts[self.plans[phase_id].name] = verdict
        children = [t for t in (self._tree_node(c) for c in node.children) if t is not None]
        if not verdicts and not children:
            return None
        label = " ".join(part for part in (node.code, node.description) if part) or node.key
        return TreeNode(
            label=label,
            kind=node.kind,
            account_code=node.code,
            path=node.path,
            line_id=node.key,
            presence=node.presence,
            verdicts=verdicts,
            children=children,
        )


def _summary(location: Location, figure: Figure) -> str:
    """One sentence for a person: where, both figures, the difference and what explains it."""
    legacy, v1, currency = figure.legacy_minor, figure.v1_minor, figure.currency
    where = (
        f"project total of phase {location.phase_name!r}"
        if location.kind == "project"
        else f"{location.kind} {location.description or ''!r} (account {location.account_code or '—'}, "
        f"path {location.path or '—'}, legacy line {location.line_id or '—'}, v1 {location.v1_line_id or '—'}) "
        f"in phase {location.phase_name!r}"
    )
    if location.presence is Presence.MISSING:
        return f"{where}: missing on v1 (legacy {written.amount(legacy, currency)})"
    if location.presence is Presence.UNEXPECTED:
        return f"{where}: on v1 only, unknown to the crosswalk (v1 {written.amount(v1, currency)})"
    because = {
        Verdict.ROUNDING: f"within the rounding bound of {figure.rounding_bound_minor} minor units",
        Verdict.QUARANTINE: f"quarantined source records add {written.amount(figure.quarantined_minor, currency)}",
    }.get(figure.verdict, str(figure.verdict))
    return (
        f"{where}: legacy {written.amount(legacy, currency)}, v1 {written.amount(v1, currency)} "
        f"(difference {written.signed(figure.difference_minor, currency)}; {because})"
    )


def actual_currency(legacy: LegacyProject, workspace_currency: str) -> str:
    """Legacy actuals are in the first phase's currency (HELP currency article, as the mappings read it)."""
    phases = legacy.budget.phases
    first = phases[0].currency if phases else None
    return (first.code if first and first.code else workspace_currency).upper()


def actual_sums(found: ActualsFound, currency: str) -> list[ActualsSum]:
    """Actuals summed per currency on both sides: the legacy ``totalAmount`` (in the first phase's currency)
    against the v1 transactions of the project; quarantined actuals explain a shortfall (A39)."""
    own = PhaseRate(currency, Decimal(1), currency)
    total = convert_amount(found.total_amount, own)
    held_minor = convert_amount(found.held_back, own).minor
    explanation = Explanation(total.precision + abs(total.rounding), held_minor)
    sums = []
    for code in sorted({currency, *found.v1_sums}):
        count, minor = found.v1_sums.get(code, (0, 0))
        ours = code == currency
        expected = total.minor if ours else 0
        sums.append(
            ActualsSum(
                currency=code,
                legacy_count=found.count if ours else 0,
                v1_count=count,
                legacy_amount=str(found.total_amount if ours else Decimal(0)),
                legacy_minor=expected,
                v1_minor=minor,
                verdict=classify(expected, minor, explanation if ours else NOTHING),
                held_back_minor=held_minor if ours else 0,
            )
        )
    return sums
