"""v1 library (workspace items, project copies, packs, incentives) and transactions over HTTP."""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import Any

import httpx
import pytest

pytestmark = pytest.mark.anyio
_keys = itertools.count()


def key() -> dict[str, str]:
    return {"Idempotency-Key": f"library-key-{next(_keys):08d}"}


# A created or listed resource as parsed JSON, untyped like every other body these tests read.
Resource = dict[str, Any]


async def post(client: httpx.AsyncClient, url: str, body: Mapping[str, object], status: int = 201) -> Resource:
    response = await client.post(url, json=body, headers=key())
    assert response.status_code == status, response.text
    result: Resource = response.json()
    return result


async def project_with_line(client: httpx.AsyncClient) -> tuple[str, str, str]:
    """A project id, its estimate phase id and one line under an account."""
    project = await post(client, "/projects", {"name": "Library"})
    pid, phase = str(project["id"]), str(project["defaultBudget"]["estimatePhaseId"])
    account = await post(
        client, f"/projects/{pid}/budget/lines", {"description": "A", "type": "account", "accountId": "1"}
    )
    line = await post(client, f"/projects/{pid}/budget/lines", {"description": "L", "parentId": account["id"]})
    return pid, phase, str(line["id"])


async def test_project_fringe_copy_is_independent_and_drives_totals(v1_client: httpx.AsyncClient) -> None:
    """A project copy of a workspace fringe can be edited without changing the source, and totals use the copy."""
    pid, phase, line = await project_with_line(v1_client)
    source = await post(v1_client, "/library/fringes", {"name": "FICA", "calculationType": "percent", "rate": 10})
    copy = await post(v1_client, f"/projects/{pid}/library/fringes", {"sourceId": source["id"]})
    again = await v1_client.post(f"/projects/{pid}/library/fringes", json={"sourceId": source["id"]})
    assert (again.status_code, again.json()["id"]) == (200, copy["id"])
    edited = await v1_client.patch(f"/projects/{pid}/library/fringes/{copy['id']}", json={"rate": 20})
    assert edited.json()["rate"] == 20
    assert (await v1_client.get(f"/library/fringes/{source['id']}")).json()["rate"] == 10
    data = {"rate": 100, "quantity": 1, "fringeIds": [copy["id"]]}
    assert (
        await v1_client.put(f"/projects/{pid}/budget/lines/{line}/phase-data/{phase}", json=data)
    ).status_code == 200
    totals = (await v1_client.get(f"/projects/{pid}/budget/totals")).json()["totals"][phase]
    assert (totals["base"], totals["fringe"], totals["amount"]) == (10000, 2000, 12000)


async def test_unknown_library_kind_and_bad_tag_colour_are_refused(v1_client: httpx.AsyncClient) -> None:
    """An unknown collection is 404; a tag colour outside TagColor is 400 and creates nothing."""
    assert (await v1_client.get("/library/widgets")).status_code == 404
    bad = await v1_client.post("/library/tags", json={"name": "Night", "color": "#112233"}, headers=key())
    assert (bad.status_code, bad.json()["code"]) == (400, "validation")
    assert (await v1_client.get("/library/tags")).json()["data"] == []


async def test_incentive_add_is_repeat_safe_and_expands_source(v1_client: httpx.AsyncClient) -> None:
    """A program of an enabled pack is added once; expand=source returns the program."""
    pid, _, _ = await project_with_line(v1_client)
    refused = await v1_client.post(f"/projects/{pid}/library/incentives", json={"programId": "inc_ga_base"})
    assert refused.status_code == 400
    assert (await v1_client.post("/library/incentive-packs/inp_georgia/enablement")).json()["isEnabled"] is True
    first = await v1_client.post(f"/projects/{pid}/library/incentives", json={"programId": "inc_ga_base"})
    second = await v1_client.post(f"/projects/{pid}/library/incentives", json={"programId": "inc_ga_base"})
    assert (first.status_code, second.status_code) == (201, 200)
    assert first.json()["id"] == second.json()["id"]
    listed = (await v1_client.get(f"/projects/{pid}/library/incentives", params={"expand": "source"})).json()["data"]
    assert [i["source"]["id"] for i in listed] == ["inc_ga_base"]


