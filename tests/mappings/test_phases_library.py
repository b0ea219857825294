"""Phases, library items and tags: default estimate reuse, rollups, dedupe by name, winner rule, conflicts."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from mappings.errors import ErrorCode
from mappings.kinds import Kind
from mappings.library import plan_currencies, plan_fringes, plan_globals
from mappings.notes import NoteKind
from mappings.phases import default_estimate_patch, phase_body, plan_phases
from mappings.records import BudgetLine, Fringe, Global, Phase, PhaseCurrency, Project, ProjectBudget, Tag
from mappings.tags import plan_tags
from tests.mappings.crosswalk import lookup_from
from tests.strategies import project_budgets

PHASES = [
    Phase(id="e1", type="estimate", name="Estimate", alias="estimate", currency=PhaseCurrency(code="USD")),
    Phase(
        id="w1", type="estimate", name="Working", isHidden=True, currency=PhaseCurrency(code="JPY", exchangeRate=0.0067)
    ),
    Phase(id="v1", type="rollup", name="Variance", operation="difference", phaseIds=("e1", "w1")),
    Phase(id="t1", type="rollup", name="Total", operation="sum", phaseIds=("v1", "a1")),
    Phase(id="a1", type="actual", name="Actual"),
]


def test_first_estimate_maps_onto_the_default_phase_and_rollups_come_last() -> None:
    """No second estimate phase; hidden phases kept; rollups after every input, rollups of rollups too."""
    plan = plan_phases("p1", PHASES)
    assert plan.default_estimate is not None
    assert plan.default_estimate.id == "e1"
    assert [p.id for p in plan.plain] == ["w1", "a1"]
    assert [p.id for p in plan.rollups] == ["v1", "t1"]
    assert not plan.quarantined


def test_phase_bodies_carry_hidden_flag_currency_copy_and_rollup_formula() -> None:
    """A09: baseCurrencyId is the project copy of the code; A08: rollupFormula over v1 phase ids."""
    lookup = lookup_from(
        {
            (Kind.CURRENCY, "p1", "JPY"): "cur_jpy",
            (Kind.CURRENCY, "p1", "USD"): "cur_usd",
            (Kind.PHASE, "p1", "e1"): "phs_e",
            (Kind.PHASE, "p1", "w1"): "phs_w",
        }
    )
    working = phase_body("p1", PHASES[1], lookup).body
    assert working == {"name": "Working", "type": "estimate", "isHidden": True, "baseCurrencyId": "cur_jpy"}
    assert phase_body("p1", PHASES[2], lookup).body["rollupFormula"] == "@{phs_e} - @{phs_w}"
    patch = default_estimate_patch("p1", PHASES[0], lookup).body
    assert patch == {"name": "Estimate", "alias": "estimate", "isHidden": False, "baseCurrencyId": "cur_usd"}


def test_phase_currencies_become_currency_items_with_rate_to_usd() -> None:
    """Each code once in the workspace, one copy per project, rateToUSD = exchangeRate unchanged."""
    plan = plan_currencies({"p1": PHASES, "p2": PHASES[:2]}, {"USD": ("cur_usd", {"code": "USD", "symbol": None})})
    assert {(i.name, i.existing_id) for i in plan.items} == {("USD", "cur_usd"), ("JPY", None)}
    assert {(c.ref.scope, c.name) for c in plan.copies} == {("p1", "USD"), ("p1", "JPY"), ("p2", "USD"), ("p2", "JPY")}
    jpy = next(i for i in plan.items if i.name == "JPY")
    assert jpy.body["rateToUSD"] == 0.0067


def test_fringes_are_reused_by_name_and_conflicts_reported() -> None:
    """An equal target item is reused silently; an unequal one is reused with a conflict note, copies patched."""
    fica = Fringe(id="f1", code="FICA", units="percent", rate=7.65, cutoff=160200)
    health = Fringe(id="f2", code="HEALTH", units="flat", rate=500)
    budgets = [
        ProjectBudget(project_id="p2", fringes=(fica.model_copy(update={"rate": 6.2}),)),
        ProjectBudget(project_id="p1", fringes=(fica, health)),
    ]
    existing = {"HEALTH": ("frg_h", {"name": "HEALTH", "calculationType": "flat", "rate": 450})}
    plan = plan_fringes(budgets, existing)
    items = {i.name: i for i in plan.items}
    assert items["FICA"].ref.scope == "p1"  # the first project by legacy id wins
    assert items["FICA"].body["rate"] == 7.65
    assert items["HEALTH"].existing_id == "frg_h"
    assert {(c.ref.scope, c.patch["rate"]) for c in plan.copies if c.name == "FICA"} == {("p1", 7.65), ("p2", 6.2)}
    conflicts = {(n.ref.scope, n.field, n.old, n.new) for n in plan.notes if n.kind is NoteKind.CONFLICT}
    assert conflicts == {("p1", "rate", "450", "500"), ("p2", "rate", "7.65", "6.2")}


def test_globals_keep_their_formulas_and_refuse_unknown_symbols() -> None:
    """Formulas travel as written; one naming an undefined global is quarantined alone."""
    budget = ProjectBudget(
        project_id="p1",
        globals=(
            Global(id="g1", symbol="SHOOT_DAYS", formula="35"),
            Global(id="g2", symbol="SHOOT_WEEKS", formula="=SHOOT_DAYS / 5"),
            Global(id="g3", symbol="BAD", formula="=PREP * 2"),
        ),
    )
    plan = plan_globals([budget], {})
    assert [(i.body["symbol"], i.body["formula"]) for i in plan.items] == [
        ("SHOOT_DAYS", "35"),
        ("SHOOT_WEEKS", "=SHOOT_DAYS / 5"),
    ]
    assert [e.ref.legacy_id for e in plan.quarantined] == ["g3"]


def test_tags_are_deduplicated_across_projects_with_the_winner_rule() -> None:
    """One workspace tag per name; the first project's colour wins; differences and lossy colours reported."""
    plan = plan_tags(
        {
            "p2": [Tag(id="VFX", name="VFX", color="#3B82F6", description="visual effects")],
            "p1": [Tag(id="VFX", name="VFX", color="#EF4444")],
        },
        budgets=[ProjectBudget(project_id="p1", lines=(BudgetLine(id="l", type="line", tags=("Travel",)),))],
        projects=[Project(id="p1", labels=("Union",))],
    )
    bodies = {body["name"]: body for _, body in plan.tags}
    assert set(bodies) == {"VFX", "Travel", "Union"}
    assert bodies["VFX"]["color"] == "red"
    conflicts = {(n.ref.scope, n.field) for n in plan.notes if n.kind is NoteKind.CONFLICT}
    assert conflicts == {("p2", "color"), ("p2", "description")}


