"""Legacy budget surface: the budget document, its filters, line writes, accounts, phases, fringes, globals, tags."""

from __future__ import annotations

import math
from typing import Any

import httpx
import pytest

pytestmark = pytest.mark.anyio

P = "/projects/night-harbor"


# The budget document as parsed JSON, untyped like every other body these tests read: its shape is what they assert.
Document = dict[str, Any]


async def _budget(client: httpx.AsyncClient, **params: str | list[str]) -> Document:
    response = await client.get(f"{P}/budget", params=params)
    assert response.status_code == 200, response.text
    body: Document = response.json()
    return body


def _leaf_lines(budget: Document) -> list[Document]:
    accounts = budget["subAccounts"]
    assert isinstance(accounts, dict)
    return [line for account in accounts.values() for line in account["lines"] if line["type"] == "line"]


async def test_the_budget_document_has_the_documented_shape(legacy_client: httpx.AsyncClient) -> None:
    """{account, subAccounts, phases?} with accounts {id, accountId, description, path, lines, totals}."""
    budget = await _budget(legacy_client, **{"expands[]": ["phases", "fringes", "globals"]})
    assert set(budget) == {"account", "subAccounts", "phases", "fringes", "globals"}
    root = budget["account"]
    assert isinstance(root, dict)
    assert root["path"] == "/"
    assert [line["accountId"] for line in root["lines"] if line["type"] == "account"] == [
        "1000",
        "2000",
        "3000",
        "4000",
    ]
    account = budget["subAccounts"]["/1000/1100"]
    assert set(account) >= {"id", "accountId", "description", "path", "lines", "totals"}
    phase_keys = [p["alias"] for p in budget["phases"]]
    assert "committed" not in phase_keys  # hidden unless includeHiddenPhases
    assert set(root["totals"]) == set(phase_keys)


async def test_an_account_total_is_the_sum_of_its_lines_as_served(legacy_client: httpx.AsyncClient) -> None:
    """Over HTTP, each account's totals equal the sum of its non-subtotal lines (floats within a cent)."""
    budget = await _budget(legacy_client, includeHiddenPhases="true")
    for account in budget["subAccounts"].values():
        for phase, total in account["totals"].items():
            summed = sum(line["totals"][phase] for line in account["lines"] if line["type"] != "subtotal")
            assert math.isclose(total, summed, abs_tol=0.005)


async def test_system_mode_lines_carry_what_the_bridge_needs(legacy_client: httpx.AsyncClient) -> None:
    """idMode=system + lines.phaseData: ids, codes, paths, tag names, phaseData and totals keyed by phase id."""
    budget = await _budget(
        legacy_client, idMode="system", includeHiddenPhases="true", **{"expands[]": "lines.phaseData"}
    )
    phases = {
        p["id"] for p in (await legacy_client.get(f"{P}/budget/phases", params={"idMode": "system"})).json()["phases"]
    }
    lines = _leaf_lines(budget)
    assert lines
    for line in lines:
        assert line["id"].startswith("lin_")
        assert line["path"].startswith("/")
        assert set(line["totals"]) == phases
        assert set(line["phaseData"]) <= phases
        assert isinstance(line["tags"], list)
    data = next(
        d for line in lines for d in line["phaseData"].values() if d.get("fringes") and d.get("quantityFormula")
    )
    assert all(f.startswith("frg_") for f in data["fringes"])
    # The published LinePhaseData: the formula's text in quantityFormula, its value a number in quantity (A44).
    assert data["quantityFormula"].startswith("=")
    assert isinstance(data["quantity"], int | float)
    for key, account in budget["subAccounts"].items():
        assert key == account["id"]
        assert account["parentId"] is None or account["parentId"].startswith("lin_")


async def test_budget_filters_select_accounts_phases_and_tags(legacy_client: httpx.AsyncClient) -> None:
    """accountId narrows the document, phaseId narrows the totals, tags/tagFilterMode filter lines."""
    camera = await _budget(legacy_client, accountId="2200", excludeSubAccounts="true")
    assert camera["account"]["accountId"] == "2200"
    assert camera["subAccounts"] == {}
    narrowed = await _budget(legacy_client, phaseId="estimate,variance")
    assert set(narrowed["account"]["totals"]) == {"estimate", "variance"}
    tagged = _leaf_lines(await _budget(legacy_client, tags="VFX"))
    untagged = _leaf_lines(await _budget(legacy_client, tags="VFX", tagFilterMode="excludes"))
    everything = _leaf_lines(await _budget(legacy_client))
    assert tagged
    assert all("VFX" in line["tags"] for line in tagged)
    assert all("VFX" not in line["tags"] for line in untagged)
    assert len(tagged) + len(untagged) == len(everything)
    assert (await legacy_client.get(f"{P}/budget", params={"tagFilterMode": "maybe"})).status_code == 400


