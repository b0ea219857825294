"""Replay of in-flight intents on start, and the lookup that replaces a replay past key retention (A20)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from bridge.clients.v1 import open_v1
from bridge.config import Secret
from bridge.engine.books import Books
from bridge.engine.executor import Executor
from bridge.engine.replay import replay_in_flight
from bridge.engine.writes import Write
from mappings.kinds import Kind
from mappings.refs import WORKSPACE
from state.store import open_state
from tests.pg import StateTarget
from tests.support.world import World, fast_controls, fresh_world


@pytest.fixture
def world(run_state: StateTarget) -> World:
    """A fresh emulator and an empty state, on each backend in turn."""
    return fresh_world(run_state.for_world())


async def _replay_one(world: World, write: Write, *, age: timedelta) -> tuple[Books, int]:
    with open_state(str(world.state)) as store:
        run = store.runs.start("m-test", "legacy:x", "v1:y", {})
        books = Books(store.database, run.id)
        await books.record(write)
        async with open_v1(
            f"{world.base_url}/v1", Secret(world.token), fast_controls(), transport=world.transport
        ) as v1:
            executor = Executor(books=books, v1=v1)
            replay = await replay_in_flight(books, executor, v1, now=datetime.now(UTC) + age)
        await books.aclose()
        return books, replay.intents


async def _spaces_named(world: World, name: str) -> list[str]:
    async with world.v1_client() as v1:
        rows = (await v1.get("/spaces", params={"limit": "100"})).json()["data"]
    return [row["id"] for row in rows if row["name"] == name]


@pytest.mark.anyio
async def test_in_flight_intent_is_replayed_with_its_key_and_booked_once(world: World) -> None:
    """A pending intent (its answer lost) is sent again with the same key: one space, its id in the crosswalk."""
    write = Write(Kind.SPACE, WORKSPACE, "spaces_create", (), {"name": "Lost Answer"}, ("spc_1",), "key-" + "a" * 40)
    async with world.v1_client() as v1:
        first = await v1.post("/spaces", json=write.body, headers={"Idempotency-Key": str(write.key)})
    books, replayed = await _replay_one(world, write, age=timedelta(minutes=5))
    assert replayed == 1
    assert books.lookup(Kind.SPACE, WORKSPACE, "spc_1") == first.json()["id"]
    assert await _spaces_named(world, "Lost Answer") == [first.json()["id"]]


@pytest.mark.anyio
async def test_intent_older_than_key_retention_is_looked_up_instead_of_replayed(world: World) -> None:
    """Past the 24 h retention the key may be forgotten: the space is found by name, not created twice."""
    async with world.v1_client() as v1:
        made = await v1.post(
            "/spaces", json={"name": "Old Write"}, headers={"Idempotency-Key": "an-old-key-" + "b" * 20}
        )
    write = Write(Kind.SPACE, WORKSPACE, "spaces_create", (), {"name": "Old Write"}, ("spc_2",), "key-" + "c" * 40)
    books, _ = await _replay_one(world, write, age=timedelta(hours=25))
    assert books.lookup(Kind.SPACE, WORKSPACE, "spc_2") == made.json()["id"]
    assert await _spaces_named(world, "Old Write") == [made.json()["id"]]


@pytest.mark.anyio
async def test_old_intent_not_found_on_the_target_is_sent(world: World) -> None:
    """Past retention and absent on the target: the write never happened, so it is sent now, once."""
    write = Write(Kind.SPACE, WORKSPACE, "spaces_create", (), {"name": "Never Arrived"}, ("spc_3",), "key-" + "d" * 40)
    books, _ = await _replay_one(world, write, age=timedelta(hours=25))
    found = await _spaces_named(world, "Never Arrived")
    assert len(found) == 1
    assert books.lookup(Kind.SPACE, WORKSPACE, "spc_3") == found[0]


async def _transaction_with_items(
    world: World, sent: list[dict[str, object]], entries: list[dict[str, object]]
) -> Write:
    """A transaction on the target, a fan-out of ``entries`` for it, and the ``sent`` prefix of them already
    posted under their entry keys (a run killed mid-fan-out); then the target forgets every key (retention 0)."""
    async with world.v1_client() as v1:
        project = await v1.post("/projects", json={"name": "Split Target"}, headers={"Idempotency-Key": "p" * 20})
        transaction = await v1.post(
            "/transactions",
            json={
                "projectId": project.json()["id"],
                "type": "Invoice",
                "timestamp": "2026-01-05T00:00:00Z",
                "amount": {"amount": 900, "currency": "USD"},
            },
            headers={"Idempotency-Key": "t" * 20},
        )
        txn = str(transaction.json()["id"])
        body: dict[str, object] = {"items": [{"transactionId": txn, "item": item} for item in entries]}
        members = tuple(f"sub_{n}" for n in range(len(entries)))
        write = Write(Kind.SPLIT, "prj_legacy", "transactions_createItem", (), body, members, "fanout-" + "e" * 40)
        for index, item in enumerate(sent):
            answer = await v1.post(
                f"/transactions/{txn}/items", json=item, headers={"Idempotency-Key": write.entry_key(index)}
            )
            assert answer.status_code == 201
    await world.control("POST", "/settings", {"idempotencyRetentionS": 0})
    return write


async def _items(world: World, write: Write) -> list[tuple[str, str]]:
    entry = write.entries()[0]
    assert isinstance(entry, dict)
    async with world.v1_client() as v1:
        found = (await v1.get(f"/transactions/{entry['transactionId']}")).json()["items"]
    return [(str(item["id"]), str(item["description"])) for item in found]


def _item(description: str, cents: int) -> dict[str, object]:
    return {"description": description, "amount": {"amount": cents, "currency": "USD"}}


@pytest.mark.anyio
async def test_stale_fan_out_sends_only_the_items_not_on_the_target(world: World) -> None:
    """Two of three split items landed before the crash and the target forgot their keys: the resume finds
    them on the transaction, books their ids, and sends only the third; no item twice."""
    entries = [_item("Labour", 300), _item("Parts", 200), _item("Freight", 400)]
    write = await _transaction_with_items(world, entries[:2], entries)
    books, _ = await _replay_one(world, write, age=timedelta(hours=25))
    items = await _items(world, write)
    assert [description for _, description in items] == ["Labour", "Parts", "Freight"]
    assert [books.lookup(Kind.SPLIT, "prj_legacy", member) for member in write.members] == [i for i, _ in items]
    stats = await world.control("GET", "/stats")
    assert isinstance(stats, dict)
    assert stats["requests"]["byRoute"]["POST /v1/transactions/{transaction_id}/items"] == 3


@pytest.mark.anyio
async def test_stale_fan_out_matches_equal_items_one_each(world: World) -> None:
    """Two equal parts of one actual, only the first landed: the second is not taken for it, and is sent."""
    entries = [_item("Hire", 450), _item("Hire", 450)]
    write = await _transaction_with_items(world, entries[:1], entries)
    books, _ = await _replay_one(world, write, age=timedelta(hours=25))
    items = await _items(world, write)
    assert [description for _, description in items] == ["Hire", "Hire"]
    assert {books.lookup(Kind.SPLIT, "prj_legacy", member) for member in write.members} == {i for i, _ in items}


@pytest.mark.anyio
async def test_fresh_fan_out_is_replayed_under_its_keys(world: World) -> None:
    """Within retention the fan-out is simply re-sent: the landed items answer from their keys, none twice."""
    entries = [_item("Labour", 300), _item("Parts", 200)]
    write = await _transaction_with_items(world, entries[:1], entries)
    await world.control("POST", "/settings", {"idempotencyRetentionS": 86400})
    await _replay_one(world, write, age=timedelta(minutes=5))
    assert [description for _, description in await _items(world, write)] == ["Labour", "Parts"]
