"""After a source delta, `plan` predicts exactly what `run` then does: per kind and in requests.

The requests a run really sends are counted by the emulator (``/_emulator/stats``), never by the bridge.
Each delta goes through the documented legacy surface: a project renamed, an actual's amount changed, an
actual added, a split part's description changed, an actual removed (reported as removed at source and left on the
target, never deleted).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Awaitable, Callable

import httpx
import pytest

from bridge.engine.run import Outcome
from mappings.kinds import Kind
from tests.support.census import pages, v1_writes_by_route
from tests.support.world import World

Delta = Callable[[httpx.AsyncClient, str], Awaitable[None]]


async def _actuals(legacy: httpx.AsyncClient, project: str) -> list[dict[str, object]]:
    answer = (await legacy.get(f"/projects/{project}/actuals", params={"idMode": "system"})).json()
    rows: list[dict[str, object]] = answer["actuals"]
    return rows


async def _plain_actual(legacy: httpx.AsyncClient, project: str) -> str:
    return str(next(a for a in await _actuals(legacy, project) if not a.get("subactuals"))["id"])


async def rename(legacy: httpx.AsyncClient, project: str) -> None:
    assert (await legacy.put(f"/projects/{project}", json={"name": "Renamed Feature"})).status_code == 200


async def change_amount(legacy: httpx.AsyncClient, project: str) -> None:
    actual = await _plain_actual(legacy, project)
    response = await legacy.put(f"/projects/{project}/actuals/{actual}", json={"amount": 4321.5})
    assert response.status_code == 200


async def add_actual(legacy: httpx.AsyncClient, project: str) -> None:
    actual = next(a for a in await _actuals(legacy, project) if not a.get("subactuals"))
    new = {"date": actual["date"], "amount": 99.25, "description": "late invoice", "accountId": actual["accountId"]}
    assert (await legacy.post(f"/projects/{project}/actuals", json=new)).status_code == 201


async def change_split_part(legacy: httpx.AsyncClient, project: str) -> None:
    answer = await legacy.get(f"/projects/{project}/actuals", params={"idMode": "system", "expands[]": "subactual"})
    actual = next(a for a in answer.json()["actuals"] if a.get("subactuals"))
    # Each part written back as it was (its label is written as ``number``), but the first one's description.
    details = {"number": "lineId", "quantity": "quantity", "unit": "unit", "rate": "rate"}
    parts = [
        {"amount": p["amount"], "description": p.get("description"), "accountId": p.get("accountId")}
        | {field: p[read] for field, read in details.items() if p.get(read) is not None}
        for p in actual["subactuals"]
    ]
    parts[0]["description"] = "Part 1, revised"
    response = await legacy.put(f"/projects/{project}/actuals/{actual['id']}", json={"subActuals": parts})
    assert response.status_code == 200, response.text


async def remove_actual(legacy: httpx.AsyncClient, project: str) -> None:
    actual = await _plain_actual(legacy, project)
    assert (await legacy.delete(f"/projects/{project}/actuals/{actual}")).status_code == 204


def _items(transaction: dict[str, object]) -> list[dict[str, object]]:
    items = transaction.get("items")
    assert isinstance(items, list | None)
    return items or []


def _predicted(outcome: Outcome) -> dict[str, dict[str, object]]:
    """Per kind, everything the plan JSON says but the run-only facts (replays happen only in a run)."""
    kinds = outcome.ledger.to_json()["kinds"]
    assert isinstance(kinds, dict)
    return {kind: {k: v for k, v in row.items() if k != "replayed"} for kind, row in kinds.items()}


async def _sent(world: World) -> Counter[str]:
    return v1_writes_by_route(await world.control("GET", "/stats"))


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("delta", "requests"),
    # The project's PATCH; the transaction's PATCH; one transaction bulk; the split part's PATCH; nothing
    # (left on the target).
    [(rename, 1), (change_amount, 1), (add_actual, 1), (change_split_part, 1), (remove_actual, 0)],
    ids=["rename", "amount", "added", "split part", "removed"],
)
async def test_plan_after_a_delta_predicts_the_run_per_kind_and_in_requests(
    world: World, delta: Delta, requests: int
) -> None:
    """The plan's per-kind counts equal the run's, and its requests equal the writes the emulator received."""
    await world.run()
    async with world.legacy_client() as legacy:
        await delta(legacy, world.projects[0])
    before = await _sent(world)
    plan = await world.run(dry_run=True)
    assert await _sent(world) == before
    done = await world.run()
    sent = await _sent(world) - before
    assert _predicted(plan) == _predicted(done)
    assert plan.ledger.requests == sum(sent.values()) == done.ledger.requests == requests


@pytest.mark.anyio
async def test_a_record_removed_at_source_is_reported_and_left_on_the_target(world: World) -> None:
    """A deleted legacy actual is counted as removed at source in the plan and the run; v1 keeps it."""
    await world.run()
    census = await world.census()
    async with world.legacy_client() as legacy:
        await remove_actual(legacy, world.projects[0])
    plan = await world.run(dry_run=True)
    done = await world.run()
    for outcome in (plan, done):
        assert outcome.ledger.of(Kind.ACTUAL).removed_at_source == 1
        assert outcome.ledger.requests == 0
    assert await world.census() == census


@pytest.mark.anyio
async def test_a_changed_split_part_is_patched_on_v1_once(world: World) -> None:
    """A split part edited at the source reaches its v1 item (never silently left behind); a rerun sends nothing."""
    await world.run()
    async with world.legacy_client() as legacy:
        await change_split_part(legacy, world.projects[0])
    await world.run()
    async with world.v1_client() as v1:
        items = [item for t in await pages(v1.get, "/transactions") for item in _items(t)]
    assert "Part 1, revised" in [item.get("description") for item in items]
    before = await _sent(world)
    again = await world.run()
    assert again.ledger.requests == 0
    assert await _sent(world) == before
