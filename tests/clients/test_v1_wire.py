"""The exact wire of every v1 call: method, path, query, headers and body, pinned with respx.

Every write the engine makes goes through ``send_write``: one case per published operation it names.
"""

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
from bridge.clients.v1_requests import OPERATIONS
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


def _write(op: str, params: tuple[str, ...], body: dict[str, object], path: str, answer: object, **kw: object) -> Wire:
    """A write as the engine sends it: an operation, its path parameters and a body (keyed when it creates)."""
    method = "PATCH" if "update" in op else "POST"
    keyed = method == "POST"
    return Wire(
        op,
        lambda c: c.send_write(op, params, body, KEY if keyed else None),
        method,
        path,
        answer,
        body=body,
        keyed=keyed,
        status=201 if keyed else 200,
        **kw,  # type: ignore[arg-type]
    )


def _delete(op: str, params: tuple[str, ...], path: str) -> Wire:
    """A delete: no key and no body (neither is published), answered 204 with nothing."""
    return Wire(op, lambda c: c.send_write(op, params, {}, None), "DELETE", path, None, status=204)


FRINGE = {"name": "FICA", "calculationType": "percent", "rate": 7.65}
TXN = {"type": "Cash", "amount": MONEY, "timestamp": STAMP}
ORDER = {"id": "po_1", "status": "draft", "amount": {"amount": 125000, "currency": "USD"}}
ORDER_ITEM = {"description": "Body", "qty": "5", "rate": "25000", "amount": 125000}
WIRES = [
    Wire("me", lambda c: c.me(), "GET", "/me", {"id": "usr_1", "workspaces": []}),
    _write("purchase-orders_create", (), {"projectId": "prj_1", "items": [ORDER_ITEM]}, "/purchase-orders", ORDER),
    _write("purchase-orders_createItem", ("po_1",), ORDER_ITEM, "/purchase-orders/po_1/items", {"id": "poi_1"}),
    # Keyed, with no body (none is published).
    Wire(
        "purchase-orders_submit",
        lambda c: c.send_write("purchase-orders_submit", ("po_1",), {}, KEY),
        "POST",
        "/purchase-orders/po_1/submit",
        ORDER,
        keyed=True,
    ),
    # No key and no body: neither is published for a link or a delete.
    Wire(
        "purchase-orders_linkTransaction",
        lambda c: c.send_write("purchase-orders_linkTransaction", ("po_1", "txn_1"), {}, None),
        "PUT",
        "/purchase-orders/po_1/transactions/txn_1",
        ORDER,
    ),
    # A header PATCH and an item PATCH, keyless (no key is published): a null clears a field.
    _write("purchase-orders_update", ("po_1",), {"name": "Rental", "notes": None}, "/purchase-orders/po_1", ORDER),
    _write(
        "purchase-orders_updateItem",
        ("po_1", "poi_1"),
        {**ORDER_ITEM, "budgetLineId": None},
        "/purchase-orders/po_1/items/poi_1",
        {"id": "poi_1"},
    ),
    _delete("purchase-orders_deleteItem", ("po_1", "poi_1"), "/purchase-orders/po_1/items/poi_1"),
    _delete("purchase-orders_delete", ("po_1",), "/purchase-orders/po_1"),
    # Bridge mode deletes a record gone from the source that nobody changed on v1.
    _delete("transactions_delete", ("txn_1",), "/transactions/txn_1"),
    _delete("budget_deleteLine", ("prj_1", "lin_1"), "/projects/prj_1/budget/lines/lin_1"),
    _delete("budget_deletePhase", ("prj_1", "phs_1"), "/projects/prj_1/budget/phases/phs_1"),
    _delete("contacts_delete", ("con_1",), "/contacts/con_1"),
    # ... and the documents made of a deleted record's files (A130).
    _delete("documents_delete", ("doc_1",), "/documents/doc_1"),
    _write("spaces_create", (), {"name": "Films"}, "/spaces", {"id": "spc_1", "name": "Films"}),
    _write("spaces_update", ("spc_1",), {"archived": True}, "/spaces/spc_1", {"id": "spc_1", "archived": True}),
    _write("projects_create", (), {"name": "Film"}, "/projects", PROJECT),
    _write("projects_update", ("prj_1",), {"status": "archived"}, "/projects/prj_1", PROJECT),
    _write("contacts_create", (), {"name": "Ana"}, "/contacts", {"id": "con_1", "name": "Ana"}),
    _write("contacts_update", ("con_1",), {"email": "a@b.test"}, "/contacts/con_1", {"id": "con_1"}),
    _write("library_createTag", (), {"name": "VFX"}, "/library/tags", {"id": "tag_1"}),
    _write("library_updateTag", ("tag_1",), {"color": "red"}, "/library/tags/tag_1", {"id": "tag_1"}),
    _write("library_createCurrency", (), {"code": "EUR"}, "/library/currencies", {"id": "cur_1"}),
    _write("library_updateCurrency", ("cur_1",), {"rateToUSD": 1.1}, "/library/currencies/cur_1", {"id": "cur_1"}),
    _write("library_createFringe", (), FRINGE, "/library/fringes", {"id": "frg_1"}),
    _write("library_updateFringe", ("frg_1",), {"rate": 6.2}, "/library/fringes/frg_1", {"id": "frg_1"}),
    _write("library_createGlobal", (), {"symbol": "DAYS"}, "/library/globals", {"id": "gbl_1"}),
    _write("library_updateGlobal", ("gbl_1",), {"formula": "5"}, "/library/globals/gbl_1", {"id": "gbl_1"}),
    *(
        _write(
            f"library_addProject{name}",
            ("prj_1",),
            {"sourceId": "src_1"},
            f"/projects/prj_1/library/{route}",
            {"id": "c_9"},
        )
        for name, route in (("Currency", "currencies"), ("Fringe", "fringes"), ("Global", "globals"))
    ),
    _write(
        "library_updateProjectCurrency",
        ("prj_1", "cur_9"),
        {"rateToUSD": 2},
        "/projects/prj_1/library/currencies/cur_9",
        {"id": "cur_9"},
    ),
    _write(
        "library_updateProjectFringe",
        ("prj_1", "frg_9"),
        {"rate": 6.2},
        "/projects/prj_1/library/fringes/frg_9",
        {"id": "frg_9"},
    ),
    _write(
        "library_updateProjectGlobal",
        ("prj_1", "gbl_9"),
        {"formula": "2"},
        "/projects/prj_1/library/globals/gbl_9",
        {"id": "gbl_9"},
    ),
    _write(
        "budget_createPhase",
        ("prj_1",),
        {"name": "Working", "type": "estimate"},
        "/projects/prj_1/budget/phases",
        {"id": "phs_2", "name": "Working", "type": "estimate"},
    ),
    _write(
        "budget_updatePhase",
        ("prj_1", "phs_2"),
        {"isHidden": True},
        "/projects/prj_1/budget/phases/phs_2",
        {"id": "phs_2"},
    ),
    _write(
        "budget_createLinesBulk",
        ("prj_1",),
        {"lines": [{"description": "A"}, {"description": "B"}]},
        "/projects/prj_1/budget/lines/bulk",
        {"data": [LINE, {**LINE, "id": "lin_2"}]},
    ),
    _write("budget_updateLine", ("prj_1", "lin_1"), {"contactId": "con_1"}, "/projects/prj_1/budget/lines/lin_1", LINE),
    _write("transactions_createBulk", (), {"transactions": [TXN]}, "/transactions/bulk", {"data": [{"id": "txn_1"}]}),
    _write("transactions_update", ("txn_1",), {"notes": "paid"}, "/transactions/txn_1", {"id": "txn_1"}),
    _write("documents_update", ("doc_1",), {"description": "Tax document"}, "/documents/doc_1", {"id": "doc_1"}),
    Wire(
        "documents_link",
        lambda c: c.send_write("documents_link", ("doc_1", "transaction"), {"targetId": "txn_1"}, None),
        "PUT",
        "/documents/doc_1/links/transaction",
        {"id": "doc_1"},
        body={"targetId": "txn_1"},
    ),
    _write(
        "transactions_createItem",
        ("txn_1",),
        {"amount": MONEY, "budgetLineId": "lin_1"},
        "/transactions/txn_1/items",
        {"id": "tit_1", "amount": MONEY},
    ),
    _write(
        "transactions_updateItem",
        ("txn_1", "tit_1"),
        {"description": "Lens"},
        "/transactions/txn_1/items/tit_1",
        {"id": "tit_1"},
    ),
    _write(
        "comments_create",
        ("prj_1",),
        {"content": "> Legacy comment by Ana\n\nHi", "target": {"kind": "budgetLine", "id": "lin_1"}},
        "/projects/prj_1/comments",
        {"id": "cmt_1"},
    ),
    _write("library_createRatePack", (), {"name": "Rates"}, "/library/rate-packs", {"id": "rpk_1"}),
    _write(
        "library_createRatePackItem",
        ("rpk_1",),
        {"title": "Gaffer", "rate": MONEY, "unit": "day", "quantity": 5},
        "/library/rate-packs/rpk_1/items",
        {"id": "rpi_1"},
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
        "lines",
        lambda c: _collect(c.lines("prj_1", LineFilter(account_id="1100", tags=("tag_1", "tag_2"), types=("line",)))),
        "GET",
        "/projects/prj_1/budget/lines",
        {"data": [LINE], "nextCursor": None},
        query=(("accountId", "1100"), ("tags", "tag_1,tag_2"), ("type", "line"), ("limit", "100")),
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
        answer = {"data": [{**PROJECT, "emoji": "🎬"}], "nextCursor": None}
        router.get(f"{BASE}/projects").mock(return_value=httpx.Response(200, json=answer))
        async with open_v1(BASE, TOKEN, controls) as client:
            projects = [project async for project in client.projects()]
    assert (projects[0].model_extra or {})["emoji"] == "🎬"


def test_every_write_operation_the_bridge_names_is_pinned_here() -> None:
    """A write added to the client's operation table without its wire case above fails here."""
    writes = {op.id for op in OPERATIONS if op.method != "GET"}
    # A multipart upload's wire (its parts, and its bytes on a retry) is pinned in test_transfer.py.
    multipart = {op.id for op in OPERATIONS if op.multipart}
    assert writes - multipart <= {wire.name for wire in WIRES}
    assert multipart == {"documents_upload"}
