"""Legacy actuals: the inclusive date window, filters, totalAmount, writes, splits and the batch."""

from __future__ import annotations

import math
from datetime import date

import httpx
import pytest

from bridge.emulator.app import create_app
from bridge.emulator.core.seed import seeded_service
from bridge.emulator.core.store import Service

pytestmark = pytest.mark.anyio

A = "/projects/cold-open/actuals"


async def test_the_date_window_is_inclusive_and_total_amount_sums_the_page(legacy_client: httpx.AsyncClient) -> None:
    """startDate/endDate (date-times) keep actuals at both bounds' instants; totalAmount sums the listed amounts."""
    everything = (await legacy_client.get(A)).json()
    stamps = sorted({a["date"] for a in everything["actuals"]})
    start, end = stamps[3], stamps[10]
    window = (await legacy_client.get(A, params={"startDate": start, "endDate": end})).json()
    expected = [a for a in everything["actuals"] if start <= a["date"] <= end]
    assert {a["id"] for a in window["actuals"]} == {a["id"] for a in expected}
    assert {start, end} <= {a["date"] for a in window["actuals"]}
    assert math.isclose(window["totalAmount"], sum(a["amount"] for a in expected), abs_tol=0.005)
    day = start[:10]
    whole_day = {"startDate": f"{day}T00:00:00Z", "endDate": f"{day}T23:59:59.999999Z"}
    on_day = (await legacy_client.get(A, params=whole_day)).json()["actuals"]
    assert {a["id"] for a in on_day} == {a["id"] for a in everything["actuals"] if a["date"][:10] == day}


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("startDate", "31/01/2026"),  # a date, but not ISO 8601
        ("endDate", "2026-01-31T23:59:59"),  # a date-time needs its zone
        ("startDate", "yesterday"),
        ("hasAssignedAccount", "maybe"),
        ("idMode", "database"),
    ],
)
async def test_a_declared_parameter_outside_its_type_is_refused(
    legacy_client: httpx.AsyncClient, name: str, value: str
) -> None:
    """400 with the legacy error body naming the parameter, as the published description refuses it."""
    answer = await legacy_client.get(A, params={name: value})
    assert answer.status_code == 400
    body = answer.json()
    assert isinstance(body["error"], str)
    assert body["details"]["field"] == name


async def test_undeclared_parameters_are_ignored(legacy_client: httpx.AsyncClient) -> None:
    """A parameter the operation does not declare changes nothing, even one another operation declares."""
    everything = (await legacy_client.get(A)).json()
    ignored = await legacy_client.get(A, params={"includeHiddenPhases": "nonsense", "date": "2024-03-14"})
    assert ignored.status_code == 200
    assert ignored.json() == everything
    phases = (await legacy_client.get("/projects/cold-open/budget/phases")).json()
    shown = (await legacy_client.get("/projects/cold-open/budget/phases", params={"includeHiddenPhases": "x"})).json()
    assert shown == phases


async def test_actuals_filter_by_line_and_assignment(legacy_client: httpx.AsyncClient) -> None:
    """accountId (a line id in system mode) keeps actuals coded to that line, split parts included."""
    actuals = (await legacy_client.get(A, params={"idMode": "system"})).json()["actuals"]
    split = next(a for a in actuals if a["subactuals"])
    line = split["subactuals"][0]["accountId"]
    coded = (await legacy_client.get(A, params={"idMode": "system", "accountId": line})).json()["actuals"]
    assert split["id"] in {a["id"] for a in coded}
    assert all(a["accountId"] == line or any(p["accountId"] == line for p in a["subactuals"]) for a in coded)
    expanded = (await legacy_client.get(A, params={"expands[]": ["account", "contact"]})).json()["actuals"]
    coded = next(a for a in expanded if a["accountId"])
    assert coded["account"]["accountId"] == coded["accountId"]
    assert all(a["contact"]["id"] == a["contactId"] for a in expanded if a["contactId"])
    unassigned = (await legacy_client.get(A, params={"hasAssignedAccount": "false"})).json()["actuals"]
    assert unassigned == []


