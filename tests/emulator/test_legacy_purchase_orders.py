"""Legacy purchase orders: the seeded orders, the list's filters and expands, one order's read, the writes a
rehearsal makes, and the link an actual shows. Every answer is held to its published shape by the fixture."""

from __future__ import annotations

import math
from typing import Any

import httpx
import pytest

from bridge.emulator.core.seed import seeded_service
from bridge.emulator.core.store import Service

pytestmark = pytest.mark.anyio

P = "/projects/night-harbor"
POS = P + "/purchaseOrders"


@pytest.fixture
def emulator_service() -> Service:
    """The seeded small workspace with the dirty records (the two orders v1 cannot express among them)."""
    return seeded_service(42, "small", dirty=True)


async def orders(
    client: httpx.AsyncClient, params: dict[str, Any] | None = None, path: str = POS
) -> list[dict[str, Any]]:
    response = await client.get(path, params=params)
    assert response.status_code == 200, response.text
    listed: list[dict[str, Any]] = response.json()["purchaseOrders"]  # parsed JSON, untyped like every body here
    return listed


async def test_every_project_holds_orders_in_various_statuses(legacy_client: httpx.AsyncClient) -> None:
    """Each seeded project lists orders with numbers; across the workspace every legacy status appears."""
    projects = (await legacy_client.get("/projects")).json()["projects"]
    statuses: set[object] = set()
    for project in projects:
        listed = await orders(legacy_client, path=f"/projects/{project['id']}/purchaseOrders")
        assert len(listed) >= 3
        assert all(str(o["purchaseOrderId"]).startswith("PO-") for o in listed)
        statuses |= {o["status"] for o in listed}
    assert statuses == {"draft", "approved", "rejected", "pending", "paid"}


async def test_items_and_contact_come_only_when_expanded(legacy_client: httpx.AsyncClient) -> None:
    """A plain list carries no items or contact; ``expands[]=items`` adds items whose totals make the amount,
    ``items.account`` adds each item's budget line, ``contact`` the vendor."""
    plain = await orders(legacy_client)
    assert not any("items" in o or "contact" in o for o in plain)
    expanded = await orders(legacy_client, {"expands[]": ["items.account", "contact"]})
    regular = [o for o in expanded if not str(o["purchaseOrderId"]).startswith("PO-DIRTY")]
    for order in regular:
        items = order["items"]
        assert items
        assert math.isclose(sum(i["totalPrice"] for i in items), float(str(order["amount"])), abs_tol=0.005)
        coded = [i for i in items if i["accountId"] is not None]
        assert all(i["account"]["accountId"] == i["accountId"] for i in coded)
    assert any("contact" in o for o in expanded)
    spelled = await orders(legacy_client, {"expands[]": "purchaseOrderItems"})
    assert all("items" in o for o in spelled)


async def test_the_dirty_orders_are_ones_v1_cannot_express(legacy_client: httpx.AsyncClient) -> None:
    """--dirty: one order's items miss its amount, another has no items at all."""
    by_number = {o["purchaseOrderId"]: o for o in await orders(legacy_client, {"expands[]": "items"})}
    off = by_number["PO-DIRTY-SUM"]
    assert sum(i["totalPrice"] for i in off["items"]) != off["amount"]
    assert by_number["PO-DIRTY-EMPTY"]["items"] == []


async def test_linked_actuals_name_their_order_both_ways(legacy_client: httpx.AsyncClient) -> None:
    """``expands[]=actuals`` lists the actuals whose purchaseOrderId names the order, and only those."""
    linked = {a["id"]: a["purchaseOrderId"] for a in (await legacy_client.get(P + "/actuals")).json()["actuals"]}
    expanded = await orders(legacy_client, {"expands[]": "actuals"})
    from_orders = {a["id"]: o["id"] for o in expanded for a in o["actuals"]}
    assert from_orders
    assert from_orders == {actual: order for actual, order in linked.items() if order is not None}


async def test_the_list_filters(legacy_client: httpx.AsyncClient) -> None:
    """status (repeatable), the date window on the order's date, accountId (a code takes the lines beneath it)
    and hasAttachments each narrow the list as published."""
    everything = await orders(legacy_client, {"expands[]": "items"})
    chosen = {"draft", "rejected"}
    by_status = await orders(legacy_client, {"status": sorted(chosen)})
    assert {o["id"] for o in by_status} == {o["id"] for o in everything if o["status"] in chosen}
    dates = sorted(str(o["date"]) for o in everything)
    window = await orders(legacy_client, {"startDate": dates[1], "endDate": dates[-2]})
    assert {o["id"] for o in window} == {o["id"] for o in everything if dates[1] <= str(o["date"]) <= dates[-2]}
    assert len(window) == len(everything) - 2
    code = next(i["accountId"] for o in everything for i in o["items"] if i["accountId"])
    top = str(code)[:1] + "000"
    under = await orders(legacy_client, {"accountId": top})
    assert any(o["id"] for o in under)
    assert {o["id"] for o in under} == {
        o["id"] for o in everything if any(str(i["accountId"] or "").startswith(top[:1]) for i in o["items"])
    }
    with_files = await orders(legacy_client, {"hasAttachments": "true"})
    assert {o["id"] for o in with_files} == {o["id"] for o in everything if o["attachments"]} != set()
    without = await orders(legacy_client, {"hasAttachments": "false"})
    assert {o["id"] for o in without} == {o["id"] for o in everything if not o["attachments"]} != set()


