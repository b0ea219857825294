"""The one calculation engine: every total either surface shows comes from ``compute_totals``.

Rules (bridge/assumptions.py): line base = quantity x multiplier x rate, formulas over globals first (A11,
A24); fringes percent/flat/total with a per-line cutoff (A12); base and each fringe rounded half-even to the
phase currency's minor unit (A11); subtotals show siblings above and add nothing (A13, A26); markups add to
their parent (A13); the actual phase totals actuals and split parts coded to lines (A16); committed phases
read their phase data like estimates (A25); rollups evaluate their formula over other phases, node by node.
A cell the service cannot read (malformed, non-finite, failing formula) counts as empty (A27).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation

from bridge.emulator.core import formula
from bridge.emulator.core.errors import FormulaError
from bridge.emulator.core.model import Actual, Cell, Node, Phase, PhaseData, Project
from bridge.emulator.core.money import convert, round_minor, to_minor_units

ZERO = Decimal(0)
ONE = Decimal(1)
HUNDRED = Decimal(100)
SUMMED_TYPES = frozenset({"account", "line", "markup"})


@dataclass(slots=True)
class Values:
    """One node's (or phase's) money in one phase, in that phase's currency, major units."""

    base: Decimal = ZERO
    fringe: Decimal = ZERO
    breakdown: dict[str, Decimal] = field(default_factory=dict)

    @property
    def amount(self) -> Decimal:
        return self.base + self.fringe

    def add(self, other: Values) -> None:
        self.base += other.base
        self.fringe += other.fringe
        if not other.breakdown:
            return
        for fringe_id, value in other.breakdown.items():
            self.breakdown[fringe_id] = self.breakdown.get(fringe_id, ZERO) + value


@dataclass(slots=True)
class TagTotals:
    """Legacy tag totals: amounts and fringes of the tagged nodes per phase, and their actual spend."""

    phase_totals: dict[str, Decimal] = field(default_factory=dict)
    fringe_totals: dict[str, Decimal] = field(default_factory=dict)
    actual_total: Decimal = ZERO


@dataclass(slots=True)
class ProjectTotals:
    """Every total of one project at one ``version``; ``nodes[node_id][phase_id]``, ``phases[phase_id]``."""

    version: int
    workspace_currency: str
    currencies: dict[str, str]
    rates: dict[str, Decimal]
    globals: dict[str, Decimal]
    nodes: dict[str, dict[str, Values]]
    phases: dict[str, Values]
    tags: dict[str, TagTotals]

    def node(self, node_id: str, phase_id: str) -> Values:
        """A node's values in a phase (zero for nodes outside the tree, such as orphans)."""
        return self.nodes.get(node_id, {}).get(phase_id) or Values()

    def in_workspace_minor(self, phase_id: str, amount: Decimal) -> int:
        """A phase-currency amount in workspace-currency minor units (A09: x rate, half-even)."""
        converted = convert(amount, self.rates.get(phase_id, ONE), self.workspace_currency)
        return to_minor_units(converted, self.workspace_currency)


def number_or_none(value: Cell) -> Decimal | None:
    """A stored number as Decimal, or None when it is absent or unreadable (A27)."""
    if value is None or isinstance(value, bool):
        return None
    try:
        parsed = value if isinstance(value, Decimal) else Decimal(str(value))
    except InvalidOperation:
        return None
    return parsed if parsed.is_finite() else None


def cell_value(value: Cell, env: Mapping[str, Decimal]) -> Decimal | None:
    """A phase-data cell's value: formulas over globals evaluated, unreadable cells None (A24, A27)."""
    if formula.is_formula(value):
        try:
            return formula.evaluate(str(value), env)
        except FormulaError:
            return None
    return number_or_none(value)


def sum_amounts(actuals: Iterable[Actual]) -> Decimal:
    """The sum of readable actual amounts (the legacy list's ``totalAmount``)."""
    return sum((a for a in (number_or_none(x.amount) for x in actuals) if a is not None), ZERO)