async def test_lines_are_added_under_an_account_or_root_and_edited(legacy_client: httpx.AsyncClient) -> None:
    """POST lines (201) under a code or root; GET/PUT the line; a global change moves its total; DELETE (204)."""
    created = await legacy_client.post(
        f"{P}/budget",
        json={
            "accountId": "2200",
            "lines": [
                {
                    "type": "line",
                    "accountId": "2299",
                    "description": "Drone package",
                    "phaseData": {"estimate": {"quantity": "=SHOOT_DAYS", "rate": 450.125, "fringes": ["FICA"]}},
                }
            ],
            "insert": {"mode": "prepend"},
        },
    )
    assert created.status_code == 201, created.text
    line = created.json()["account"]["lines"][0]
    assert line["phaseData"]["estimate"]["fringes"] == ["FICA"]
    before = line["totals"]["estimate"]
    await legacy_client.put(f"{P}/budget/globals/SHOOT_DAYS", json={"formula": "50"})
    after = (await legacy_client.get(f"{P}/budget/line/{line['id']}")).json()["totals"]["estimate"]
    assert after > before
    updated = await legacy_client.put(f"{P}/budget/line/{line['id']}", json={"description": "Drone + pilot"})
    assert updated.json()["description"] == "Drone + pilot"
    top = await legacy_client.post(
        f"{P}/budget",
        json={"accountId": "root", "lines": [{"type": "account", "accountId": "5000", "description": "Fees"}]},
    )
    assert top.status_code == 201
    assert (await legacy_client.delete(f"{P}/budget/line/{line['id']}")).status_code == 204
    assert (await legacy_client.get(f"{P}/budget/line/{line['id']}")).status_code == 404
    missing = await legacy_client.post(f"{P}/budget", json={"accountId": "8888", "lines": [{"description": "x"}]})
    assert missing.status_code == 404


async def test_the_accounts_list_puts_parents_before_children(legacy_client: httpx.AsyncClient) -> None:
    """Every account's parent appears earlier in the list."""
    accounts = (await legacy_client.get(f"{P}/budget/accounts", params={"idMode": "system"})).json()["accounts"]
    seen: set[str] = set()
    for account in accounts:
        assert account["parentId"] is None or account["parentId"] in seen
        seen.add(account["id"])
    assert accounts[1]["path"].startswith(accounts[0]["path"])


async def test_phases_fringes_and_globals_have_crud(legacy_client: httpx.AsyncClient) -> None:
    """Create (201), read by name or code, update, delete (204) for phases, fringes and globals."""
    phases = (await legacy_client.get(f"{P}/budget/phases")).json()["phases"]
    variance = next(p for p in phases if p["type"] == "rollup")
    assert (variance["operation"], variance["phaseIds"]) == ("difference", ["working", "actual"])
    assert next(p for p in phases if p["name"] == "Tokyo unit")["currency"]["code"] == "JPY"
    created = await legacy_client.post(
        f"{P}/budget/phases",
        json={"name": "Total", "type": "rollup", "operation": "sum", "phaseIds": ["estimate", "working"]},
    )
    assert created.status_code == 201
    assert created.json()["phase"]["phaseIds"] == ["estimate", "working"]
    assert (await legacy_client.put(f"{P}/budget/phases/Total", json={"isHidden": True})).json()["isHidden"] is True
    assert (await legacy_client.delete(f"{P}/budget/phases/total")).status_code == 204

    fringe = await legacy_client.post(f"{P}/budget/fringes", json={"code": "WC", "units": "percent", "rate": 2.5})
    assert fringe.status_code == 201
    assert (await legacy_client.put(f"{P}/budget/fringes/WC", json={"cutoff": 10000})).json()["cutoff"] == 10000
    assert (
        await legacy_client.post(f"{P}/budget/fringes", json={"code": "X", "units": "weekly", "rate": 1})
    ).status_code == 400
    assert (await legacy_client.delete(f"{P}/budget/fringes/WC")).status_code == 204

    made = await legacy_client.post(f"{P}/budget/globals", json={"symbol": "OT", "formula": "SHOOT_DAYS * 0.1"})
    assert made.status_code == 201
    assert (await legacy_client.get(f"{P}/budget/globals/OT")).json()["formula"] == "SHOOT_DAYS * 0.1"
    cyclic = await legacy_client.put(f"{P}/budget/globals/SHOOT_DAYS", json={"formula": "OT * 2"})
    assert cyclic.status_code == 400
    assert (await legacy_client.delete(f"{P}/budget/globals/OT")).status_code == 204


async def test_tags_list_sort_create_conflict_and_totals(legacy_client: httpx.AsyncClient) -> None:
    """Tags filter by name, sort either way, refuse duplicates with 409 and carry their totals."""
    names = [t["name"] for t in (await legacy_client.get(f"{P}/tags", params={"sortOrder": "desc"})).json()["tags"]]
    assert names == sorted(names, key=str.casefold, reverse=True)
    found = (await legacy_client.get(f"{P}/tags", params={"name": "night"})).json()["tags"]
    assert [t["id"] for t in found] == ["Night shoot"]
    vfx = (await legacy_client.get(f"{P}/tags/VFX")).json()
    assert vfx["totals"]["phaseTotals"]["estimate"] > 0
    assert set(vfx["totals"]) == {"phaseTotals", "fringeTotals", "actualTotal"}
    created = await legacy_client.post(f"{P}/tags", json={"name": "Reshoot", "color": "#112233"})
    assert created.status_code == 201
    assert created.json()["id"] == "Reshoot"
    assert (await legacy_client.post(f"{P}/tags", json={"name": "Reshoot"})).status_code == 409
    assert (await legacy_client.post(f"{P}/tags", json={"name": "x" * 101})).status_code == 400
    assert (await legacy_client.get(f"{P}/tags/Nope")).status_code == 404
