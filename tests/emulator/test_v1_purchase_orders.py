"""v1 purchase orders: drafts made under a key with items (amount = their sum), the list's filters, the
published status rules and transitions, links to transactions, the timeline and the items. Every answer is
held to its published shape by the fixture."""

from __future__ import annotations

import itertools
from typing import Any

import httpx
import pytest

from tests.emulator.documented_codes import produced

pytestmark = pytest.mark.anyio
_keys = itertools.count()
PO = "/purchase-orders"


def key() -> dict[str, str]:
    return {"Idempotency-Key": f"purchase-order-{next(_keys):08d}"}


async def ok(response: httpx.Response, status: int = 200) -> dict[str, Any]:
    assert response.status_code == status, response.text
    body: dict[str, Any] = response.json()  # parsed JSON, untyped like every body these tests read
    return body


@pytest.fixture
async def world(v1_client: httpx.AsyncClient) -> dict[str, str]:
    """A project with a line, a vendor and two transactions in it."""
    project = await ok(await v1_client.post("/projects", json={"name": "Orders"}, headers=key()), 201)
    pid = project["id"]
    account = await ok(
        await v1_client.post(
            f"/projects/{pid}/budget/lines", json={"description": "A", "type": "account"}, headers=key()
        ),
        201,
    )
    line = await ok(
        await v1_client.post(
            f"/projects/{pid}/budget/lines", json={"description": "L", "parentId": account["id"]}, headers=key()
        ),
        201,
    )
    vendor = await ok(await v1_client.post("/contacts", json={"name": "Rentals", "type": "vendor"}, headers=key()), 201)
    txns = []
    for cents in (40000, 2500):
        body = {
            "projectId": pid,
            "type": "Invoice",
            "amount": {"amount": cents, "currency": "USD"},
            "timestamp": "2026-02-01",
        }
        txns.append((await ok(await v1_client.post("/transactions", json=body, headers=key()), 201))["id"])
    return {"pid": pid, "line": line["id"], "vendor": vendor["id"], "txn": txns[0], "txn2": txns[1]}


async def draft(client: httpx.AsyncClient, world: dict[str, str], **fields: object) -> dict[str, Any]:
    body = {
        "projectId": world["pid"],
        "number": "PO-0042",
        "name": "Camera package",
        "contactId": world["vendor"],
        "items": [
            {"description": "Body", "qty": "5", "unit": "day", "rate": "25000", "budgetLineId": world["line"]},
            {"description": "Lenses", "amount": 2900},
        ],
    } | fields
    return await ok(await client.post(PO, json=body, headers=key()), 201)


async def decide(control: httpx.AsyncClient, order: str, status: str) -> None:
    response = await control.post(f"/purchase-orders/{order}/decision", json={"status": status})
    assert response.status_code == 200, response.text


async def test_a_draft_is_made_with_its_items_and_the_amount_is_their_sum(
    v1_client: httpx.AsyncClient, world: dict[str, str]
) -> None:
    """Created a draft in the project's currency by the token's user; an item without an amount is qty x rate
    (rate in minor units), the order's amount the sum of its items."""
    order = await draft(v1_client, world)
    assert (order["status"], order["currency"], order["amount"]) == (
        "draft",
        "USD",
        {"amount": 127900, "currency": "USD"},
    )
    assert order["createdById"]
    assert "items" not in order
    read = await ok(await v1_client.get(f"{PO}/{order['id']}", params={"expand": "items,contact,budgetLine"}))
    assert [(i["qty"], i["rate"], i["amount"], i["sort"]) for i in read["items"]] == [
        ("5", "25000", 125000, "1000"),
        (None, None, 2900, "2000"),
    ]
    assert read["contact"]["displayName"] == "Rentals"
    assert read["summary"]["amounts"]["ordered"] == {"amount": 127900, "currency": "USD"}
    assert read["budgetLine"] is None


