"""The emulator's v1 answers keep the published response shapes, and the check that says so can fail.

The v1 fixtures hold every answer to ``bridge.emulator.v1.contract`` (``tests/v1_contract_hook.py``), so the
tour below fails at the first answer that misses a required field, carries a null the description does not
allow or adds a field to a closed shape.
"""

from __future__ import annotations

import itertools
from typing import Any

import httpx
import pytest

from bridge.emulator.core.model import Contact
from bridge.emulator.v1 import purchase_order_shapes as po_shapes
from bridge.emulator.v1 import shapes as v1_shapes
from tests.v1_contract_hook import ContractViolationError, violations

pytestmark = pytest.mark.anyio
_keys = itertools.count()


def key() -> dict[str, str]:
    return {"Idempotency-Key": f"contract-key-{next(_keys):08d}"}


async def created(client: httpx.AsyncClient, url: str, body: dict[str, object]) -> dict[str, Any]:
    response = await client.post(url, json=body, headers=key())
    assert response.status_code == 201, response.text
    result: dict[str, Any] = response.json()  # parsed JSON, untyped like every body these tests read
    return result


async def test_a_tour_of_every_served_resource_keeps_the_published_shapes(v1_client: httpx.AsyncClient) -> None:
    """Identity, spaces, projects, contacts, budget, lines, phase data, tags, transactions, items and webhooks
    all answer in their published shapes (the fixture's contract hook checks each answer)."""
    assert (await v1_client.get("/me")).status_code == 200
    await created(v1_client, "/spaces", {"name": "Features"})
    project = await created(v1_client, "/projects", {"name": "Contract"})
    pid, phase = project["id"], project["defaultBudget"]["estimatePhaseId"]
    tag = await created(v1_client, "/library/tags", {"name": "Crew"})
    contact = await created(v1_client, "/contacts", {"name": "Ada", "type": "vendor", "email": "ada@example.com"})
    account = await created(
        v1_client, f"/projects/{pid}/budget/lines", {"description": "A", "type": "account", "accountId": "1000"}
    )
    lines = await created(
        v1_client,
        f"/projects/{pid}/budget/lines/bulk",
        {
            "lines": [
                {
                    "description": "Camera",
                    "parentId": account["id"],
                    "contactId": contact["id"],
                    "phaseData": {phase: {"rate": 100, "quantity": 2}},
                },
                {"description": "Fee", "type": "markup", "parentId": account["id"], "phaseData": {phase: {"rate": 5}}},
            ]
        },
    )
    line_id = lines["data"][0]["id"]
    put = await v1_client.put(f"/projects/{pid}/budget/lines/{line_id}/phase-data/{phase}", json={"rate": 120})
    assert put.status_code == 200, put.text
    for query in ("", "?accountId=1000", "?path=1000"):
        assert (await v1_client.get(f"/projects/{pid}/budget{query}")).status_code == 200
        assert (await v1_client.get(f"/projects/{pid}/budget/totals{query}")).status_code == 200
    expanded = await v1_client.get(f"/projects/{pid}/budget/lines?expand=phaseData,phaseTotals,contact&withCount=true")
    assert expanded.json()["count"] == 3
    assert (await v1_client.get(f"/projects/{pid}/budget/phases")).status_code == 200
    contacts = await v1_client.get("/contacts?withCount=true")
    assert contacts.json()["count"] == 1
    amount = {"amount": 500, "currency": "USD"}
    txn = await created(
        v1_client, "/transactions", {"projectId": pid, "type": "Cash", "amount": amount, "timestamp": "2026-01-02"}
    )
    await created(
        v1_client,
        f"/transactions/{txn['id']}/items",
        {"amount": amount, "budgetLineId": line_id, "tagIds": [tag["id"]]},
    )
    items = (await v1_client.get(f"/transactions/{txn['id']}/items")).json()["data"]
    assert [(i["tagIds"], [t["name"] for t in i["tags"]]) for i in items] == [([tag["id"]], ["Crew"])]
    assert (await v1_client.get("/transactions?withCount=true")).json()["count"] == 1


async def test_webhook_subscriptions_are_listed_read_changed_and_deleted(v1_client: httpx.AsyncClient) -> None:
    """A subscription is listed and read without its secret, paused with PATCH, and a repeated delete is 204."""
    hook = await created(v1_client, "/webhooks", {"url": "https://hooks.example.com/in", "events": ["budget.changed"]})
    assert str(hook["secret"]).startswith("whsec_")
    listed = (await v1_client.get("/webhooks?events=budget.changed&withCount=true")).json()
    assert [h["id"] for h in listed["data"]] == [hook["id"]]
    assert listed["count"] == 1
    assert "secret" not in (await v1_client.get(f"/webhooks/{hook['id']}")).json()
    paused = await v1_client.patch(f"/webhooks/{hook['id']}", json={"isActive": False})
    assert paused.json()["isActive"] is False
    assert (await v1_client.get("/webhooks?active=true")).json()["data"] == []
    assert (await v1_client.patch(f"/webhooks/{hook['id']}", json={})).status_code == 400
    for _ in range(2):
        assert (await v1_client.delete(f"/webhooks/{hook['id']}")).status_code == 204
    assert (await v1_client.get(f"/webhooks/{hook['id']}")).status_code == 404


