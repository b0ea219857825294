"""v1 contacts keep every documented field they accept; projects, contacts and lines honour `expand`."""

from __future__ import annotations

import itertools

import httpx
import pytest

pytestmark = pytest.mark.anyio
_keys = itertools.count()
DETAILS = {
    "phone": "+1 555 0100",
    "address": "1 Harbor Way, Oakland CA",
    "website": "https://ava.example",
    "instagram": "@ava_rentals",
    "imdb": "nm0000001",
    "notes": "Pays net 30",
}


async def post(client: httpx.AsyncClient, url: str, body: dict[str, object]) -> dict[str, object]:
    response = await client.post(url, json=body, headers={"Idempotency-Key": f"contacts-key-{next(_keys):08d}"})
    assert response.status_code == 201, response.text
    result: dict[str, object] = response.json()
    return result


async def test_a_contact_keeps_its_details_and_1099_flag(v1_client: httpx.AsyncClient) -> None:
    made = await post(v1_client, "/contacts", {"name": "Ava Rental", "track1099": True, **DETAILS})
    assert {k: made[k] for k in [*DETAILS, "track1099"]} == {**DETAILS, "track1099": True}
    changed = await v1_client.patch(f"/contacts/{made['id']}", json={"phone": "+1 555 0199", "track1099": False})
    read = (await v1_client.get(f"/contacts/{made['id']}")).json()
    assert changed.json() == read
    assert (read["phone"], read["notes"], read["track1099"]) == ("+1 555 0199", "Pays net 30", False)


async def test_a_contact_expands_its_transactions_and_documents(v1_client: httpx.AsyncClient) -> None:
    contact = await post(v1_client, "/contacts", {"name": "Grip Co"})
    project = await post(v1_client, "/projects", {"name": "Expand"})
    body = {"type": "Cash", "amount": {"amount": 1234, "currency": "USD"}, "timestamp": "2026-02-01T00:00:00Z"}
    txn = await post(v1_client, "/transactions", {**body, "projectId": project["id"], "contactId": contact["id"]})
    read = (await v1_client.get(f"/contacts/{contact['id']}", params={"expand": "transactions,documents"})).json()
    assert read["documents"] == []
    assert [(t["id"], t["amount"], t["projectId"]) for t in read["transactions"]] == [(txn["id"], 1234, project["id"])]
    bad = await v1_client.get("/contacts", params={"expand": "projects"})
    assert (bad.status_code, bad.json()["code"]) == (400, "expand_invalid")


async def test_a_project_expands_assumptions_to_null_without_a_brief(v1_client: httpx.AsyncClient) -> None:
    project = await post(v1_client, "/projects", {"name": "Brief"})
    plain = (await v1_client.get(f"/projects/{project['id']}")).json()
    assert "assumptions" not in plain
    expanded = (await v1_client.get(f"/projects/{project['id']}", params={"expand": "assumptions"})).json()
    assert expanded["assumptions"] is None
    listed = (await v1_client.get("/projects", params={"expand": "assumptions"})).json()["data"]
    assert [p["assumptions"] for p in listed] == [None]
    bad = await v1_client.get(f"/projects/{project['id']}/budget/lines", params={"expand": "notes"})
    assert (bad.status_code, bad.json()["code"]) == (400, "expand_invalid")
