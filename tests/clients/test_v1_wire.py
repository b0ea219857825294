"""The exact wire of every v1 call: method, path, query, headers and body, pinned with respx."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass

import httpx
import pytest
import respx

from bridge.clients.http import RunControls
from bridge.clients.v1 import V1Client, open_v1
from bridge.clients.v1_budget import LineFilter
from bridge.config import Secret

BASE = "https://svc.test/v1"
TOKEN = Secret("tok_wire_0123456789abcdefghij")
KEY = "key-0123456789abcdef"
LINE = {"id": "lin_1", "description": "Camera", "parentId": None}
PROJECT = {"id": "prj_1", "name": "Film", "defaultBudget": {"budgetId": "bud_1", "estimatePhaseId": "phs_1"}}
STAMP = "2024-03-01T00:00:00Z"
MONEY = {"amount": 1250, "currency": "USD"}


@dataclass(frozen=True)
class Wire:
    name: str
    call: Callable[[V1Client], Awaitable[object]]
    method: str
    path: str
    answer: object
    body: object = None
    query: tuple[tuple[str, str], ...] = ()
    keyed: bool = False
    status: int = 200


async def _collect(iterator: AsyncIterator[object]) -> list[object]:
    return [item async for item in iterator]


WIRES = [
    Wire("me", lambda c: c.me(), "GET", "/me", {"id": "usr_1", "workspaces": []}),
    Wire(
        "create_space",
        lambda c: c.create_space({"name": "Films"}, KEY),
        "POST",
        "/spaces",
        {"id": "spc_1", "name": "Films"},
        body={"name": "Films"},
        keyed=True,
        status=201,
    ),
    Wire(
        "patch_space",
        lambda c: c.patch_space("spc_1", {"archived": True}),
        "PATCH",
        "/spaces/spc_1",
        {"id": "spc_1", "name": "F", "archived": True},
        body={"archived": True},
    ),
    Wire(
        "create_project",
        lambda c: c.create_project({"name": "Film"}, KEY),
        "POST",
        "/projects",
        PROJECT,
        body={"name": "Film"},
        keyed=True,
        status=201,
    ),
    Wire(
        "patch_project",
        lambda c: c.patch_project("prj_1", {"status": "archived"}),
        "PATCH",
        "/projects/prj_1",
        PROJECT,
        body={"status": "archived"},
    ),
    Wire("get_project", lambda c: c.get_project("prj_1"), "GET", "/projects/prj_1", PROJECT),
    Wire(
        "create_contact",
        lambda c: c.create_contact({"name": "Ana"}, KEY),
        "POST",
        "/contacts",
        {"id": "con_1", "name": "Ana"},
        body={"name": "Ana"},
        keyed=True,
        status=201,
    ),
    Wire(
        "create_phase",
        lambda c: c.create_phase("prj_1", {"name": "Working", "type": "estimate"}, KEY),
        "POST",
        "/projects/prj_1/budget/phases",
        {"id": "phs_2", "name": "Working", "type": "estimate"},
        body={"name": "Working", "type": "estimate"},
        keyed=True,
        status=201,
    ),
    Wire(
        "patch_phase",
        lambda c: c.patch_phase("prj_1", "phs_2", {"isHidden": True}),
        "PATCH",
        "/projects/prj_1/budget/phases/phs_2",
        {"id": "phs_2", "name": "Working", "type": "estimate", "isHidden": True},
        body={"isHidden": True},
    ),
    Wire(
        "create_library_item",
        lambda c: c.create_library_item("fringes", {"name": "FICA", "calculationType": "percent", "rate": 7.65}, KEY),
        "POST",
        "/library/fringes",
        {"id": "frg_1"},
        body={"name": "FICA", "calculationType": "percent", "rate": 7.65},
        keyed=True,
        status=201,
    ),
    Wire(
        "patch_library_item",
        lambda c: c.patch_library_item("tags", "tag_1", {"color": "red"}),
        "PATCH",
        "/library/tags/tag_1",
        {"id": "tag_1"},
        body={"color": "red"},
    ),
    Wire(
        "add_project_copy",
        lambda c: c.add_project_copy("prj_1", "globals", "gbl_1"),
        "POST",
        "/projects/prj_1/library/globals",
        {"id": "gbl_9", "sourceId": "gbl_1"},
        body={"sourceId": "gbl_1"},
        status=201,
    ),
    Wire(
        "patch_project_copy",
        lambda c: c.patch_project_copy("prj_1", "fringes", "frg_9", {"rate": 6.2}),
        "PATCH",
        "/projects/prj_1/library/fringes/frg_9",
        {"id": "frg_9"},
        body={"rate": 6.2},
    ),
    Wire(
        "create_line",
        lambda c: c.create_line("prj_1", {"description": "Camera", "parentId": "lin_0"}, KEY),
        "POST",
        "/projects/prj_1/budget/lines",
        LINE,
        body={"description": "Camera", "parentId": "lin_0"},
        keyed=True,
        status=201,
    ),
    Wire(
        "create_lines",
        lambda c: c.create_lines("prj_1", [{"description": "A"}, {"description": "B"}], KEY),
        "POST",
        "/projects/prj_1/budget/lines/bulk",
        {"data": [LINE, {**LINE, "id": "lin_2"}]},
        body={"lines": [{"description": "A"}, {"description": "B"}]},
        keyed=True,
        status=201,
    ),
    Wire(
        "write_phase_data",
        lambda c: c.write_phase_data("prj_1", [{"lineId": "lin_1", "phaseId": "phs_1", "phaseData": {"rate": 5}}], KEY),
        "POST",
        "/projects/prj_1/budget/lines/phase-data/bulk",
        {"data": [{"lineId": "lin_1", "phaseId": "phs_1", "phaseData": {"rate": 5}}]},
        body={"items": [{"lineId": "lin_1", "phaseId": "phs_1", "phaseData": {"rate": 5}}]},
        keyed=True,
    ),
    Wire(
        "put_phase_data",
        lambda c: c.put_phase_data("prj_1", "lin_1", "phs_1", {"quantity": 2}),
        "PUT",
        "/projects/prj_1/budget/lines/lin_1/phase-data/phs_1",
        {"lineId": "lin_1", "phaseId": "phs_1", "phaseData": {"quantity": 2}},
        body={"quantity": 2},
    ),
    Wire(
        "get_line",
        lambda c: c.get_line("prj_1", "lin_1", expand=("phaseData", "contact")),
        "GET",
        "/projects/prj_1/budget/lines/lin_1",
        LINE,
        query=(("expand", "phaseData,contact"),),
    ),
    Wire(
        "patch_line",
        lambda c: c.patch_line("prj_1", "lin_1", {"contactId": "con_1"}),
        "PATCH",
        "/projects/prj_1/budget/lines/lin_1",
        LINE,
        body={"contactId": "con_1"},
    ),
    Wire(
        "delete_line",
        lambda c: c.delete_line("prj_1", "lin_1"),
        "DELETE",
        "/projects/prj_1/budget/lines/lin_1",
        None,
        status=204,
    ),
    Wire(
        "lines",
        lambda c: _collect(c.lines("prj_1", LineFilter(account_id="1100", tags=("tag_1", "tag_2"), types=("line",)))),
        "GET",
        "/projects/prj_1/budget/lines",
        {"data": [LINE], "nextCursor": None},
        query=(("accountId", "1100"), ("tags", "tag_1,tag_2"), ("type", "line"), ("limit", "100")),
    ),
    Wire(
        "create_transaction",
        lambda c: c.create_transaction({"type": "Invoice", "amount": MONEY, "timestamp": STAMP}, KEY),
        "POST",
        "/transactions",
        {"id": "txn_1", "amount": MONEY},
        body={"type": "Invoice", "amount": MONEY, "timestamp": STAMP},
        keyed=True,
        status=201,
    ),
    Wire(
        "create_transactions",
        lambda c: c.create_transactions([{"type": "Cash", "amount": MONEY, "timestamp": STAMP}], KEY),
        "POST",
        "/transactions/bulk",
        {"data": [{"id": "txn_1", "amount": MONEY}]},
        body={"transactions": [{"type": "Cash", "amount": MONEY, "timestamp": STAMP}]},
        keyed=True,
        status=201,
    ),
    Wire(
        "create_transaction_item",
        lambda c: c.create_transaction_item("txn_1", {"amount": MONEY, "budgetLineId": "lin_1"}, KEY),
        "POST",
        "/transactions/txn_1/items",
        {"id": "tit_1", "amount": MONEY},
        body={"amount": MONEY, "budgetLineId": "lin_1"},
        keyed=True,
        status=201,
    ),
    Wire(
        "transactions",
        lambda c: _collect(c.transactions("prj_1")),
        "GET",
        "/transactions",
        {"data": [{"id": "txn_1", "amount": MONEY}]},
        query=(("projectId", "prj_1"), ("limit", "100")),
    ),
    Wire(
        "totals",
        lambda c: c.totals("prj_1", phase="estimate", path="1100/1110"),
        "GET",
        "/projects/prj_1/budget/totals",
        {"computedAt": "2026-01-01T00:00:00Z", "totals": {"phs_1": {"amount": 5, "base": 5}}},
        query=(("path", "1100/1110"), ("phase", "estimate")),
    ),
    Wire(
        "budget",
        lambda c: c.budget("prj_1", account_id="1100"),
        "GET",
        "/projects/prj_1/budget",
        {"id": "bud_1", "phases": [], "lines": [LINE], "totals": {}},
        query=(("accountId", "1100"),),
    ),
]


@pytest.mark.anyio
@pytest.mark.parametrize("wire", WIRES, ids=[w.name for w in WIRES])
async def test_v1_call_sends_exactly_the_documented_request(wire: Wire, controls: RunControls) -> None:
    """Each call goes to its method and path with its query, bearer token, key (on creates) and body."""
    async with respx.mock(assert_all_called=True, using="bridge") as router:
        route = router.route(method=wire.method, url=f"{BASE}{wire.path}").mock(
            return_value=httpx.Response(wire.status, json=wire.answer)
            if wire.answer is not None
            else httpx.Response(204)
        )
        async with open_v1(BASE, TOKEN, controls) as client:
            await wire.call(client)
    request = route.calls.last.request
    assert tuple(request.url.params.multi_items()) == wire.query
    assert request.headers["Authorization"] == f"Bearer {TOKEN.reveal()}"
    assert request.headers.get("Idempotency-Key") == (KEY if wire.keyed else None)
    assert (json.loads(request.content) if request.content else None) == wire.body


@pytest.mark.anyio
async def test_write_surfaces_replay_flag_request_id_and_status(controls: RunControls) -> None:
    """A replayed create says so, with the requestId and status the service sent."""
    headers = {"Idempotency-Replayed": "true", "X-Request-Id": "req_7"}
    async with respx.mock(using="bridge") as router:
        router.post(f"{BASE}/projects").mock(return_value=httpx.Response(201, json=PROJECT, headers=headers))
        async with open_v1(BASE, TOKEN, controls) as client:
            result = await client.create_project({"name": "Film"}, KEY)
    assert result.replayed is True
    assert result.request_id == "req_7"
    assert result.status == 201
    assert result.value.default_budget is not None
    assert result.value.default_budget.estimate_phase_id == "phs_1"


@pytest.mark.anyio
async def test_budget_read_reuses_etag_and_304_returns_cached_body(controls: RunControls) -> None:
    """The second read of the same selection sends If-None-Match; a 304 hands back the first body."""
    document = {"id": "bud_1", "phases": [], "lines": [LINE], "totals": {}}
    async with respx.mock(using="bridge") as router:
        route = router.get(f"{BASE}/projects/prj_1/budget").mock(
            side_effect=[httpx.Response(200, json=document, headers={"ETag": '"v1"'}), httpx.Response(304)]
        )
        async with open_v1(BASE, TOKEN, controls) as client:
            first = await client.budget("prj_1")
            second = await client.budget("prj_1")
    assert "If-None-Match" not in route.calls[0].request.headers
    assert route.calls[1].request.headers["If-None-Match"] == '"v1"'
    assert (first.not_modified, second.not_modified) == (False, True)
    assert second.value == first.value


@pytest.mark.anyio
async def test_extra_response_fields_are_kept(controls: RunControls) -> None:
    """Fields the bridge does not model survive the parse (the verifier and reports may read them)."""
    async with respx.mock(using="bridge") as router:
        router.get(f"{BASE}/projects/prj_1").mock(return_value=httpx.Response(200, json={**PROJECT, "emoji": "🎬"}))
        async with open_v1(BASE, TOKEN, controls) as client:
            project = await client.get_project("prj_1")
    assert (project.model_extra or {})["emoji"] == "🎬"