async def test_a_replayed_create_returns_the_first_and_a_different_body_is_409(
    v1_client: httpx.AsyncClient, world: dict[str, str]
) -> None:
    """The same key and body replay the first answer (marked), without a second order; another body is 409."""
    headers = key()
    body = {"projectId": world["pid"], "number": "PO-7"}
    first = await v1_client.post(PO, json=body, headers=headers)
    again = await v1_client.post(PO, json=body, headers=headers)
    assert (first.status_code, again.status_code) == (201, 201)
    assert again.json() == first.json()
    assert again.headers["Idempotency-Replayed"] == "true"
    other = await v1_client.post(PO, json=body | {"number": "PO-8"}, headers=headers)
    assert (other.status_code, other.json()["code"]) == (409, "idempotency_conflict")
    produced(409, "idempotency_conflict")
    listed = await ok(await v1_client.get(PO, params={"withCount": "true"}))
    assert listed["count"] == 1


async def test_the_list_filters_by_exact_number_project_status_and_more(
    v1_client: httpx.AsyncClient, world: dict[str, str]
) -> None:
    """number matches exactly; projectId (id, slug or none), status, contactId, budgetLineId and q narrow;
    withCount counts; expand=items,transactions inlines."""
    first = await draft(v1_client, world)
    await draft(v1_client, world, number="PO-00421", name="Grip", contactId=world["vendor"], items=[])
    loose = await ok(await v1_client.post(PO, json={"number": "PO-LOOSE"}, headers=key()), 201)
    await ok(await v1_client.post(f"{PO}/{first['id']}/submit", headers=key()))

    async def numbers(**params: str) -> list[str]:
        page = await ok(await v1_client.get(PO, params=params))
        return [o["number"] for o in page["data"]]

    assert await numbers(number="PO-0042") == ["PO-0042"]
    assert await numbers(projectId=world["pid"]) == ["PO-0042", "PO-00421"]
    assert await numbers(projectId="none") == ["PO-LOOSE"]
    assert await numbers(status="pending") == ["PO-0042"]
    assert await numbers(budgetLineId=world["line"]) == ["PO-0042"]
    assert await numbers(q="grip") == ["PO-00421"]
    assert await numbers(sort="number", order="desc") == ["PO-LOOSE", "PO-00421", "PO-0042"]
    counted = await ok(await v1_client.get(PO, params={"contactId": world["vendor"], "withCount": "true"}))
    assert counted["count"] == 2
    expanded = await ok(await v1_client.get(PO, params={"expand": "items,transactions", "number": "PO-0042"}))
    assert (len(expanded["data"][0]["items"]), expanded["data"][0]["transactions"]) == (2, [])
    assert loose["projectId"] is None


@pytest.mark.parametrize(
    ("params", "code"),
    [
        ({"status": "cancelled"}, "validation"),
        ({"sort": "amount"}, "validation"),
        ({"expand": "vendor"}, "expand_invalid"),
    ],
)
async def test_a_list_parameter_outside_its_published_type_is_400(
    v1_client: httpx.AsyncClient, params: dict[str, str], code: str
) -> None:
    """A status or sort outside its enum and an unknown expand key are refused."""
    response = await v1_client.get(PO, params=params)
    assert (response.status_code, response.json()["code"]) == (400, code)


async def test_submit_cancel_and_the_approval_flow_move_the_status(
    v1_client: httpx.AsyncClient, control_client: httpx.AsyncClient, world: dict[str, str]
) -> None:
    """draft -submit-> pending -cancel-> draft -submit-> pending -(flow) rejected -submit-> pending -(flow)
    approved -(flow) actualizing -void-> void; each move is in the timeline, newest first."""
    order = (await draft(v1_client, world))["id"]
    one = f"{PO}/{order}"
    assert (await ok(await v1_client.post(f"{one}/submit", headers=key())))["status"] == "pending"
    assert (await ok(await v1_client.post(f"{one}/cancel-submission")))["status"] == "draft"
    await ok(await v1_client.post(f"{one}/submit", headers=key()))
    await decide(control_client, order, "rejected")
    assert (await ok(await v1_client.patch(one, json={"notes": "Net-45"})))["notes"] == "Net-45"
    await ok(await v1_client.post(f"{one}/submit", headers=key()))
    await decide(control_client, order, "approved")
    await decide(control_client, order, "actualizing")
    assert (await ok(await v1_client.post(f"{one}/void")))["status"] == "void"
    events = (await ok(await v1_client.get(f"{one}/timeline")))["data"]
    assert [e["type"] for e in events][:3] == ["voided", "status_changed", "approved"]
    assert events[-1]["type"] == "created"
    assert events[-1]["actor"]["id"]