async def test_an_actual_is_created_read_split_and_deleted(legacy_client: httpx.AsyncClient) -> None:
    """POST (201) by account code, POST with a chosen id, PUT a split of {lineItemId, amount}, DELETE (204)."""
    lines = (await legacy_client.get("/projects/cold-open/budget", params={"idMode": "system"})).json()
    line_ids = [line["id"] for acc in lines["subAccounts"].values() for line in acc["lines"] if line["type"] == "line"]
    created = await legacy_client.post(
        A,
        json={
            "description": "Lens rental",
            "amount": 1250.5,
            "date": "2026-05-01",
            "accountId": "2201",
            "type": "Invoice",
        },
    )
    assert created.status_code == 201, created.text
    assert (created.json()["amount"], created.json()["accountId"]) == (1250.5, "2201")
    chosen = await legacy_client.post(f"{A}/legacy-42", json={"description": "Chosen", "amount": 10})
    assert chosen.status_code == 201
    assert chosen.json()["id"] == "legacy-42"
    assert (await legacy_client.post(f"{A}/legacy-42", json={"description": "Again", "amount": 1})).status_code == 409
    split = await legacy_client.put(
        f"{A}/legacy-42",
        json={
            "expanded": True,
            "subActuals": [{"lineItemId": line_ids[0], "amount": 4}, {"lineItemId": line_ids[1], "amount": 6}],
        },
    )
    assert split.json()["mode"] == "split"
    assert [p["amount"] for p in split.json()["subactuals"]] == [4, 6]
    assert (await legacy_client.get(f"{A}/legacy-42")).json()["description"] == "Chosen"
    assert (await legacy_client.delete(f"{A}/legacy-42")).status_code == 204
    assert (await legacy_client.get(f"{A}/legacy-42")).status_code == 404
    bad = await legacy_client.post(A, json={"description": "x", "amount": "1,000.00"})
    assert bad.status_code == 400
    assert "amount" in bad.json()["error"]


async def test_a_batch_reports_its_summary_and_can_replace(legacy_client: httpx.AsyncClient) -> None:
    """The batch counts inserted, deleted, errors, processed and received; replace empties the project first."""
    before = len((await legacy_client.get(A)).json()["actuals"])
    batch = [{"description": f"Item {i}", "amount": i + 0.25, "date": str(date(2026, 6, i + 1))} for i in range(5)]
    response = await legacy_client.post(f"{A}/batch", json={"actuals": [*batch, {"amount": 3}]})
    assert response.json()["summary"] == {"inserted": 5, "deleted": 0, "errors": 1, "processed": 6, "received": 6}
    replaced = await legacy_client.post(f"{A}/batch", json={"replace": True, "actuals": batch[:2]})
    assert replaced.json()["summary"]["deleted"] == before + 5
    assert len((await legacy_client.get(A)).json()["actuals"]) == 2
    too_many = await legacy_client.post(f"{A}/batch", json={"actuals": [{"description": "x"}] * 5001})
    assert too_many.status_code == 413


async def test_dirty_records_reach_the_client_as_stored(emulator_service: Service) -> None:
    """With the dirty catalogue, NaN and '1,000.00' amounts and orphan accounts are served, not hidden."""
    service = seeded_service(42, "small", dirty=True, hostile=True)
    app = create_app(service, legacy_key="k")
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://e/api/v1", headers={"X-API-Key": "k"}) as client:
        actuals = {a["id"]: a for a in (await client.get("/projects/night-harbor/actuals")).json()["actuals"]}
        catalogue = service.dirty_catalogue
        assert math.isnan(actuals[catalogue["amount_nan"].record_id]["amount"])
        assert actuals[catalogue["amount_thousands_separator"].record_id]["amount"] == "1,000.00"
        budget = (await client.get("/projects/night-harbor/budget", params={"idMode": "system"})).json()
        assert catalogue["parent_cycle"].record_id in budget["subAccounts"]
        assert catalogue["missing_parent"].record_id in budget["subAccounts"]
        # Text in a number cell is served where the published shape puts text: rateFormula, the number null (A44).
        expanded = await client.get(
            "/projects/night-harbor/budget", params={"idMode": "system", "expands[]": "lines.phaseData"}
        )
        lines = {line["id"]: line for acc in expanded.json()["subAccounts"].values() for line in acc["lines"]}
        (cell,) = lines[catalogue["rate_malformed"].record_id]["phaseData"].values()
        assert (cell["rate"], cell["rateFormula"], cell["quantity"]) == (None, "1,000.00", 1)
        assert "quantityFormula" not in cell
    assert emulator_service.dirty_catalogue == {}
