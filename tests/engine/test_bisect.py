"""A bulk the target rejects for one entry is split until that entry stands alone; the rest goes through."""

from __future__ import annotations

import json
from collections import Counter

import httpx
import pytest

from mappings.kinds import Kind
from tests.support.world import SMALL_PROJECT, World


class RejectOneLine(httpx.AsyncBaseTransport):
    """Answers 422 validation to any line bulk that carries the poisoned description; passes the rest on."""

    def __init__(self, inner: httpx.AsyncBaseTransport, poisoned: str) -> None:
        self.inner = inner
        self.poisoned = poisoned
        self.bulk_sizes: list[int] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.method == "POST" and request.url.path.endswith("/budget/lines/bulk"):
            lines = json.loads(request.content)["lines"]
            self.bulk_sizes.append(len(lines))
            if any(line["description"] == self.poisoned for line in lines):
                body = {"success": False, "code": "validation", "message": "poisoned entry", "requestId": "req_t"}
                return httpx.Response(422, json=body)
        return await self.inner.handle_async_request(request)


@pytest.mark.anyio
async def test_one_bad_line_is_isolated_and_quarantined(world: World, reference: Counter[tuple[str, ...]]) -> None:
    """Only the poisoned line is quarantined (with the target's reason); every other line is migrated once."""
    async with world.legacy_client() as legacy:
        budget = (await legacy.get(f"/projects/{SMALL_PROJECT}/budget", params={"idMode": "system"})).json()
    leaves = [
        line
        for line in budget["account"]["lines"]
        + [line for account in budget.get("subAccounts", {}).values() for line in account["lines"]]
        if line["type"] == "line"
    ]
    counts = Counter(line["description"] for line in leaves)
    poisoned = next(line for line in leaves if counts[line["description"]] == 1)
    rejecting: list[RejectOneLine] = []

    def wrap(inner: httpx.AsyncBaseTransport) -> httpx.AsyncBaseTransport:
        rejecting.append(RejectOneLine(inner, poisoned["description"]))
        return rejecting[-1]

    world.wrap = wrap
    outcome = await world.run()
    quarantined = [q for q in outcome.ledger.quarantine if q.kind == Kind.LINE.value]
    assert [q.legacy_id for q in quarantined] == [poisoned["id"]]
    assert quarantined[0].code == "target_validation"
    census = await world.census()
    missing = reference - census
    [line] = [key for key in missing if key[0] == Kind.LINE.value]
    assert f"|{poisoned['description']}|" in line[2]
    # What named the line is on v1 once, without it (its actuals and parts lost their budget line, its comments
    # went on the project, A84).
    on_line = (f"budgetLineId={line[2]}", f"target={{id:{line[2]},kind:budgetLine}}")
    assert all(any(said in key[3] for said in on_line) for key in missing if key != line)
    assert sum(census.values()) == sum(reference.values()) - 1
    sizes = rejecting[0].bulk_sizes
    assert 1 in sizes
    assert len(sizes) <= 2 * 8 + 4  # halving a bulk of <= 100 takes at most 7 levels of two halves


class RejectItemsOfOneTransaction(httpx.AsyncBaseTransport):
    """Answers 422 to every item request of the first transaction that receives one; passes the rest on."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner
        self.victim: str | None = None
        self.refused = 0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        path = request.url.path
        if request.method == "POST" and path.endswith("/items") and "/transactions/" in path:
            self.victim = self.victim or path
            if path == self.victim:
                self.refused += 1
                body = {"success": False, "code": "validation", "message": "refused item", "requestId": "req_i"}
                return httpx.Response(422, json=body)
        return await self.inner.handle_async_request(request)


@pytest.mark.anyio
async def test_refused_split_items_are_quarantined_one_by_one_and_the_rest_go_through(
    world: World, reference: Counter[tuple[str, ...]]
) -> None:
    """Split items share a journal intent but not a fate: only the refused ones are quarantined."""
    rejecting: list[RejectItemsOfOneTransaction] = []

    def wrap(inner: httpx.AsyncBaseTransport) -> httpx.AsyncBaseTransport:
        rejecting.append(RejectItemsOfOneTransaction(inner))
        return rejecting[-1]

    world.wrap = wrap
    outcome = await world.run()
    refused = [q for q in outcome.ledger.quarantine if q.kind == Kind.SPLIT.value]
    assert len(refused) == rejecting[0].refused > 0
    assert {q.code for q in refused} == {"target_validation"}
    census = await world.census()
    assert not census - reference
    missing = reference - census
    assert sum(missing.values()) == len(refused)  # the refused items alone: their transaction is on v1
    assert {key[0] for key in missing} == {Kind.SPLIT.value}
    world.wrap = None
    again = await world.run()
    assert again.ledger.of(Kind.SPLIT).to_create == len(refused)
    assert await world.census() == reference