@pytest.mark.parametrize(("name", "value"), [("status", "void"), ("startDate", "31/01/2026"), ("hasAttachments", "y")])
async def test_a_filter_outside_its_published_type_is_400(
    legacy_client: httpx.AsyncClient, name: str, value: str
) -> None:
    """A status outside the legacy enum, a bare date and a non-boolean are refused, naming the parameter."""
    response = await legacy_client.get(POS, params={name: value})
    assert response.status_code == 400
    assert response.json()["details"]["field"] == name


async def test_an_order_is_read_by_id_or_number(legacy_client: httpx.AsyncClient) -> None:
    """getPurchaseOrder takes the id or the purchase order number; an unknown one is 404."""
    first = (await orders(legacy_client))[0]
    by_id = (await legacy_client.get(f"{POS}/{first['id']}")).json()
    by_number = (await legacy_client.get(f"{POS}/{first['purchaseOrderId']}")).json()
    assert by_id == by_number == first
    assert (await legacy_client.get(f"{POS}/PO-NOPE")).status_code == 404


async def test_a_rehearsal_creates_updates_and_deletes_an_order(legacy_client: httpx.AsyncClient) -> None:
    """Create under a chosen id (items by code, the amount defaulting to their totals when left out; the seed's
    example spellings too), update its status, delete it: 201, 200, 204, then 404."""
    contact = (await legacy_client.get("/contacts")).json()["contacts"][0]["id"]
    body = {
        "number": "PO-REHEARSAL",
        "vendor": contact,
        "date": "2026-03-20T14:30:00Z",
        "items": [
            {"description": "Lights", "quantity": 4, "unitPrice": 500, "totalPrice": 2000, "accountId": "2200"},
            {"description": "Gels", "amount": 125.5, "lineItemId": "2200"},
        ],
    }
    made = await legacy_client.post(f"{POS}/po-rehearsal", json=body)
    assert made.status_code == 201, made.text
    shown = (await legacy_client.get(f"{POS}/po-rehearsal", params={"expands[]": ["items", "contact"]})).json()
    assert (shown["amount"], shown["paidAmount"], shown["status"]) == (2125.5, 0, "draft")
    prices = [(i["quantity"], i["unitPrice"], i["totalPrice"]) for i in shown["items"]]
    assert prices == [(4, 500, 2000), (1, 125.5, 125.5)]
    assert shown["contact"]["id"] == contact
    assert (await legacy_client.post(f"{POS}/po-rehearsal", json=body)).status_code == 409
    changed = await legacy_client.put(f"{POS}/PO-REHEARSAL", json={"status": "approved", "title": "Lighting"})
    assert (changed.json()["status"], changed.json()["title"]) == ("approved", "Lighting")
    assert (await legacy_client.delete(f"{POS}/po-rehearsal")).status_code == 204
    assert (await legacy_client.get(f"{POS}/po-rehearsal")).status_code == 404


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"title": "no amount, no items"}, "amount"),
        ({"amount": 10, "status": "void"}, "status"),
        ({"amount": 10, "items": [{"description": "x"}]}, "items[0].totalPrice"),
        ({"amount": 10, "items": [{"totalPrice": 1, "accountId": "9999"}]}, "items[0].accountId"),
        ({"amount": 10, "contactId": "con_missing"}, "contactId"),
    ],
)
async def test_a_create_the_description_refuses_is_400(
    legacy_client: httpx.AsyncClient, body: dict[str, object], field: str
) -> None:
    """No amount (and no items to sum), a status outside the enum, an item without a price, an unknown account
    or contact: 400 naming the field, and nothing is created."""
    response = await legacy_client.post(f"{POS}/po-refused", json=body)
    assert (response.status_code, response.json()["details"]["field"]) == (400, field)
    assert (await legacy_client.get(f"{POS}/po-refused")).status_code == 404


async def test_deleting_an_order_unlinks_its_actuals(legacy_client: httpx.AsyncClient) -> None:
    """The actuals that named a deleted order name none afterwards."""
    linked = next(o for o in await orders(legacy_client, {"expands[]": "actuals"}) if o["actuals"])
    assert (await legacy_client.delete(f"{POS}/{linked['id']}")).status_code == 204
    actuals = (await legacy_client.get(P + "/actuals")).json()["actuals"]
    assert not any(a["purchaseOrderId"] == linked["id"] for a in actuals)
