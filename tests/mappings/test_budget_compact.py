"""The compact budget node a migration holds gives the same tree, bodies and refusals as the full record."""

from __future__ import annotations

from hypothesis import given

from mappings.kinds import Kind
from mappings.lines import line_body, plan_lines
from mappings.records import BudgetLine, CompactLine, PhaseData, ProjectBudget
from mappings.refs import WORKSPACE
from tests.mappings.budget_levels import mapped_levels, wanted_lines
from tests.mappings.crosswalk import lookup_from
from tests.strategies import messy_budget_lines, project_budgets

SYMBOLS = {"DAYS", "WEEKS"}


@given(project_budgets())
def test_compact_lines_map_to_the_same_create_bodies(budget: ProjectBudget) -> None:
    """Planning and mapping compact nodes yields exactly the levels, bodies and notes the full records yield."""
    table: dict[tuple[str, str, str], str] = {
        (Kind.LINE, budget.project_id, line.id): f"lin_{line.id}" for line in budget.lines
    }
    table |= {(Kind.PHASE, budget.project_id, p.id): f"phs_{p.id}" for p in budget.phases}
    table |= {(Kind.FRINGE, budget.project_id, f.id): f"frg_{f.id}" for f in budget.fringes}
    table |= {(Kind.TAG, WORKSPACE, name): f"tag_{name}" for name in ("VFX", "Travel", "Union")}
    lookup = lookup_from(table)
    full, full_refused = mapped_levels(wanted_lines(budget), lookup)
    compact, refused = mapped_levels(wanted_lines(budget, [CompactLine.of(line) for line in budget.lines]), lookup)
    assert compact == full
    assert [(e.code, e.ref) for e in refused] == [(e.code, e.ref) for e in full_refused]


@given(messy_budget_lines())
def test_compact_lines_are_refused_like_the_full_records(lines: list[BudgetLine]) -> None:
    """Duplicates, cycles, missing parents and unknown types quarantine the same nodes with the same codes."""
    full = plan_lines("p1", lines, SYMBOLS)
    compact = plan_lines("p1", [CompactLine.of(line) for line in lines], SYMBOLS)
    assert [(e.code, e.ref) for e in compact.quarantined] == [(e.code, e.ref) for e in full.quarantined]
    assert [n.id for n in compact.ordered] == [n.id for n in full.ordered]


def test_compact_line_keeps_markups_formulas_and_references() -> None:
    """A markup's percent and exclusions, a formula cell, the contact, tags and fringes survive compaction."""
    markup = BudgetLine(
        id="m1",
        type="markup",
        description="Contingency",
        includeAccounts=("2000",),
        phaseData={"ph1": PhaseData(type="percent", amount=10, excludeFringes=True)},
    )
    line = BudgetLine(
        id="l1",
        type="line",
        description="DP",
        contactId="c1",
        tags=("Union",),
        phaseData={"ph1": PhaseData(quantity="=DAYS", rate=550, unit="Day", fringes=("f1",), fringeTotal=9.5)},
    )
    lookup = lookup_from(
        {(Kind.PHASE, "p1", "ph1"): "phs_1", (Kind.FRINGE, "p1", "f1"): "frg_1", (Kind.TAG, WORKSPACE, "Union"): "t"}
    )
    for record in (markup, line):
        assert line_body("p1", CompactLine.of(record), lookup, SYMBOLS) == line_body("p1", record, lookup, SYMBOLS)
