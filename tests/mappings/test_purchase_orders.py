"""Purchase orders as v1 drafts: exact minor units, qty and rate as text, an order without items, items that
miss the amount, statuses, and the approvals list."""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal

import pytest

from bridge.clients.v1_requests import BY_ID, checked
from bridge.commands.orders import approvals_csv
from mappings.errors import ErrorCode, MappingError
from mappings.kinds import Kind
from mappings.money import Money
from mappings.purchase_orders import (
    INLINE_ITEMS,
    SYNTHETIC_ITEM,
    MappedOrder,
    OrderLine,
    left_as,
    line_of,
    map_order,
    status_table,
)
from mappings.records import PurchaseOrder

IDS = {(Kind.CONTACT, "con_a"): "v1_con", (Kind.LINE, "lin_a"): "v1_line"}


def _lookup(kind: str, _scope: str, legacy_id: str) -> str | None:
    return IDS.get((Kind(kind), legacy_id))


def _order(**fields: object) -> PurchaseOrder:
    record: dict[str, object] = {"id": "po_1", "amount": 250.5, "paidAmount": 0, "status": "draft", **fields}
    return PurchaseOrder.model_validate(record)


def _mapped(order: PurchaseOrder, currency: str = "USD", *, submit_pending: bool = False) -> MappedOrder:
    return map_order(
        order,
        _lookup,
        project_id="prj_1",
        v1_project_id="v1_prj",
        sort=3,
        currency=currency,
        submit_pending=submit_pending,
    )


ITEM = {"id": "i1", "description": "Camera", "quantity": 2.5, "unitPrice": 100.2, "totalPrice": 250.5}


def test_an_order_becomes_a_draft_with_its_items_in_exact_minor_units() -> None:
    """number, name, notes, contact and sort from the legacy order; each item's amount is its totalPrice in
    minor units, qty the quantity and rate the unit price in minor units, as decimal text; the body fits the
    published closed shape."""
    order = _order(
        purchaseOrderId="PO-7",
        title="Camera package",
        notes="Net-30",
        contact={"id": "con_a", "name": "Ana"},
        items=[{**ITEM, "accountId": "lin_a"}],
    )
    found = _mapped(order)
    assert found.order.body == {
        "projectId": "v1_prj",
        "sort": 3,
        "number": "PO-7",
        "name": "Camera package",
        "notes": "Net-30",
        "contactId": "v1_con",
        "items": [{"amount": 25050, "description": "Camera", "qty": "2.5", "rate": "10020", "budgetLineId": "v1_line"}],
    }
    assert (found.difference, found.synthesized, found.extra) == (Decimal(0), False, ())
    checked(BY_ID["purchase-orders_create"], found.order.body)


@pytest.mark.parametrize(
    ("quantity", "price", "currency", "qty", "rate"),
    [(5, 250, "USD", "5", "25000"), (1.0, 0.125, "USD", "1", "12.5"), (3, 1200, "JPY", "3", "1200")],
)
def test_qty_and_rate_are_plain_decimal_text(quantity: float, price: float, currency: str, qty: str, rate: str) -> None:
    """No exponent, no trailing zeros; the rate in the currency's minor units (A88), a fraction kept."""
    total = quantity * price if currency == "JPY" else 250
    order = _order(amount=total, items=[{**ITEM, "quantity": quantity, "unitPrice": price, "totalPrice": total}])
    (item,) = _mapped(order, currency).order.body["items"]
    assert (item["qty"], item["rate"]) == (qty, rate)


def test_a_sub_minor_remainder_is_refused_naming_the_item() -> None:
    """An item total of 10.005 USD cannot be sent exactly: the order is refused, never rounded."""
    order = _order(amount=10.005, items=[{**ITEM, "totalPrice": 10.005}])
    with pytest.raises(MappingError) as refused:
        _mapped(order)
    assert refused.value.code is ErrorCode.MONEY_TOO_PRECISE
    assert refused.value.ref.legacy_id == "po_1"
    assert refused.value.field == "amount"
    order = _order(amount=10, items=[{**ITEM, "totalPrice": 10.001}])
    with pytest.raises(MappingError) as item:
        _mapped(order)
    assert item.value.field == "items[0].totalPrice"


def test_an_order_without_items_gets_one_synthetic_item_carrying_its_amount() -> None:
    """v1's amount is its items' sum: one item holds the legacy amount, and the order says it was synthesized."""
    found = _mapped(_order(amount=1500))
    assert found.order.body["items"] == [
        {"description": SYNTHETIC_ITEM, "qty": "1", "rate": "150000", "amount": 150000}
    ]
    assert found.synthesized
    assert found.difference == 0
    assert any(note.field == "items" for note in found.order.notes)