@pytest.mark.parametrize(
    ("status", "call"),
    [
        ("pending", ("PATCH", "", {"name": "x"})),
        ("pending", ("DELETE", "", None)),
        ("pending", ("POST", "/items", {"description": "x"})),
        ("pending", ("POST", "/submit", None)),
        ("pending", ("POST", "/void", None)),
        ("approved", ("DELETE", "", None)),
        ("approved", ("POST", "/cancel-submission", None)),
        ("approved", ("POST", "/mark-paid", None)),
        ("draft", ("POST", "/cancel-submission", None)),
        ("draft", ("POST", "/void", None)),
        ("draft", ("POST", "/mark-paid", None)),
    ],
)
async def test_a_write_its_status_does_not_allow_is_409_po_invalid_status(
    v1_client: httpx.AsyncClient,
    control_client: httpx.AsyncClient,
    world: dict[str, str],
    status: str,
    call: tuple[str, str, object],
) -> None:
    """PATCH, item writes only on draft or rejected, delete only on draft, submit from draft or rejected,
    cancel-submission from pending, void and mark-paid from approved or actualizing (mark-paid with a linked
    transaction): anything else is 409 po_invalid_status and changes nothing."""
    order = (await draft(v1_client, world))["id"]
    if status != "draft":
        await ok(await v1_client.post(f"{PO}/{order}/submit", headers=key()))
    if status == "approved":
        await decide(control_client, order, "approved")
    before = await ok(await v1_client.get(f"{PO}/{order}"))
    method, path, body = call
    response = await v1_client.request(method, f"{PO}/{order}{path}", json=body, headers=key())
    assert (response.status_code, response.json()["code"]) == (409, "po_invalid_status"), response.text
    produced(409, "po_invalid_status")
    assert await ok(await v1_client.get(f"{PO}/{order}")) == before


async def test_links_to_transactions_and_mark_paid(
    v1_client: httpx.AsyncClient, control_client: httpx.AsyncClient, world: dict[str, str]
) -> None:
    """PUT links (again: no change), the transaction shows the order read-only; another order's link is 409
    already_linked; mark-paid needs a linked transaction; DELETE unlinks."""
    order = (await draft(v1_client, world))["id"]
    other = (await draft(v1_client, world, number="PO-OTHER"))["id"]
    link = f"{PO}/{order}/transactions/{world['txn']}"
    for _ in range(2):
        linked = await ok(await v1_client.put(link, params={"expand": "transactions"}))
        assert [t["id"] for t in linked["transactions"]] == [world["txn"]]
    txn = await ok(await v1_client.get(f"/transactions/{world['txn']}", params={"expand": "purchaseOrder"}))
    assert (txn["purchaseOrderId"], txn["purchaseOrder"]) == (order, {"id": order, "number": "PO-0042"})
    taken = await v1_client.put(f"{PO}/{other}/transactions/{world['txn']}")
    assert (taken.status_code, taken.json()["code"]) == (409, "already_linked")
    produced(409, "already_linked")
    await ok(await v1_client.post(f"{PO}/{other}/submit", headers=key()))
    await decide(control_client, other, "approved")
    unpaid = await v1_client.post(f"{PO}/{other}/mark-paid")
    assert (unpaid.status_code, unpaid.json()["code"]) == (409, "po_invalid_status")
    await ok(await v1_client.put(f"{PO}/{other}/transactions/{world['txn2']}"))
    summary = (await ok(await v1_client.get(f"{PO}/{other}")))["summary"]["amounts"]
    assert summary["actualized"] == {"amount": 2500, "currency": "USD"}
    assert (await ok(await v1_client.post(f"{PO}/{other}/mark-paid")))["status"] == "paid"
    again = await v1_client.post(f"{PO}/{other}/mark-paid")
    assert (again.status_code, again.json()["code"]) == (409, "po_invalid_status")
    unlinked = await ok(await v1_client.delete(link, params={"expand": "transactions"}))
    assert unlinked["transactions"] == []
    assert (await ok(await v1_client.get(f"/transactions/{world['txn']}")))["purchaseOrderId"] is None
    assert (await v1_client.delete(link)).status_code == 404
    produced(404, "not_found")


