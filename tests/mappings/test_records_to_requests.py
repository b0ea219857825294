"""Spaces, projects, contacts and actuals: statuses kept, references resolved, splits exact, lossy noted."""

from __future__ import annotations

from hypothesis import given

from mappings.actuals import map_actual
from mappings.contacts import map_contact
from mappings.kinds import Kind
from mappings.notes import NoteKind
from mappings.records import Actual, Contact, Project, ProjectSpaceRef, Space, SubActual, Tag
from mappings.refs import WORKSPACE
from mappings.spaces import map_project, map_space, project_patch, space_patch
from mappings.tags import plan_tags
from tests.mappings.crosswalk import lookup_from
from tests.strategies import split_actuals

LOOKUP = lookup_from(
    {
        (Kind.SPACE, WORKSPACE, "s1"): "spc_1",
        (Kind.TAG, WORKSPACE, "union"): "tag_u",
        (Kind.CONTACT, WORKSPACE, "c1"): "con_1",
        (Kind.LINE, "p1", "l1"): "lin_1",
        (Kind.LINE, "p1", "l2"): "lin_2",
    }
)


def test_an_archived_space_is_created_then_archived() -> None:
    """v1 sets archived only by PATCH: the create body has no status, the patch restores it."""
    space = Space(id="s1", alias="features", name="Features", archived=True)
    assert map_space(space).body == {"name": "Features", "slug": "features"}
    assert space_patch(space) == {"archived": True}
    assert space_patch(space.model_copy(update={"archived": False})) is None


def test_a_project_keeps_its_space_labels_and_archived_status() -> None:
    """Space and label tags resolve through the crosswalk; archived comes back through PATCH."""
    project = Project(
        id="p1", name="Film", alias="film", status="archived", labels=("union",), space=ProjectSpaceRef(id="s1")
    )
    assert map_project(project, LOOKUP).body == {
        "name": "Film",
        "slug": "film",
        "spaceId": "spc_1",
        "tagIds": ["tag_u"],
    }
    assert project_patch(project) == {"status": "archived"}


def test_a_contact_maps_type_and_rate_as_money() -> None:
    """Contractor -> contractor; a float day rate becomes integer cents with the rounding reported."""
    mapped = map_contact(Contact(id="c1", name="Ana", type="Contractor", rate=650.005, jobTitle="DP"), "USD")
    assert mapped.body == {
        "name": "Ana",
        "title": "DP",
        "type": "contractor",
        "rate": {"amount": 65000, "currency": "USD"},
    }
    assert [n.kind for n in mapped.notes] == [NoteKind.ROUNDING]


def test_an_actual_becomes_a_coded_manual_transaction() -> None:
    """Amount in minor units, contact and line by v1 id, actualized, lossy type and status reported."""
    actual = Actual(
        id="a1",
        amount=1234.56,
        date="2026-02-01T10:00:00Z",
        type="SaturationACH",
        status="Pending",
        description="Lens rental",
        contactId="c1",
        accountId="l1",
    )
    mapped = map_actual("p1", "prj_1", actual, "USD", LOOKUP).transaction
    assert mapped.body == {
        "type": "ACH",
        "amount": {"amount": 123456, "currency": "USD"},
        "timestamp": "2026-02-01T10:00:00Z",
        "status": "posted",
        "projectId": "prj_1",
        "actualized": True,
        "description": "Lens rental",
        "contactId": "con_1",
        "budgetLineId": "lin_1",
    }
    assert {(n.field, n.old, n.new) for n in mapped.notes if n.kind is NoteKind.LOSSY} == {
        ("type", "SaturationACH", "ACH"),
        ("status", "Pending", "posted"),
    }


def test_a_split_actual_becomes_items_coded_to_lines() -> None:
    """The transaction is not coded itself; each part is an item with its own line and amount."""
    actual = Actual(
        id="a2",
        amount=100,
        date="2026-02-01",
        subactuals=(SubActual(amount=60.25, accountId="l1"), SubActual(amount=39.75, accountId="l2")),
    )
    mapped = map_actual("p1", "prj_1", actual, "USD", LOOKUP)
    assert "budgetLineId" not in mapped.transaction.body
    assert [i.body for i in mapped.items] == [
        {"amount": {"amount": 6025, "currency": "USD"}, "budgetLineId": "lin_1"},
        {"amount": {"amount": 3975, "currency": "USD"}, "budgetLineId": "lin_2"},
    ]


def test_a_split_actuals_tags_go_on_each_of_its_items() -> None:
    """v1 takes tags on items only: every item of a split actual carries the actual's tags, nothing is noted
    as dropped; a tag with no v1 id is reported on each item it could not reach."""
    actual = Actual(
        id="a4",
        amount=10,
        date="2026-02-01",
        tags=("union", "gone"),
        subactuals=(SubActual(amount=6, accountId="l1"), SubActual(amount=4, accountId="l2")),
    )
    mapped = map_actual("p1", "prj_1", actual, "USD", LOOKUP)
    assert [i.body.get("tagIds") for i in mapped.items] == [["tag_u"], ["tag_u"]]
    assert not [n for n in mapped.transaction.notes if n.field == "tags"]
    assert [[(n.field, n.old) for n in i.notes] for i in mapped.items] == [[("tags", "gone")], [("tags", "gone")]]


def test_an_unsplit_actuals_tags_are_reported_as_not_carried() -> None:
    """An actual without parts has no item to carry its tags: each tag is a note on the transaction."""
    actual = Actual(id="a5", amount=10, date="2026-02-01", tags=("union",), accountId="l1", type="Check")
    mapped = map_actual("p1", "prj_1", actual, "USD", LOOKUP)
    assert "tagIds" not in mapped.transaction.body
    assert [(n.kind, n.field, n.old) for n in mapped.transaction.notes] == [(NoteKind.UNASSIGNED, "tags", "union")]


@given(actual=split_actuals())
def test_split_parts_always_sum_to_the_transaction(actual: Actual) -> None:
    """Whatever the parts, the items sent add up to exactly the transaction's amount."""
    mapped = map_actual("p1", "prj_1", actual, "USD", lookup_from({}))
    assert sum(i.body["amount"]["amount"] for i in mapped.items) == mapped.transaction.body["amount"]["amount"]


def test_an_unresolved_line_leaves_the_actual_uncoded_and_reported() -> None:
    """Money is never dropped: the transaction is sent without a line and the gap is a note."""
    actual = Actual(id="a3", amount=5, date="2026-01-05", accountId="gone", type="Check")
    mapped = map_actual("p1", "prj_1", actual, "USD", LOOKUP).transaction
    assert "budgetLineId" not in mapped.body
    assert [(n.kind, n.field, n.old) for n in mapped.notes] == [(NoteKind.UNASSIGNED, "accountId", "gone")]


def test_a_label_differing_from_a_tag_only_in_case_uses_that_tag() -> None:
    """Labels carry no colour: 'union' reuses the tag 'Union' (reported), instead of being refused."""
    project = Project(id="p1", name="Film", labels=("union",))
    plan = plan_tags({"p1": [Tag(id="Union", name="Union", color="#22C55E")]}, projects=[project])
    assert not plan.quarantined
    assert [body["name"] for _, body in plan.tags] == ["Union"]
    body = map_project(project, lookup_from({(Kind.TAG, WORKSPACE, "Union"): "tag_u"}), plan.aliases).body
    assert body["tagIds"] == ["tag_u"]
    assert [(n.old, n.new) for n in plan.notes if n.kind is NoteKind.LOSSY] == [("union", "Union")]