class _Calculator:
    def __init__(self, project: Project, workspace_currency: str) -> None:
        self.project = project
        self.workspace_currency = workspace_currency
        self.phases = sorted(project.phases.values(), key=lambda p: p.sort)
        self.currency = {p.id: self._phase_currency(p) for p in self.phases}
        try:
            self.env = formula.evaluate_globals({g.symbol: g.formula for g in project.globals.values()})
        except FormulaError:
            self.env = {}
        self.nodes: dict[str, dict[str, Values]] = {}
        self.coded = self._coded_actuals()

    def _phase_currency(self, phase: Phase, depth: int = 0) -> tuple[str, Decimal]:
        currency = self.project.currencies.get(phase.currency_id or "")
        if currency is not None:
            return currency.code, number_or_none(currency.rate_to_usd) or ONE
        if phase.type == "rollup" and phase.rollup_formula and depth < 8:
            refs = [
                self.project.phases[r] for r in formula.phase_refs(phase.rollup_formula) if r in self.project.phases
            ]
            if refs:
                return self._phase_currency(refs[0], depth + 1)
        return self.workspace_currency, ONE

    def _coded_actuals(self) -> dict[str, Decimal]:
        coded: dict[str, Decimal] = {}
        for actual in self.project.actuals.values():
            if not actual.actualized:
                continue
            if actual.mode == "split" and actual.subactuals:
                parts = [(p.line_id, p.amount) for p in actual.subactuals]
            else:
                parts = [(actual.line_id, actual.amount)]
            for line_id, raw in parts:
                amount = number_or_none(raw)
                if line_id and amount is not None:
                    coded[line_id] = coded.get(line_id, ZERO) + amount
        return coded

    def run(self) -> dict[str, Values]:
        phase_totals: dict[str, Values] = {}
        for phase in self._rollups_last():
            phase_totals[phase.id] = self._subtree(self.project.roots, phase)
        return phase_totals

    def _rollups_last(self) -> list[Phase]:
        ordered = [p for p in self.phases if p.type != "rollup"]
        pending = [p for p in self.phases if p.type == "rollup"]
        while pending:
            done = {p.id for p in ordered}
            ready = [p for p in pending if all(r in done for r in formula.phase_refs(p.rollup_formula or ""))]
            if not ready:  # a rollup cycle: evaluate the rest against whatever exists (missing refs are zero)
                ready = pending
            ordered += ready
            pending = [p for p in pending if p not in ready]
        return ordered

    def _subtree(self, child_ids: list[str], phase: Phase) -> Values:
        """Values of each child in ``phase`` stored per node; returns what they add to their parent."""
        code = self.currency[phase.id][0]
        total = Values()
        children = [self.project.nodes[c] for c in child_ids if c in self.project.nodes]
        since_subtotal = Values()
        above = Values()
        markups: list[Node] = []
        for node in children:
            if node.type == "account":
                values = self._subtree(node.children, phase)
                if phase.type == "actual":
                    values.base += round_minor(self.coded.get(node.id, ZERO), code)
            elif node.type == "subtotal":
                values = Values()
                values.add(above if node.subtotal_sum_all_above else since_subtotal)
                since_subtotal = Values()
            elif node.type == "markup":
                markups.append(node)
                continue
            else:
                values = self._line(node, phase, code)
            values = self._store(node, phase, values)
            if node.type != "subtotal":
                total.add(values)
                above.add(values)
                since_subtotal.add(values)
        for node in markups:
            total.add(self._store(node, phase, self._markup(node, phase, code, children)))
        return total

    def _store(self, node: Node, phase: Phase, values: Values) -> Values:
        if phase.type == "rollup":
            values = self._rollup(node.id, phase)
        self.nodes.setdefault(node.id, {})[phase.id] = values
        return values

    def _rollup(self, node_id: str, phase: Phase) -> Values:
        inputs = {
            ref: self.nodes.get(node_id, {}).get(ref, Values())
            for ref in formula.phase_refs(phase.rollup_formula or "")
        }
        code = self.currency[phase.id][0]
        try:
            base = formula.evaluate_rollup(phase.rollup_formula or "0", {r: v.base for r, v in inputs.items()})
            fringe = formula.evaluate_rollup(phase.rollup_formula or "0", {r: v.fringe for r, v in inputs.items()})
        except FormulaError:
            return Values()
        return Values(base=round_minor(base, code), fringe=round_minor(fringe, code))

    def _line(self, node: Node, phase: Phase, code: str) -> Values:
        if phase.type == "actual":
            return Values(base=round_minor(self.coded.get(node.id, ZERO), code))
        data = node.phase_data.get(phase.id)
        if data is None:
            return Values()
        quantity = cell_value(data.quantity, self.env)
        multiplier = cell_value(data.multiplier, self.env)
        rate = cell_value(data.rate, self.env)
        qty = ONE if quantity is None else quantity
        base = round_minor(qty * (ONE if multiplier is None else multiplier) * (rate or ZERO), code)
        values = Values(base=base)
        for fringe_id in data.fringe_ids:
            amount = self._fringe(fringe_id, base, qty, code)
            if amount is not None:
                values.breakdown[fringe_id] = values.breakdown.get(fringe_id, ZERO) + amount
                values.fringe += amount
        return values

    def _fringe(self, fringe_id: str, base: Decimal, quantity: Decimal, code: str) -> Decimal | None:
        fringe = self.project.fringes.get(fringe_id)
        rate = number_or_none(fringe.rate) if fringe else None
        if fringe is None or rate is None:
            return None
        if fringe.units == "percent":
            cutoff = number_or_none(fringe.cutoff)
            subject = base if cutoff is None else min(base, cutoff)
            return round_minor(subject * rate / HUNDRED, code)
        if fringe.units == "flat":
            return round_minor(rate * quantity, code)
        return round_minor(rate, code)

    def _markup(self, node: Node, phase: Phase, code: str, siblings: list[Node]) -> Values:
        data = node.phase_data.get(phase.id) or PhaseData()
        if phase.type in ("actual", "rollup"):
            return Values()
        amount = number_or_none(data.markup_amount) or ZERO
        if data.markup_type == "flat":
            return Values(base=round_minor(amount, code))
        included = [
            s
            for s in siblings
            if s.type in ("account", "line")
            and (node.include_accounts is None or (s.account_code or "") in node.include_accounts)
        ]
        subject = ZERO
        for sibling in included:
            values = self.nodes.get(sibling.id, {}).get(phase.id) or Values()
            subject += values.base if data.exclude_fringes else values.amount
        return Values(base=round_minor(subject * amount / HUNDRED, code))


