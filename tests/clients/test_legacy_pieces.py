"""A budget read one account at a time (what a migration holds) equals the whole read, node for node."""

from __future__ import annotations

import asyncio
import copy
import random
from collections.abc import AsyncIterator

import httpx
import pytest
import respx
from fastapi import FastAPI

from bridge import errors
from bridge.clients.http import RunControls
from bridge.clients.legacy import LegacyClient, open_legacy
from bridge.clients.retry import RetryPolicy
from bridge.config import Secret
from bridge.emulator.app import create_app
from mappings.errors import ErrorCode
from mappings.records import CompactLine
from tests.clients.fakes import FakeClock, controls_for
from tests.clients.test_legacy_wire import BUDGET

EMULATOR = "http://emulator/api/v1"
BASE = "https://old.test/api/v1"
KEY = Secret("lk_pieces_0123456789abcdefgh")


@pytest.fixture(scope="module")
def dirty_app() -> FastAPI:
    """A small workspace with the dirty records: an account whose parent is missing and a parent cycle."""
    return create_app(seed=42, size="small", dirty=True, hostile=True)


@pytest.fixture
async def legacy(dirty_app: FastAPI) -> AsyncIterator[LegacyClient]:
    controls = controls_for(FakeClock(), policy=RetryPolicy(rng=random.Random(4)))
    key = Secret(dirty_app.state.credentials.legacy_key)
    async with open_legacy(EMULATOR, key, controls, transport=httpx.ASGITransport(app=dirty_app)) as client:
        yield client


@pytest.mark.anyio
async def test_budget_read_in_pieces_equals_one_whole_read(legacy: LegacyClient) -> None:
    """Every project's nodes, read account by account, are the whole read's: order, parents, positions, cells."""
    orphans = 0
    for project in await legacy.projects():
        whole = await legacy.budget(project.id)
        pieces = await legacy.budget_lines(project.id)
        assert pieces == tuple(CompactLine.of(line) for line in whole.lines)
        reached = {line.id for line in pieces}
        orphans += sum(1 for line in pieces if line.parent_id is not None and line.parent_id not in reached)
    assert orphans  # the dirty account whose parent is gone is read too, under the parent the service names


def _per_account(request: httpx.Request) -> httpx.Response:
    """The A41 answer: the asked account (the root without accountId) and its direct children, no subAccounts."""
    asked = request.url.params.get("accountId")
    document = copy.deepcopy(BUDGET)
    if asked is None:
        return httpx.Response(200, json={"account": document["account"], "subAccounts": {}})
    accounts = document["subAccounts"]
    assert isinstance(accounts, dict)
    account = accounts[asked]
    return httpx.Response(200, json={"account": {"type": "account", **account}, "subAccounts": {}})


@pytest.mark.anyio
async def test_pieces_ask_one_account_at_a_time_and_rebuild_the_tree(controls: RunControls) -> None:
    """Each read names one account and excludes sub-accounts; the nodes equal the whole document's, orphan last."""
    accounts = [
        {"id": "a1", "path": "/1000"},
        {"id": "a2", "path": "/1000/1100", "parentId": "a1"},
        {"id": "a9", "path": "/7000", "parentId": "gone"},
    ]
    async with respx.mock(using="bridge") as router:
        router.get(f"{BASE}/projects/p1/budget/accounts").mock(
            return_value=httpx.Response(200, json={"accounts": accounts})
        )
        route = router.get(f"{BASE}/projects/p1/budget").mock(side_effect=_per_account)
        async with open_legacy(BASE, KEY, controls) as client:
            pieces = await client.budget_lines("p1")
        asked = [call.request.url.params for call in route.calls]
        route.mock(return_value=httpx.Response(200, json=BUDGET), side_effect=None)
        async with open_legacy(BASE, KEY, controls) as client:
            whole = await client.budget("p1")
    assert [params.get("accountId") for params in asked] == [None, "a1", "a2", "a9"]
    assert all(params["excludeSubAccounts"] == "true" and params["idMode"] == "system" for params in asked)
    assert pieces == tuple(CompactLine.of(line) for line in whole.lines)
    assert [(line.id, line.parent_id, line.position) for line in pieces][-2:] == [("a9", "gone", 0), ("l9", "a9", 0)]
    assert {line.id: line for line in pieces}["l1"].contact_id == "c9"