def test_items_that_miss_the_amount_are_carried_and_the_difference_reported() -> None:
    """The dirty seed's case: items summing 100.25 less than the amount go as they are; the difference is money."""
    order = _order(amount=350.75, items=[ITEM])
    found = _mapped(order)
    assert [item["amount"] for item in found.order.body["items"]] == [25050]
    assert found.difference == Decimal("100.25")
    note = next(note for note in found.order.notes if note.field == "amount")
    assert "100.25 USD" in note.detail


def test_items_past_the_hundredth_go_after_the_order() -> None:
    """PurchaseOrderCreate takes at most 100 items: the rest are the order's extra items, in order."""
    items = [{**ITEM, "id": f"i{n}", "description": f"line {n}"} for n in range(INLINE_ITEMS + 2)]
    found = _mapped(_order(amount=250.5 * len(items), items=items))
    assert len(found.order.body["items"]) == INLINE_ITEMS
    assert [item["description"] for item in found.extra] == ["line 100", "line 101"]


@pytest.mark.parametrize(
    ("legacy", "v1", "approve"),
    [
        ("draft", "draft", False),
        ("pending", "draft", True),
        ("approved", "draft", True),
        ("paid", "draft", True),
        ("rejected", "draft", False),
        ("archived", "draft", True),
    ],
)
def test_every_legacy_status_becomes_a_draft_with_its_reason(legacy: str, v1: str, approve: bool) -> None:
    """Only drafts can be created: each status says why, and which need approving in the app."""
    status = _mapped(_order(status=legacy)).status
    assert (status.v1, status.needs_approval) == (v1, approve)
    assert status.why


def test_submit_pending_makes_only_pending_orders_pending() -> None:
    """The opt-in submits legacy pending orders; an approved one stays a draft to approve."""
    assert _mapped(_order(status="pending"), submit_pending=True).status.v1 == "pending"
    assert _mapped(_order(status="approved"), submit_pending=True).status.v1 == "draft"


def _line(order: PurchaseOrder) -> OrderLine:
    return line_of(order, _mapped(order), "v1_po")


def test_the_status_table_counts_and_sums_per_status() -> None:
    """One row per legacy status (and v1 status): count and money per currency."""
    lines = [
        _line(_order(id="a", status="approved", amount=10)),
        _line(_order(id="b", status="approved", amount=5.5)),
        _line(_order(id="c", status="draft", amount=1)),
    ]
    rows = {row.legacy: row for row in status_table(lines)}
    assert (rows["approved"].count, rows["approved"].money) == (2, {"USD": Decimal("15.5")})
    assert rows["approved"].needs_approval
    assert not rows["draft"].needs_approval


def test_the_approvals_csv_lists_only_orders_to_approve_with_text_cells_neutralised() -> None:
    """A header, then one row per order that needs approval; a title a spreadsheet would run is quoted."""
    lines = [
        _line(_order(id="a", status="approved", amount=10, purchaseOrderId="PO-1", title="=HYPERLINK(1)")),
        _line(_order(id="b", status="draft", amount=3)),
        _line(_order(id="c", status="paid", amount=7.25)),
    ]
    rows = approvals_csv(lines).splitlines()
    assert rows[0] == "project,legacy_id,number,name,legacy_status,v1_status,v1_id,amount,currency,v1_amount"
    assert rows[1:] == [
        "prj_1,a,PO-1,'=HYPERLINK(1),approved,draft,v1_po,10.00,USD,",
        "prj_1,c,,,paid,draft,v1_po,7.25,USD,",
    ]


def test_an_order_left_as_v1_holds_it_is_in_the_csv_with_both_amounts() -> None:
    """A draft on legacy edited since, approved on v1 meanwhile (A107): listed with v1's amount beside the
    legacy one, though it needs no approving; its line says how much it differs by."""
    line = replace(
        _line(_order(id="d", status="draft", amount=12.5)),
        status=left_as("approved"),
        v1_amount=Money(amount=1000, currency="USD"),
    )
    assert (line.left, line.behind) == (True, Decimal("2.50"))
    assert "left as approved on v1" in line.status.why
    rows = approvals_csv([line]).splitlines()
    assert rows[1:] == ["prj_1,d,,,draft,approved,v1_po,12.50,USD,10.00"]