def test_an_off_palette_colour_maps_to_the_nearest_named_colour_and_is_reported() -> None:
    """A15: #FF0001 is nearest to red; the change is a lossy note with old and new value."""
    plan = plan_tags({"p1": [Tag(id="Hot", name="Hot", color="#FF0001")]})
    assert plan.tags[0][1]["color"] == "red"
    assert [(n.old, n.new) for n in plan.notes if n.kind is NoteKind.LOSSY] == [("#FF0001", "red")]


# Each example plans up to three whole projects; 25 examples cover the orderings without dominating the suite.
@settings(max_examples=25)
@given(budgets=st.lists(project_budgets(), min_size=1, max_size=3, unique_by=lambda b: b.project_id))
def test_library_and_phase_plans_are_pure_functions_of_the_source(budgets: list[ProjectBudget]) -> None:
    """Planning the same projects twice, in any order, gives the same items, copies, notes and bodies."""

    def plans(source: list[ProjectBudget]) -> list[object]:
        phases = {b.project_id: b.phases for b in source}
        return [
            plan_fringes(source, {}),
            plan_globals(source, {}),
            plan_currencies(phases, {}),
            [plan_phases(b.project_id, b.phases) for b in sorted(source, key=lambda b: b.project_id)],
        ]

    assert plans(budgets) == plans(list(reversed([b.model_copy(deep=True) for b in budgets])))


def test_a_rollup_over_a_quarantined_phase_is_quarantined_too() -> None:
    """A rollup cannot compute without its inputs: it is set aside naming the missing input, others stay."""
    phases = [
        Phase(id="e1", type="estimate", name="Estimate"),
        Phase(id="bad", type="estimate", name="Working", currency=PhaseCurrency(code="ZZQ")),
        Phase(id="r1", type="rollup", name="Variance", operation="difference", phaseIds=("e1", "bad")),
        Phase(id="r2", type="rollup", name="Again", operation="sum", phaseIds=("e1",)),
    ]
    plan = plan_phases("p1", phases)
    assert [(e.ref.legacy_id, e.code) for e in plan.quarantined] == [
        ("bad", ErrorCode.CURRENCY_UNKNOWN),
        ("r1", ErrorCode.ROLLUP_INPUT_UNKNOWN),
    ]
    assert [p.id for p in plan.rollups] == ["r2"]
