"""The v1 budget over HTTP: projects come with an estimate phase, lines are written in bulk, totals follow."""

from __future__ import annotations

import itertools
from typing import Any

import httpx
import pytest

from tests.emulator.documented_codes import produced

pytestmark = pytest.mark.anyio
_keys = itertools.count()


def key() -> dict[str, str]:
    return {"Idempotency-Key": f"test-key-{next(_keys):08d}-xxxx"}


async def new_project(client: httpx.AsyncClient, name: str = "Pilot") -> dict[str, Any]:
    response = await client.post("/projects", json={"name": name}, headers=key())
    assert response.status_code == 201, response.text
    body: dict[str, Any] = response.json()  # parsed JSON, untyped like every body these tests read
    return body


async def account(client: httpx.AsyncClient, project_id: object, code: str, parent: str | None = None) -> str:
    body = {"description": f"Account {code}", "type": "account", "accountId": code}
    if parent is not None:  # parentId is an Id, never null: a top-level line omits it
        body["parentId"] = parent
    response = await client.post(f"/projects/{project_id}/budget/lines", json=body, headers=key())
    assert response.status_code == 201, response.text
    line_id: str = response.json()["id"]
    return line_id


async def test_new_project_has_default_budget_and_visible_estimate_phase(v1_client: httpx.AsyncClient) -> None:
    """A created project returns defaultBudget, and its estimate phase is listed."""
    project = await new_project(v1_client)
    default = project["defaultBudget"]
    assert isinstance(default, dict)
    phases = (await v1_client.get(f"/projects/{project['id']}/budget/phases")).json()["data"]
    assert [p["id"] for p in phases if p["type"] == "estimate"] == [default["estimatePhaseId"]]


async def test_bulk_create_returns_lines_in_order_and_totals_add_up(v1_client: httpx.AsyncClient) -> None:
    """Bulk lines come back in request order; the totals are their amounts in minor units."""
    project = await new_project(v1_client)
    pid, phase = project["id"], project["defaultBudget"]["estimatePhaseId"]
    parent = await account(v1_client, pid, "1000")
    lines = [
        {"description": f"Line {n}", "parentId": parent, "phaseData": {phase: {"rate": 12.5, "quantity": n}}}
        for n in range(1, 6)
    ]
    response = await v1_client.post(f"/projects/{pid}/budget/lines/bulk", json={"lines": lines}, headers=key())
    assert response.status_code == 201, response.text
    assert [line["description"] for line in response.json()["data"]] == [line["description"] for line in lines]
    totals = (await v1_client.get(f"/projects/{pid}/budget/totals")).json()
    expected_minor = sum(1250 * n for n in range(1, 6))
    assert totals["totals"][phase]["amount"] == expected_minor
    assert totals["totals"][phase]["combined"] == expected_minor
    assert totals["totals"][phase]["currency"] == "USD"
    assert "computedAt" in totals


async def test_bulk_with_one_bad_line_changes_nothing(v1_client: httpx.AsyncClient) -> None:
    """A bulk whose last entry names an unknown phase is refused with 422 and creates no line."""
    project = await new_project(v1_client)
    pid = project["id"]
    parent = await account(v1_client, pid, "2000")
    lines = [{"description": "ok", "parentId": parent}, {"description": "bad", "phaseData": {"phs_nope": {"rate": 1}}}]
    response = await v1_client.post(f"/projects/{pid}/budget/lines/bulk", json={"lines": lines}, headers=key())
    assert response.status_code == 422
    produced(422, None)
    listed = (await v1_client.get(f"/projects/{pid}/budget/lines", params={"withCount": "true"})).json()
    assert listed["count"] == 1


async def test_bulk_over_one_hundred_lines_is_400(v1_client: httpx.AsyncClient) -> None:
    """More than 100 lines in one bulk is over the published maxItems: 400 validation naming lines."""
    project = await new_project(v1_client)
    lines = [{"description": f"L{n}"} for n in range(101)]
    response = await v1_client.post(
        f"/projects/{project['id']}/budget/lines/bulk", json={"lines": lines}, headers=key()
    )
    assert (response.status_code, response.json()["code"]) == (400, "validation")
    assert list(response.json()["fieldErrors"]) == ["lines"]
    produced(400, "validation")


async def test_phase_data_bulk_is_all_or_nothing(v1_client: httpx.AsyncClient) -> None:
    """A phase-data bulk with one unknown line is 404 (the operation lists no 422) and changes nothing."""
    project = await new_project(v1_client)
    pid, phase = project["id"], project["defaultBudget"]["estimatePhaseId"]
    line = await account(v1_client, pid, "3000")
    items = [
        {"lineId": line, "phaseId": phase, "phaseData": {"rate": 99}},
        {"lineId": "lin_missing", "phaseId": phase, "phaseData": {"rate": 1}},
    ]
    url = f"/projects/{pid}/budget/lines/phase-data/bulk"
    assert (await v1_client.post(url, json={"items": items}, headers=key())).status_code == 404
    produced(404, "not_found")
    read = (await v1_client.get(f"/projects/{pid}/budget/lines/{line}", params={"expand": "phaseData"})).json()
    assert phase not in read["phaseData"]
    done = await v1_client.post(url, json={"items": items[:1]}, headers=key())
    assert done.status_code == 200
    assert done.json()["data"][0]["phaseData"]["rate"] == 99