async def test_items_are_listed_added_changed_and_removed_on_a_draft(
    v1_client: httpx.AsyncClient, world: dict[str, str]
) -> None:
    """createItem (keyed) appends, a new qty recomputes the default amount, delete removes; the order's
    amount follows its items."""
    order = await draft(v1_client, world, items=[])
    items = f"{PO}/{order['id']}/items"
    added = await ok(await v1_client.post(items, json={"qty": "2", "rate": "1050"}, headers=key()), 201)
    assert added["amount"] == 2100
    changed = await ok(await v1_client.patch(f"{items}/{added['id']}", json={"qty": "3"}))
    assert changed["amount"] == 3150
    assert (await ok(await v1_client.get(f"{PO}/{order['id']}")))["amount"]["amount"] == 3150
    assert [i["id"] for i in (await ok(await v1_client.get(items)))["data"]] == [added["id"]]
    assert (await v1_client.delete(f"{items}/{added['id']}")).status_code == 204
    assert (await ok(await v1_client.get(items)))["data"] == []
    assert (await v1_client.delete(f"{items}/{added['id']}")).status_code == 404


async def test_a_deleted_draft_is_gone_but_listed_with_include_deleted(
    v1_client: httpx.AsyncClient, world: dict[str, str]
) -> None:
    """DELETE answers 204; the order is 404 after, and listed again only with includeDeleted=true."""
    order = (await draft(v1_client, world))["id"]
    assert (await v1_client.delete(f"{PO}/{order}")).status_code == 204
    assert (await v1_client.get(f"{PO}/{order}")).status_code == 404
    assert (await ok(await v1_client.get(PO)))["data"] == []
    assert [o["id"] for o in (await ok(await v1_client.get(PO, params={"includeDeleted": "true"})))["data"]] == [order]


@pytest.mark.parametrize(
    "body",
    [
        {"projectId": "prj_missing"},
        {"contactId": "con_missing"},
        {"items": [{"budgetLineId": "lin_missing"}]},
    ],
)
async def test_a_create_naming_what_does_not_exist_is_422(
    v1_client: httpx.AsyncClient, body: dict[str, object]
) -> None:
    """A well-formed create whose project, vendor or item line is not there: 422, nothing made."""
    response = await v1_client.post(PO, json=body, headers=key())
    assert (response.status_code, response.json()["code"]) == (422, "validation"), response.text
    produced(422, None)
    assert (await ok(await v1_client.get(PO)))["data"] == []


async def test_the_approval_hook_refuses_a_move_the_flow_cannot_make(
    v1_client: httpx.AsyncClient, control_client: httpx.AsyncClient, world: dict[str, str]
) -> None:
    """Approving a draft is 409, an unknown status 400, an unknown order 404."""
    order = (await draft(v1_client, world))["id"]
    decision = f"/purchase-orders/{order}/decision"
    assert (await control_client.post(decision, json={"status": "approved"})).status_code == 409
    assert (await control_client.post(decision, json={"status": "void"})).status_code == 400
    missing = await control_client.post("/purchase-orders/po_missing/decision", json={"status": "approved"})
    assert missing.status_code == 404