def _tag_totals(project: Project, nodes: dict[str, dict[str, Values]], phases: list[Phase]) -> dict[str, TagTotals]:
    """Per tag, the nodes carrying it; a node under an ancestor with the same tag is not counted twice (A38)."""
    totals = {name: TagTotals() for name in project.tags}
    stack: list[tuple[str, frozenset[str]]] = [(r, frozenset()) for r in reversed(project.roots)]
    seen: set[str] = set()
    while stack:
        node_id, counted = stack.pop()
        node = project.nodes.get(node_id)
        if node is None or node_id in seen:
            continue
        seen.add(node_id)
        fresh = [t for t in node.tags if t not in counted and node.type in SUMMED_TYPES]
        for tag in fresh:
            entry = totals.setdefault(tag, TagTotals())
            for phase in phases:
                values = nodes.get(node_id, {}).get(phase.id) or Values()
                entry.phase_totals[phase.id] = entry.phase_totals.get(phase.id, ZERO) + values.amount
                entry.fringe_totals[phase.id] = entry.fringe_totals.get(phase.id, ZERO) + values.fringe
                if phase.type == "actual":
                    entry.actual_total += values.amount
        inherited = counted | frozenset(fresh)
        stack.extend((c, inherited) for c in reversed(node.children))
    for entry in totals.values():
        for phase in phases:
            entry.phase_totals.setdefault(phase.id, ZERO)
            entry.fringe_totals.setdefault(phase.id, ZERO)
    return totals


def compute_totals(project: Project, workspace_currency: str) -> ProjectTotals:
    """Every total of ``project`` at its current version."""
    calculator = _Calculator(project, workspace_currency)
    phase_totals = calculator.run()
    for phase in calculator.phases:
        if phase.type == "rollup":  # the phase total follows the formula over the other phases' totals
            phase_totals[phase.id] = _phase_rollup(phase, phase_totals, calculator.currency[phase.id][0])
    return ProjectTotals(
        version=project.version,
        workspace_currency=workspace_currency,
        currencies={pid: code for pid, (code, _) in calculator.currency.items()},
        rates={pid: rate for pid, (_, rate) in calculator.currency.items()},
        globals=calculator.env,
        nodes=calculator.nodes,
        phases=phase_totals,
        tags=_tag_totals(project, calculator.nodes, calculator.phases),
    )


def _phase_rollup(phase: Phase, phase_totals: Mapping[str, Values], code: str) -> Values:
    text = phase.rollup_formula or "0"
    try:
        base = formula.evaluate_rollup(text, {r: v.base for r, v in phase_totals.items()})
        fringe = formula.evaluate_rollup(text, {r: v.fringe for r, v in phase_totals.items()})
    except FormulaError:
        return Values()
    return Values(base=round_minor(base, code), fringe=round_minor(fringe, code))