@pytest.mark.anyio
async def test_children_nested_in_their_account_row_are_the_ones_kept(controls: RunControls) -> None:
    """An account row that carries its lines is walked from them, as a whole read does, not from another read."""
    root = {
        "id": "root",
        "lines": [{"id": "a1", "type": "account", "lines": [{"id": "l1", "type": "line", "accountId": "1001"}]}],
    }
    elsewhere = {"id": "a1", "type": "account", "lines": [{"id": "stale", "type": "line"}]}

    def answer(request: httpx.Request) -> httpx.Response:
        asked = request.url.params.get("accountId")
        return httpx.Response(200, json={"account": root if asked is None else elsewhere})

    async with respx.mock(using="bridge") as router:
        router.get(f"{BASE}/projects/p1/budget/accounts").mock(
            return_value=httpx.Response(200, json={"accounts": [{"id": "a1"}]})
        )
        router.get(f"{BASE}/projects/p1/budget").mock(side_effect=answer)
        async with open_legacy(BASE, KEY, controls) as client:
            pieces = await client.budget_lines("p1")
    assert [(line.id, line.parent_id, line.position) for line in pieces] == [("a1", None, 0), ("l1", "a1", 0)]


@pytest.mark.anyio
async def test_a_failed_account_read_stops_the_read_with_its_error(controls: RunControls) -> None:
    """A piece the service cannot give fails the whole read (no partial tree), and no read is left running."""

    def answer(request: httpx.Request) -> httpx.Response:
        if request.url.params.get("accountId") == "a2":
            return httpx.Response(200, json={"subAccounts": {}})
        return _per_account(request)

    accounts = [{"id": "a1"}, {"id": "a2", "parentId": "a1"}, {"id": "a9", "parentId": "gone"}]
    async with respx.mock(using="bridge") as router:
        router.get(f"{BASE}/projects/p1/budget/accounts").mock(
            return_value=httpx.Response(200, json={"accounts": accounts})
        )
        router.get(f"{BASE}/projects/p1/budget").mock(side_effect=answer)
        async with open_legacy(BASE, KEY, controls) as client:
            with pytest.raises(errors.UnexpectedResponse, match="accountId=a2 answered without its account"):
                await client.budget_lines("p1")
    reads = [task for task in asyncio.all_tasks() if "_fetch" in getattr(task.get_coro(), "__qualname__", "")]
    assert reads == []


@pytest.mark.anyio
@pytest.mark.parametrize("bad_id", [None, 17, ["l1"]])
async def test_a_line_without_a_string_id_is_refused_by_both_reads(controls: RunControls, bad_id: object) -> None:
    """Whole or in pieces, a line whose id is missing or not a string is a refused node (record.id_invalid,
    filed by its place), and the line beside it is read as usual."""
    good = {"id": "l2", "type": "line", "description": "Fuel"}
    root = {"id": "root", "lines": [{"id": bad_id, "type": "line"}, good]}
    async with respx.mock(using="bridge") as router:
        router.get(f"{BASE}/projects/p1/budget/accounts").mock(return_value=httpx.Response(200, json={"accounts": []}))
        router.get(f"{BASE}/projects/p1/budget").mock(return_value=httpx.Response(200, json={"account": root}))
        async with open_legacy(BASE, KEY, controls) as client:
            whole = (await client.budget("p1")).lines
            pieces = await client.budget_lines("p1")
    for lines in (whole, pieces):
        refused, kept = lines
        assert refused.refusal is not None
        assert refused.refusal.code is ErrorCode.RECORD_ID_INVALID
        assert (refused.id, refused.refusal.field) == ("#0", "id")
        assert (kept.id, kept.description, kept.refusal) == ("l2", "Fuel", None)