async def test_transactions_bulk_feeds_the_actual_phase(v1_client: httpx.AsyncClient) -> None:
    """Bulk transactions coded to a line appear in the actual phase's totals and in the list."""
    pid, _, line = await project_with_line(v1_client)
    actual = await post(v1_client, f"/projects/{pid}/budget/phases", {"name": "Actual", "type": "actual"})
    rows = [
        {"type": "Invoice", "amount": {"amount": cents, "currency": "USD"}, "timestamp": f"2026-01-0{n}T00:00:00Z"}
        | {"projectId": pid, "budgetLineId": line, "description": f"T{n}"}
        for n, cents in ((1, 12345), (2, 655))
    ]
    made = await post(v1_client, "/transactions/bulk", {"transactions": rows})
    assert [t["amount"]["amount"] for t in made["data"]] == [12345, 655]
    totals = (await v1_client.get(f"/projects/{pid}/budget/totals", params={"phase": "actual"})).json()
    assert totals["totals"][actual["id"]]["amount"] == 13000
    listed = (await v1_client.get("/transactions", params={"projectId": pid, "limit": 1})).json()
    assert len(listed["data"]) == 1
    assert listed["nextCursor"]


async def test_transaction_bulk_with_a_bad_entry_creates_nothing(v1_client: httpx.AsyncClient) -> None:
    """A bulk whose second entry codes to an unknown line is refused and the first is not kept."""
    pid, _, _ = await project_with_line(v1_client)
    good = {"type": "Cash", "amount": {"amount": 100, "currency": "USD"}, "timestamp": "2026-01-01", "projectId": pid}
    bad = good | {"budgetLineId": "lin_missing"}
    response = await v1_client.post("/transactions/bulk", json={"transactions": [good, bad]}, headers=key())
    assert response.status_code == 422
    assert (await v1_client.get("/transactions")).json()["data"] == []


async def test_transaction_items_split_the_transaction(v1_client: httpx.AsyncClient) -> None:
    """Items added to a transaction are listed on it; a replayed item add creates no second item."""
    pid, _, line = await project_with_line(v1_client)
    body = {"type": "Check", "amount": {"amount": 1000, "currency": "USD"}, "timestamp": "2026-02-01", "projectId": pid}
    txn = await post(v1_client, "/transactions", body)
    item_key = {"Idempotency-Key": "item-key-000000000001"}
    item = {"amount": {"amount": 600, "currency": "USD"}, "budgetLineId": line}
    for _ in range(2):
        assert (
            await v1_client.post(f"/transactions/{txn['id']}/items", json=item, headers=item_key)
        ).status_code == 201
    read = (await v1_client.get(f"/transactions/{txn['id']}")).json()
    assert [i["amount"]["amount"] for i in read["items"]] == [600]
    assert read["isItemized"] is True


async def test_transaction_items_keep_their_tags(v1_client: httpx.AsyncClient) -> None:
    """An item's tagIds are kept and read back, survive a later item and a PATCH; an unknown tag is 422."""
    pid, _, line = await project_with_line(v1_client)
    tag = await post(v1_client, "/library/tags", {"name": "Union"})
    body = {"type": "Check", "amount": {"amount": 1000, "currency": "USD"}, "timestamp": "2026-02-01", "projectId": pid}
    txn = await post(v1_client, "/transactions", body)
    items = f"/transactions/{txn['id']}/items"
    first = await post(v1_client, items, {"amount": {"amount": 600, "currency": "USD"}, "tagIds": [tag["id"]]})
    assert first["tagIds"] == [tag["id"]]
    await post(v1_client, items, {"amount": {"amount": 400, "currency": "USD"}, "budgetLineId": line})
    unknown = await v1_client.post(
        items, json={"amount": {"amount": 1, "currency": "USD"}, "tagIds": ["tag_missing"]}, headers=key()
    )
    assert unknown.status_code == 422
    assert (await v1_client.patch(f"/transactions/{txn['id']}", json={"notes": "checked"})).status_code == 200
    read = (await v1_client.get(f"/transactions/{txn['id']}")).json()
    assert [i["tagIds"] for i in read["items"]] == [[tag["id"]], []]


async def test_a_project_copy_of_a_global_holds_every_value_of_its_source(v1_client: httpx.AsyncClient) -> None:
    """Adding a workspace global to a project copies its formula, description and unit (the copy starts as the
    workspace item, "restore workspace values" brings them back)."""
    project = await post(v1_client, "/projects", {"name": "Copies"})
    body = {"symbol": "SHOOT_DAYS", "formula": "40", "description": "Principal", "unit": "Day"}
    source = await post(v1_client, "/library/globals", body)
    copy = await post(v1_client, f"/projects/{project['id']}/library/globals", {"sourceId": source["id"]})
    assert {name: copy[name] for name in body} == body
