"""Replay of in-flight intents on start, and the lookup that replaces a replay past key retention (A20)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from bridge.clients.v1 import open_v1
from bridge.config import Secret
from bridge.engine.books import Books
from bridge.engine.executor import Executor
from bridge.engine.plan import Plan
from bridge.engine.progress import Progress
from bridge.engine.replay import replay_in_flight
from bridge.engine.steps import Kind
from bridge.engine.writes import Write
from mappings.refs import WORKSPACE
from state.store import open_state
from tests.engine.harness import World, fast_controls


async def _replay_one(world: World, write: Write, *, age: timedelta) -> tuple[Books, int]:
    with open_state(str(world.state)) as store:
        run = store.runs.start("m-test", "legacy:x", "v1:y", {})
        books = Books(store.database, run.id)
        await books.record(write)
        ledger = Plan("m-test", "legacy:x", "v1:y", 0.0, 4)
        async with open_v1(
            f"{world.base_url}/v1", Secret(world.token), fast_controls(), transport=world.transport
        ) as v1:
            executor = Executor(books=books, v1=v1.session, progress=Progress(), ledger=ledger)
            replayed = await replay_in_flight(books, executor, v1, now=datetime.now(UTC) + age)
        await books.aclose()
        return books, replayed


async def _spaces_named(world: World, name: str) -> list[str]:
    async with world.client("/v1", {"Authorization": f"Bearer {world.token}"}) as v1:
        rows = (await v1.get("/spaces", params={"limit": "100"})).json()["data"]
    return [row["id"] for row in rows if row["name"] == name]


@pytest.mark.anyio
async def test_in_flight_intent_is_replayed_with_its_key_and_booked_once(world: World) -> None:
    """A pending intent (its answer lost) is sent again with the same key: one space, its id in the crosswalk."""
    write = Write(Kind.SPACE, WORKSPACE, "POST", "/spaces", {"name": "Lost Answer"}, ("spc_1",), "key-" + "a" * 40)
    async with world.client("/v1", {"Authorization": f"Bearer {world.token}"}) as v1:
        first = await v1.post("/spaces", json=write.body, headers={"Idempotency-Key": str(write.key)})
    books, replayed = await _replay_one(world, write, age=timedelta(minutes=5))
    assert replayed == 1
    assert books.lookup("space", WORKSPACE, "spc_1") == first.json()["id"]
    assert await _spaces_named(world, "Lost Answer") == [first.json()["id"]]


@pytest.mark.anyio
async def test_intent_older_than_key_retention_is_looked_up_instead_of_replayed(world: World) -> None:
    """Past the 24 h retention the key may be forgotten: the space is found by name, not created twice."""
    async with world.client("/v1", {"Authorization": f"Bearer {world.token}"}) as v1:
        made = await v1.post(
            "/spaces", json={"name": "Old Write"}, headers={"Idempotency-Key": "an-old-key-" + "b" * 20}
        )
    write = Write(Kind.SPACE, WORKSPACE, "POST", "/spaces", {"name": "Old Write"}, ("spc_2",), "key-" + "c" * 40)
    books, _ = await _replay_one(world, write, age=timedelta(hours=25))
    assert books.lookup("space", WORKSPACE, "spc_2") == made.json()["id"]
    assert await _spaces_named(world, "Old Write") == [made.json()["id"]]


@pytest.mark.anyio
async def test_old_intent_not_found_on_the_target_is_sent(world: World) -> None:
    """Past retention and absent on the target: the write never happened, so it is sent now, once."""
    write = Write(Kind.SPACE, WORKSPACE, "POST", "/spaces", {"name": "Never Arrived"}, ("spc_3",), "key-" + "d" * 40)
    books, _ = await _replay_one(world, write, age=timedelta(hours=25))
    found = await _spaces_named(world, "Never Arrived")
    assert len(found) == 1
    assert books.lookup("space", WORKSPACE, "spc_3") == found[0]
