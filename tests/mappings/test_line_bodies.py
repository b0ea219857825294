"""Budget line bodies: references through the crosswalk, phase data by v1 phase id, markups, determinism."""

from __future__ import annotations

from hypothesis import given

from mappings.kinds import Kind
from mappings.lines import bulk_request, line_body, phase_data_bulks, phase_data_items, plan_budget
from mappings.notes import NoteKind
from mappings.records import BudgetLine, PhaseData, ProjectBudget
from mappings.refs import WORKSPACE, Lookup, lookup_from
from tests.strategies import project_budgets

SYMBOLS = {"DAYS", "WEEKS"}


def _crosswalk(budget: ProjectBudget) -> Lookup:
    """Every record already created: what the engine's crosswalk holds when a group is sent."""
    table: dict[tuple[str, str, str], str] = {
        (Kind.LINE, budget.project_id, line.id): f"lin_{line.id}" for line in budget.lines
    }
    table |= {(Kind.PHASE, budget.project_id, p.id): f"phs_{p.id}" for p in budget.phases}
    table |= {(Kind.FRINGE, budget.project_id, f.id): f"frg_{f.id}" for f in budget.fringes}
    table |= {(Kind.TAG, WORKSPACE, name): f"tag_{name}" for name in ("VFX", "Travel", "Union")}
    return lookup_from(table)


def _requests(budget: ProjectBudget) -> list[object]:
    tree = plan_budget(budget, SYMBOLS)
    lookup = _crosswalk(budget)
    return [
        (req.key("mig"), req.body, req.legacy_ids)
        for req in (bulk_request(tree, g, lookup, SYMBOLS) for g in tree.groups())
    ]


@given(budget=project_budgets())
def test_mapping_the_same_source_twice_gives_identical_requests(budget: ProjectBudget) -> None:
    """Bodies, ids and idempotency keys are a pure function of the source."""
    assert _requests(budget) == _requests(budget.model_copy(deep=True))


@given(budget=project_budgets())
def test_phase_data_is_keyed_by_v1_phase_id_and_carried_unchanged(budget: ProjectBudget) -> None:
    """Each cell arrives under its v1 phase id with the same number or formula the legacy sent."""
    lookup = _crosswalk(budget)
    for line in budget.lines:
        if line.type != "line" or line.parent_id is None:
            continue
        body = line_body(budget.project_id, line, lookup, SYMBOLS).body
        for phase_key, data in line.phase_data.items():
            sent = body.get("phaseData", {}).get(f"phs_{phase_key}", {})
            for name in ("rate", "quantity", "multiplier"):
                assert sent.get(name) == getattr(data, name)


def test_a_line_body_resolves_parent_contact_tags_and_fringes() -> None:
    """The create body names v1 ids only; an unknown contact is reported, and the line's tags (no published
    write on v1) are listed as not carried."""
    line = BudgetLine(
        id="l1",
        type="line",
        parentId="a1",
        accountId="2210",
        description="Camera package",
        contactId="c9",
        tags=("VFX", "Nope"),
        phaseData={"ph1": PhaseData(rate=25000, quantity="=DAYS", unit="weeks", fringes=("f1",))},
    )
    lookup = lookup_from(
        {
            (Kind.LINE, "p1", "a1"): "lin_a1",
            (Kind.PHASE, "p1", "ph1"): "phs_1",
            (Kind.FRINGE, "p1", "f1"): "frg_1",
            (Kind.TAG, WORKSPACE, "VFX"): "tag_v",
        }
    )
    mapped = line_body("p1", line, lookup, {"DAYS"})
    assert mapped.body == {
        "description": "Camera package",
        "type": "line",
        "accountId": "2210",
        "parentId": "lin_a1",
        "phaseData": {"phs_1": {"rate": 25000, "quantity": "=DAYS", "unit": "weeks", "fringeIds": ["frg_1"]}},
    }
    unassigned = {(n.field, n.old) for n in mapped.notes if n.kind is NoteKind.UNASSIGNED}
    assert unassigned == {("contactId", "c9")}
    not_carried = {(n.field, n.old, n.detail) for n in mapped.notes if n.kind is NoteKind.NOT_CARRIED}
    assert not_carried == {("tags", "VFX", "no published write"), ("tags", "Nope", "no published write")}


