"""v1 transactions beyond create/list: delete, item edits, stats, expand, and the published status enum."""

from __future__ import annotations

import itertools

import httpx
import pytest

from bridge.emulator.control.state import EmulatorState

pytestmark = pytest.mark.anyio
_keys = itertools.count()


def key() -> dict[str, str]:
    return {"Idempotency-Key": f"txn-routes-key-{next(_keys):08d}"}


async def post(client: httpx.AsyncClient, url: str, body: dict[str, object]) -> dict[str, object]:
    response = await client.post(url, json=body, headers=key())
    assert response.status_code == 201, response.text
    result: dict[str, object] = response.json()
    return result


async def transaction(client: httpx.AsyncClient, **extra: object) -> tuple[str, str]:
    """A project id and one manual USD 100.00 transaction in it."""
    project = await post(client, "/projects", {"name": "Routes"})
    body = {"type": "Invoice", "amount": {"amount": 10000, "currency": "USD"}, "timestamp": "2026-03-01T10:00:00Z"}
    made = await post(client, "/transactions", {**body, "projectId": project["id"], **extra})
    return str(project["id"]), str(made["id"])


async def test_items_can_be_changed_and_removed_and_the_last_removal_unitemizes(v1_client: httpx.AsyncClient) -> None:
    _, txn = await transaction(v1_client)
    first = await post(v1_client, f"/transactions/{txn}/items", {"amount": {"amount": 6000, "currency": "USD"}})
    second = await post(v1_client, f"/transactions/{txn}/items", {"amount": {"amount": 4000, "currency": "USD"}})
    changed = await v1_client.patch(
        f"/transactions/{txn}/items/{first['id']}",
        json={"description": "Lens", "amount": {"amount": 6500, "currency": "USD"}},
    )
    assert changed.status_code == 200, changed.text
    assert (changed.json()["description"], changed.json()["amount"]["amount"]) == ("Lens", 6500)
    listed = (await v1_client.get(f"/transactions/{txn}/items")).json()["data"]
    assert [i["amount"]["amount"] for i in listed] == [6500, 4000]
    for item in (first, second):
        assert (await v1_client.delete(f"/transactions/{txn}/items/{item['id']}")).status_code == 204
    after = (await v1_client.get(f"/transactions/{txn}")).json()
    assert (after["isItemized"], after["items"]) == (False, [])
    missing = await v1_client.delete(f"/transactions/{txn}/items/{first['id']}")
    assert (missing.status_code, missing.json()["code"]) == (404, "not_found")


async def test_an_item_amount_in_another_currency_is_refused(v1_client: httpx.AsyncClient) -> None:
    _, txn = await transaction(v1_client)
    item = await post(v1_client, f"/transactions/{txn}/items", {"amount": {"amount": 100, "currency": "USD"}})
    wrong = await v1_client.patch(
        f"/transactions/{txn}/items/{item['id']}", json={"amount": {"amount": 100, "currency": "EUR"}}
    )
    assert wrong.status_code == 422


async def test_a_manual_transaction_deletes_and_a_feed_one_is_refused(
    v1_client: httpx.AsyncClient, emulator_state: EmulatorState
) -> None:
    pid, txn = await transaction(v1_client)
    assert (await v1_client.delete(f"/transactions/{txn}")).status_code == 204
    assert (await v1_client.get(f"/transactions/{txn}")).status_code == 404
    _, fed = await transaction(v1_client)
    workspace = emulator_state.service.workspace("target")
    project = next(p for p in emulator_state.service.list_projects(workspace) if fed in p.actuals)
    project.actuals[fed].source = "plaid"
    refused = await v1_client.delete(f"/transactions/{fed}")
    assert (refused.status_code, refused.json()["code"]) == (409, "source_not_postable")
    assert (await v1_client.get(f"/transactions/{fed}")).status_code == 200
    assert pid != project.id


async def test_stats_count_and_total_the_matching_transactions(v1_client: httpx.AsyncClient) -> None:
    pid, _ = await transaction(v1_client)
    body = {"type": "Cash", "amount": {"amount": 2550, "currency": "USD"}, "timestamp": "2026-03-02T00:00:00Z"}
    await post(v1_client, "/transactions", {**body, "projectId": pid, "status": "void"})
    stats = await v1_client.get("/transactions/stats", params={"projectId": pid, "currency": "USD"})
    assert stats.json() == {"total": 2, "amount": {"amount": 12550, "currency": "USD"}}
    posted = await v1_client.get("/transactions/stats", params={"projectId": pid, "currency": "USD", "status": "void"})
    assert posted.json() == {"total": 1, "amount": {"amount": 2550, "currency": "USD"}}
    without = await v1_client.get("/transactions/stats")
    assert (without.status_code, without.json()["code"]) == (400, "validation")


async def test_expand_inlines_the_contact_and_refuses_unknown_keys(v1_client: httpx.AsyncClient) -> None:
    contact = await post(v1_client, "/contacts", {"name": "Ava Rental"})
    _, txn = await transaction(v1_client, contactId=contact["id"])
    plain = (await v1_client.get(f"/transactions/{txn}")).json()
    assert "contact" not in plain
    expanded = (await v1_client.get(f"/transactions/{txn}", params={"expand": "contact,account"})).json()
    assert (expanded["contact"], expanded["account"]) == ({"id": contact["id"], "name": "Ava Rental"}, None)
    bad = await v1_client.get(f"/transactions/{txn}", params={"expand": "vendor"})
    assert (bad.status_code, bad.json()["code"]) == (400, "expand_invalid")
    listed = await v1_client.get("/transactions", params={"expand": "items.account.x"})
    assert (listed.status_code, listed.json()["code"]) == (400, "expand_invalid")


async def test_a_manual_transaction_takes_any_published_status(v1_client: httpx.AsyncClient) -> None:
    _, txn = await transaction(v1_client, status="unpaid")
    assert (await v1_client.get(f"/transactions/{txn}")).json()["status"] == "unpaid"
    changed = await v1_client.patch(f"/transactions/{txn}", json={"status": "needs_review"})
    assert changed.json()["status"] == "needs_review"
    bad = await v1_client.patch(f"/transactions/{txn}", json={"status": "lost"})
    assert bad.status_code == 400


async def test_the_workspace_wide_list_names_each_transactions_own_project(v1_client: httpx.AsyncClient) -> None:
    """Listed without a projectId, transactions of several projects each say the project they are in (the
    merged list once named the last project for every row)."""
    made = [await transaction(v1_client) for _ in range(3)]
    listed = (await v1_client.get("/transactions")).json()["data"]
    assert {(row["projectId"], row["id"]) for row in listed} == set(made)
