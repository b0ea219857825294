"""What an edited purchase order's update sends, decided against v1's copy (A105, A106): only the header
fields that differ, each differing item PATCHed whole, v1's surplus deleted, the missing ones added with keys
that depend on the order's new state."""

from __future__ import annotations

from decimal import Decimal

import pytest

from bridge.engine.order_updates import ADD_ITEM, DELETE_ITEM, UPDATE_ITEM, Keys, header_patch, item_writes
from mappings.kinds import Kind
from mappings.money import Money
from mappings.purchase_orders import MappedOrder, PurchaseOrderCreate, PurchaseOrderItemWrite, status_of
from mappings.refs import RecordRef
from mappings.results import Mapped

KEYS = Keys("ns-0123456789abcdef", "prj_1", "po_1", "state-a")
ONE = PurchaseOrderItemWrite(description="Body", qty="5", rate="2500", amount=12500)
TWO = PurchaseOrderItemWrite(description="Lens", amount=2900)
V1_ONE = {"id": "poi_1", "description": "Body", "budgetLineId": None, "qty": "5", "rate": "2500", "amount": 12500}
V1_TWO = {"id": "poi_2", "description": "Lens", "budgetLineId": None, "qty": None, "rate": None, "amount": 2900}


def _order(**header: object) -> MappedOrder:
    body = PurchaseOrderCreate(projectId="prj_v1", sort=0, items=[ONE])
    body.update(header)  # type: ignore[typeddict-item]
    ref = RecordRef(Kind.PURCHASE_ORDER, "po_1", "prj_1")
    return MappedOrder(
        Mapped(ref, body, ()), (), "USD", Money(amount=12500, currency="USD"), Decimal(0), False, status_of("draft")
    )


def test_the_header_patch_holds_only_the_fields_that_differ_and_clears_what_the_source_dropped() -> None:
    """A new name is sent, the same number is not, notes v1 still holds but the legacy order dropped become null;
    v1's float sort equal to ours is no difference."""
    row = {"number": "PO-1", "name": "Camera", "contactId": None, "notes": "Net-30", "sort": 0.0}
    assert header_patch(_order(number="PO-1", name="Camera (revised)"), row) == {
        "name": "Camera (revised)",
        "notes": None,
    }
    assert header_patch(_order(number="PO-1", name="Camera", notes="Net-30"), row) == {}


@pytest.mark.parametrize(
    ("ours", "theirs", "sent"),
    [
        ([ONE, TWO], [V1_ONE, V1_TWO], []),
        ([{**ONE, "amount": 13000}, TWO], [V1_ONE, V1_TWO], [(UPDATE_ITEM, ("po_v1", "poi_1"))]),
        ([ONE], [V1_ONE, V1_TWO], [(DELETE_ITEM, ("po_v1", "poi_2"))]),
        ([ONE, TWO], [V1_ONE], [(ADD_ITEM, ("po_v1",))]),
        ([TWO], [V1_ONE, V1_TWO], [(UPDATE_ITEM, ("po_v1", "poi_1")), (DELETE_ITEM, ("po_v1", "poi_2"))]),
    ],
    ids=["same", "changed", "removed", "added", "first removed: matched by place"],
)
def test_items_are_matched_by_place(
    ours: list[PurchaseOrderItemWrite], theirs: list[dict[str, object]], sent: list[tuple[str, tuple[str, ...]]]
) -> None:
    """The n-th legacy item against v1's n-th: only the differing ones written, an add alone keyed."""
    writes = item_writes("po_v1", ours, theirs, KEYS)
    assert [(w.operation, w.params) for w in writes] == sent
    for write in writes:
        assert (write.key is not None) == (write.operation == ADD_ITEM)
        if write.operation == UPDATE_ITEM:  # whole, a field the item does not hold as null
            assert set(write.body) == {"description", "budgetLineId", "qty", "rate", "amount"}


def test_an_added_items_key_depends_on_the_orders_state_and_the_items_place() -> None:
    """The same state and place give the same key (a resumed run replays); another state or place another."""
    again = Keys(KEYS.namespace, KEYS.scope, KEYS.order_id, KEYS.state)
    later = Keys(KEYS.namespace, KEYS.scope, KEYS.order_id, "state-b")
    assert KEYS.add(1, TWO) == again.add(1, TWO)
    assert len({KEYS.add(1, TWO), later.add(1, TWO), KEYS.add(2, TWO)}) == 3
    assert 16 <= len(KEYS.add(1, TWO)) <= 255