def test_a_markup_carries_its_value_and_account_selection() -> None:
    """A13: percent/flat as unit, the amount as rate, includeAccounts as a comma-separated filter."""
    line = BudgetLine(
        id="m1",
        type="markup",
        description="Profit (10%)",
        includeAccounts=("1000", "2000"),
        phaseData={"ph1": PhaseData(type="percent", amount=10, excludeFringes=True)},
    )
    mapped = line_body("p1", line, lookup_from({(Kind.PHASE, "p1", "ph1"): "phs_1"}), ())
    assert mapped.body["markupAccountFilter"] == "1000,2000"
    assert mapped.body["phaseData"] == {"phs_1": {"rate": 10, "unit": "percent"}}
    assert [(n.kind, n.field, n.old) for n in mapped.notes] == [
        (NoteKind.NOT_CARRIED, "phaseData.ph1.excludeFringes", "true")
    ]


def test_a_markup_over_every_account_leaves_the_filter_out() -> None:
    """A46: the published filter is a string, never null: a markup over every sibling sends no filter."""
    line = BudgetLine(id="m1", type="markup", description="Contingency", phaseData={"ph1": PhaseData(amount=5)})
    assert (
        "markupAccountFilter" not in line_body("p1", line, lookup_from({(Kind.PHASE, "p1", "ph1"): "phs_1"}), ()).body
    )


def test_a_subtotal_keeps_its_colour() -> None:
    """Legacy subtotal colours travel as lineColor."""
    line = BudgetLine(id="s1", type="subtotal", description="Total ATL", color="red")
    assert line_body("p1", line, lookup_from({}), ()).body["lineColor"] == "red"


def test_contacts_are_referenced_through_the_workspace_crosswalk() -> None:
    """A line's contact is the workspace-wide contact's v1 id."""
    line = BudgetLine(id="l1", type="line", description="DP", contactId="c1")
    body = line_body("p1", line, lookup_from({(Kind.CONTACT, WORKSPACE, "c1"): "con_1"}), ()).body
    assert body["contactId"] == "con_1"


def test_phase_data_updates_are_cut_into_bulks_of_at_most_500() -> None:
    """A re-run patches existing lines' cells with phase-data bulks within the v1 limit."""
    lookup = lookup_from({(Kind.PHASE, "p1", "ph1"): "phs_1", (Kind.PHASE, "p1", "ph2"): "phs_2"})
    entries = []
    for index in range(400):
        line = BudgetLine(
            id=f"l{index}", type="line", phaseData={"ph1": PhaseData(rate=index), "ph2": PhaseData(quantity=2)}
        )
        items, _ = phase_data_items("p1", line, f"lin_{index}", lookup, ())
        entries += [(line.id, item) for item in items]
    bulks = phase_data_bulks("p1", entries)
    assert [len(b.body["items"]) for b in bulks] == [500, 300]  # type: ignore[typeddict-item]  # phase-data bodies only
    assert len({b.key("mig") for b in bulks}) == 2


def test_a_bulk_split_derives_stable_child_keys() -> None:
    """After a rejection the engine bisects: each half's key comes from the parent key and is stable."""
    budget = ProjectBudget(
        project_id="p1", lines=tuple(BudgetLine(id=f"l{i}", type="line", description=f"L{i}") for i in range(4))
    )
    tree = plan_budget(budget, ())
    request = bulk_request(tree, tree.groups()[0], lookup_from({}), ())
    parent = request.key("mig")
    left = request.child_key(parent, request.legacy_ids[:2])
    assert left == request.child_key(parent, request.legacy_ids[:2])
    assert left not in {parent, request.child_key(parent, request.legacy_ids[2:])}