async def test_budget_etag_gives_304_until_the_budget_changes(v1_client: httpx.AsyncClient) -> None:
    """If-None-Match with the last ETag gets 304; after a write the budget is served again."""
    project = await new_project(v1_client)
    pid = project["id"]
    first = await v1_client.get(f"/projects/{pid}/budget")
    assert first.status_code == 200
    assert first.headers["Cache-Control"]
    etag = first.headers["ETag"]
    assert (await v1_client.get(f"/projects/{pid}/budget", headers={"If-None-Match": etag})).status_code == 304
    produced(304, None)
    await account(v1_client, pid, "4000")
    assert (await v1_client.get(f"/projects/{pid}/budget", headers={"If-None-Match": etag})).status_code == 200


async def test_ambiguous_phase_selector_is_400_validation(v1_client: httpx.AsyncClient) -> None:
    """Two visible estimate phases make phase=estimate ambiguous."""
    project = await new_project(v1_client)
    pid = project["id"]
    created = await v1_client.post(
        f"/projects/{pid}/budget/phases", json={"name": "Working", "type": "estimate"}, headers=key()
    )
    assert created.status_code == 201
    response = await v1_client.get(f"/projects/{pid}/budget", params={"phase": "estimate"})
    assert response.status_code == 400
    assert response.json()["code"] == "validation"
    by_name = await v1_client.get(f"/projects/{pid}/budget", params={"phase": "Working"})
    assert [p["name"] for p in by_name.json()["phases"]] == ["Working"]


async def test_repeated_account_code_and_path_are_409(v1_client: httpx.AsyncClient) -> None:
    """A code on two lines selects nothing (account_code_ambiguous); so does a path two lines share."""
    project = await new_project(v1_client)
    pid = project["id"]
    await account(v1_client, pid, "5000")
    await account(v1_client, pid, "5000")
    by_code = await v1_client.get(f"/projects/{pid}/budget", params={"accountId": "5000"})
    assert (by_code.status_code, by_code.json()["code"]) == (409, "account_code_ambiguous")
    by_path = await v1_client.get(f"/projects/{pid}/budget/lines", params={"path": "5000"})
    assert (by_path.status_code, by_path.json()["code"]) == (409, "account_path_ambiguous")
    produced(409, "account_code_ambiguous")
    produced(409, "account_path_ambiguous")


async def test_patch_keeps_omitted_fields_and_delete_removes(v1_client: httpx.AsyncClient) -> None:
    """PATCH changes only what it names; DELETE makes the line 404."""
    project = await new_project(v1_client)
    pid = project["id"]
    line = await account(v1_client, pid, "6000")
    patched = await v1_client.patch(f"/projects/{pid}/budget/lines/{line}", json={"description": "Renamed"})
    assert (patched.json()["description"], patched.json()["accountId"]) == ("Renamed", "6000")
    assert (await v1_client.delete(f"/projects/{pid}/budget/lines/{line}")).status_code == 204
    gone = await v1_client.get(f"/projects/{pid}/budget/lines/{line}")
    assert (gone.status_code, gone.json()["code"]) == (404, "not_found")


async def test_lines_page_with_cursor_and_rejects_cursor_with_other_filters(v1_client: httpx.AsyncClient) -> None:
    """Paging with limit=2 visits every line once; the cursor used with another filter is cursor_invalid."""
    project = await new_project(v1_client)
    pid = project["id"]
    for code in ("7000", "7100", "7200"):
        await account(v1_client, pid, code)
    url = f"/projects/{pid}/budget/lines"
    first = (await v1_client.get(url, params={"limit": 2})).json()
    assert first["truncated"] is False
    second = (await v1_client.get(url, params={"limit": 2, "cursor": first["nextCursor"]})).json()
    assert [line["accountId"] for line in first["data"] + second["data"]] == ["7000", "7100", "7200"]
    assert second["nextCursor"] is None
    other = await v1_client.get(url, params={"limit": 2, "type": "line", "cursor": first["nextCursor"]})
    assert (other.status_code, other.json()["code"]) == (400, "cursor_invalid")
    produced(400, "cursor_invalid")
    assert (await v1_client.get(url, params={"limit": 101})).status_code == 400


async def test_budget_read_over_the_size_limit_is_413(
    v1_client: httpx.AsyncClient, control_client: httpx.AsyncClient
) -> None:
    """With the document limit set to one line, a two-line budget read is budget_too_large; a path read is not."""
    project = await new_project(v1_client)
    pid = project["id"]
    await account(v1_client, pid, "8000")
    await account(v1_client, pid, "8100")
    await control_client.post("/settings", json={"budgetLineLimit": 1})
    response = await v1_client.get(f"/projects/{pid}/budget")
    assert (response.status_code, response.json()["code"]) == (413, "budget_too_large")
    assert (await v1_client.get(f"/projects/{pid}/budget", params={"path": "8100"})).status_code == 200
    produced(413, None)
