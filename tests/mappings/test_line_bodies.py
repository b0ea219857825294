"""Budget line bodies: references through the crosswalk, phase data by v1 phase id, markups, determinism."""

from __future__ import annotations

from hypothesis import given

from mappings.kinds import Kind
from mappings.lines import line_body
from mappings.notes import NoteKind
from mappings.records import BudgetLine, PhaseData, ProjectBudget
from mappings.refs import WORKSPACE, Lookup
from tests.mappings.budget_levels import mapped_levels, wanted_lines
from tests.mappings.crosswalk import lookup_from
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
    """Each tree level's lines as the engine sends them: legacy ids, create bodies and notes, and the refusals."""
    levels, refused = mapped_levels(wanted_lines(budget), _crosswalk(budget))
    return [*levels, [(e.code, e.ref, e.field) for e in refused]]


@given(budget=project_budgets())
def test_mapping_the_same_source_twice_gives_identical_requests(budget: ProjectBudget) -> None:
    """Levels, ids, bodies and notes are a pure function of the source (so are the bulks' Idempotency-Keys,
    derived from ids and bodies alone: tests/mappings/test_keys.py)."""
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


def test_a_line_note_rides_in_the_create_body_as_its_plain_text() -> None:
    """The note's text form goes in `notes` (no extra request); a note with nothing in it sends nothing."""
    lookup = lookup_from({})
    noted = BudgetLine(id="a1", type="account", note={"id": "n1", "text": "Rates agreed\nwith the union", "html": "x"})
    assert line_body("p1", noted, lookup, SYMBOLS).body["notes"] == "Rates agreed\nwith the union"
    for note in (None, {"text": "  "}, {"html": "<p>only html</p>"}, "not an object", {"text": 7}):
        assert "notes" not in line_body("p1", BudgetLine(id="a2", type="account", note=note), lookup, SYMBOLS).body


def test_a_note_refused_as_text_leaves_its_line_written_and_says_so() -> None:
    """A carriage return is a control character: the note is not carried, the line and its money still are."""
    line = BudgetLine(id="a1", type="account", description="Camera", note={"text": "one\r\ntwo"})
    mapped = line_body("p1", line, lookup_from({}), SYMBOLS)
    assert mapped.body["description"] == "Camera"
    assert "notes" not in mapped.body
    (note,) = [n for n in mapped.notes if n.field == "note"]
    assert note.kind is NoteKind.NOT_CARRIED
    assert note.detail == "text.control_characters: the line is written without it"