async def test_an_answer_missing_a_required_field_fails_the_test(
    v1_client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With a contact shaped without its required track1099, the contract hook refuses the answer."""
    shaped = v1_shapes.contact

    def without_track1099(item: Contact, currency: str) -> dict[str, object]:
        body = shaped(item, currency)
        del body["track1099"]
        return body

    monkeypatch.setattr(v1_shapes, "contact", without_track1099)
    with pytest.raises(ContractViolationError, match=r"POST /contacts -> 201: track1099: Field required"):
        await v1_client.post("/contacts", json={"name": "Ada"}, headers=key())


@pytest.mark.parametrize(
    ("body", "found"),
    [
        ({"id": "usr_1", "type": "user", "workspaces": []}, []),
        ({"id": "usr_1", "type": "user", "email": "a@wsp_x.example", "workspaces": []}, ["email"]),
        ({"id": "usr_1", "type": "robot", "workspaces": []}, ["type"]),
        ({"id": "usr_1", "type": "user", "workspaces": [], "extra": 1}, ["extra"]),
        ({"type": "user", "workspaces": []}, ["id"]),
    ],
)
def test_violations_name_the_field(body: dict[str, object], found: list[str]) -> None:
    """A bad email, a value outside an enum, an unpublished field and a missing one are each named."""
    request = httpx.Request("GET", "http://emulator/v1/me")
    problems = violations(httpx.Response(200, json=body, request=request))
    assert [p.split(": ")[1] for p in problems] == found


def test_an_error_code_outside_the_published_enum_is_a_violation() -> None:
    """An error body whose code the description does not publish breaks the Error shape."""
    request = httpx.Request("GET", "http://emulator/v1/projects/p")
    body = {"success": False, "code": "reference_invalid", "message": "m", "requestId": "req_1"}
    assert violations(httpx.Response(422, json=body, request=request))


async def test_a_purchase_order_answer_without_its_currency_fails_the_test(
    v1_client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The purchase-order operations are held to their published shapes too: without the required currency,
    the create's answer is refused."""
    shaped = po_shapes.order_view

    def without_currency(*args: Any, **kwargs: Any) -> dict[str, object]:
        body = shaped(*args, **kwargs)
        del body["currency"]
        return body

    monkeypatch.setattr(po_shapes, "order_view", without_currency)
    with pytest.raises(ContractViolationError, match=r"POST /purchase-orders -> 201: currency: Field required"):
        await v1_client.post("/purchase-orders", json={"number": "PO-1"}, headers=key())


COMMENT = {
    "id": "cmt_1",
    "projectId": "prj_1",
    "author": {"id": "usr_1", "name": "Sam", "avatar": None},
    "content": "x",
    "resolved": False,
    "tags": [],
    "reactions": [],
    "replyCount": 0,
    "readByCurrentUser": True,
    "edited": False,
    "createdAt": "2026-05-21T14:00:00Z",
    "updatedAt": "2026-05-21T14:00:00Z",
}
PACK: dict[str, object] = {"id": "rpk_1", "slug": "s", "name": "n", "category": "custom", "visibility": "private"}
PACK |= {"isOwned": True, "deprecated": False, "enabled": True}


@pytest.mark.parametrize(
    ("method", "path", "body", "found"),
    [
        ("PATCH", "/projects/p/comments/c", COMMENT, []),
        ("PATCH", "/projects/p/comments/c", COMMENT | {"target": {"kind": "space", "id": "x"}}, ["target/kind"]),
        ("PATCH", "/projects/p/comments/c", {k: v for k, v in COMMENT.items() if k != "author"}, ["author"]),
        ("GET", "/library/rate-packs/r", PACK, []),
        ("GET", "/library/rate-packs/r", PACK | {"visibility": "PRIVATE"}, ["visibility"]),
        ("GET", "/library/rate-packs/r", PACK | {"isEnabled": True}, ["isEnabled"]),
        (
            "PATCH",
            "/library/rate-packs/r/items/i",
            {"id": "i", "title": "t", "rate": {"amount": 1, "currency": "USD"}},
            ["unit"],
        ),
    ],
)
def test_comment_and_rate_pack_violations_name_the_field(
    method: str, path: str, body: dict[str, object], found: list[str]
) -> None:
    """A comment target outside its kinds, a missing author, a pack visibility outside its enum, an unpublished
    pack field and an item without its unit are each named."""
    request = httpx.Request(method, f"http://emulator/v1{path}")
    problems = violations(httpx.Response(200, json=body, request=request))
    assert [p.split(": ")[1] for p in problems] == found
