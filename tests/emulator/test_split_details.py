"""Split parts' line label, quantity, unit and rate, and contacts' private fields, on both surfaces: seeded
without disturbing any other record, served in the published shapes (the fixtures' contract hooks check every
answer), written and read back."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

import httpx
import pytest

from bridge.emulator.core import seed as seed_module
from bridge.emulator.core.seed import canonical_dump, seeded_fleet, seeded_service
from bridge.emulator.core.store import Service

pytestmark = pytest.mark.anyio
PAIRS = (("source", "target"), ("second", "second_target"))
DETAILS = ("line_number", "quantity", "unit", "rate")
PRIVATE = ("phone", "address", "tax_id_last4")


def _without_details(service: Service) -> list[object]:
    """Every workspace as canonical JSON with the parts' details and the contacts' private fields taken out."""

    def strip(value: object) -> None:
        if isinstance(value, dict):
            for name in DETAILS if "subactuals" not in value and "line_number" in value else ():
                value.pop(name)
            for item in value.values():
                strip(item)
        elif isinstance(value, list):
            for item in value:
                strip(item)

    dumped: list[object] = []
    for workspace in service.workspaces.values():
        plain = json.loads(canonical_dump(workspace))
        for contact in plain["contacts"].values():
            for name in PRIVATE:
                contact.pop(name)
        strip(plain)
        dumped.append(plain)
    return dumped


@pytest.mark.parametrize("dirty", [False, True])
def test_drawing_the_details_leaves_every_other_record_as_it_was(monkeypatch: pytest.MonkeyPatch, dirty: bool) -> None:
    """A fleet seeded with the details and one seeded without them are the same in everything else."""
    with_details = seeded_fleet(PAIRS, 42, "small", dirty=dirty, hostile=dirty, target_library=True)
    monkeypatch.setattr(seed_module, "add_details", lambda *args: None)
    without = seeded_fleet(PAIRS, 42, "small", dirty=dirty, hostile=dirty, target_library=True)
    assert _without_details(with_details) == _without_details(without)


def test_the_seed_holds_parts_with_and_without_each_detail_and_contacts_with_private_fields() -> None:
    source = seeded_service(42, "small").workspace("source")
    parts = [part for p in source.projects.values() for a in p.actuals.values() for part in a.subactuals]
    assert any(part.line_number is None for part in parts)
    assert any(part.quantity is not None and part.rate is not None and part.unit for part in parts)
    assert any(part.line_number and part.quantity is None for part in parts)
    assert any(part.quantity is not None and part.rate is None for part in parts)
    whole = [p for p in parts if p.quantity is not None and p.rate is not None]
    assert all(Decimal(str(p.quantity)) * Decimal(str(p.rate)) == p.amount for p in whole)
    contacts = list(source.contacts.values())
    assert any(c.phone and c.address for c in contacts)
    assert any(c.phone is None for c in contacts)
    assert any(c.tax_id_last4 for c in contacts)


async def test_legacy_parts_name_their_label_apart_from_their_coding(legacy_client: httpx.AsyncClient) -> None:
    """``lineId`` is the part's own label and ``accountId`` its budget line; quantity, unit and rate are numbers
    and text, left out when unset (the description publishes no null for them)."""
    seen: list[dict[str, Any]] = []
    for project in (await legacy_client.get("/projects")).json()["projects"]:
        actuals = (await legacy_client.get(f"/projects/{project['id']}/actuals")).json()["actuals"]
        seen += [part for actual in actuals for part in actual.get("subactuals") or []]
    labelled = [part for part in seen if part["lineId"] is not None]
    assert labelled
    assert all(part["lineId"].startswith("A-") for part in labelled)
    assert all(part["accountId"] for part in seen)
    assert any({"quantity", "unit", "rate"} <= part.keys() for part in seen)
    assert any("quantity" not in part for part in seen)
    assert all(None not in (part.get("quantity", 0), part.get("unit", ""), part.get("rate", 0)) for part in seen)


async def test_a_legacy_split_written_with_details_reads_back(legacy_client: httpx.AsyncClient) -> None:
    project = (await legacy_client.get("/projects")).json()["projects"][0]["id"]
    budget = (await legacy_client.get(f"/projects/{project}/budget", params={"idMode": "system"})).json()
    line = next(line for account in budget["subAccounts"].values() for line in account["lines"])["id"]
    part = {"number": "SA-001", "amount": 1400, "accountId": line, "quantity": 2, "unit": "Day", "rate": 700}
    body = {"description": "Camera", "amount": 1400, "date": "2026-01-05T00:00:00Z", "subActuals": [part]}
    made = await legacy_client.post(f"/projects/{project}/actuals", json=body)
    assert made.status_code in (200, 201), made.text
    actual_id = made.json()["actual"]["id"] if "actual" in made.json() else made.json()["id"]
    read = (await legacy_client.get(f"/projects/{project}/actuals/{actual_id}", params={"idMode": "system"})).json()
    read_part = (read.get("actual") or read)["subactuals"][0]
    assert (read_part["lineId"], read_part["accountId"]) == ("SA-001", line)
    assert (read_part["quantity"], read_part["unit"], read_part["rate"]) == (2, "Day", 700)
    bad = await legacy_client.post(
        f"/projects/{project}/actuals", json={**body, "subActuals": [{**part, "unit": "Fortnight"}]}
    )
    assert bad.status_code == 400


async def test_legacy_contacts_hold_secure_info_only_when_expanded(legacy_client: httpx.AsyncClient) -> None:
    plain = (await legacy_client.get("/contacts")).json()["contacts"]
    assert all("secureInfo" not in contact for contact in plain)
    expanded = (await legacy_client.get("/contacts", params={"expands[]": "secureInfo"})).json()["contacts"]
    infos = [contact["secureInfo"] for contact in expanded]
    assert any(info["phone"] and info["address"] for info in infos)
    assert any(info["phone"] is None for info in infos)
    one = expanded[0]["id"]
    alone = (await legacy_client.get(f"/contacts/{one}", params={"expands[]": "secureInfo"})).json()
    assert (alone.get("contact") or alone)["secureInfo"] == expanded[0]["secureInfo"]


async def test_v1_items_take_and_return_line_number_quantity_unit_and_rate(v1_client: httpx.AsyncClient) -> None:
    """Created with all four, read back as sent; patched, the change shows; cleared with null, null."""
    project = await v1_client.post("/projects", json={"name": "Items"}, headers={"Idempotency-Key": "k" * 16})
    pid = project.json()["id"]
    amount = {"amount": 140000, "currency": "USD"}
    txn = await v1_client.post(
        "/transactions",
        json={"projectId": pid, "type": "Cash", "amount": amount, "timestamp": "2026-01-02"},
        headers={"Idempotency-Key": "t" * 16},
    )
    tid = txn.json()["id"]
    item_body = {"amount": amount, "lineNumber": "A-10", "qty": "2", "unit": "Day", "rate": "700.50"}
    item = await v1_client.post(f"/transactions/{tid}/items", json=item_body, headers={"Idempotency-Key": "i" * 16})
    assert item.status_code == 201, item.text
    made = item.json()
    assert (made["lineNumber"], made["qty"], made["unit"], made["rate"]) == ("A-10", "2", "Day", "700.50")
    patched = await v1_client.patch(f"/transactions/{tid}/items/{made['id']}", json={"qty": "3", "rate": None})
    assert (patched.json()["qty"], patched.json()["rate"]) == ("3", None)
    listed = (await v1_client.get(f"/transactions/{tid}")).json()["items"][0]
    assert (listed["lineNumber"], listed["qty"], listed["unit"], listed["rate"]) == ("A-10", "3", "Day", None)
    wrong = await v1_client.post(
        f"/transactions/{tid}/items", json={**item_body, "qty": 2}, headers={"Idempotency-Key": "j" * 16}
    )
    assert wrong.status_code == 400
