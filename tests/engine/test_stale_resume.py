"""A run killed in the middle of its split items and resumed after the target forgot its keys (A20: past the
retention window) adds no item twice: the resume finds the items that landed instead of replaying them."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta

import httpx
import pytest
from sqlalchemy import Connection, text

from bridge.emulator.control.state import EmulatorState
from tests.pg import StateTarget
from tests.support.forked import KILLED, run_forked
from tests.support.world import World, fresh_world

ITEMS_ROUTE = "POST /v1/transactions/{transaction_id}/items"
STAMP = "%Y-%m-%dT%H:%M:%S.%fZ"


@pytest.fixture
def live(run_state: StateTarget) -> Iterator[tuple[World, EmulatorState]]:
    """A fresh `small` emulator on a loopback port (the small project's runs), and its v1 context; each backend."""
    with fresh_world(run_state.for_world()).served() as world:
        yield world, world.emulator


@contextmanager
def journal(state: StateTarget) -> Iterator[Connection]:
    """One transaction on the state's tables behind the bridge's back (the test plays the clock)."""
    engine = state.engine()
    try:
        with engine.begin() as connection:
            yield connection
    finally:
        engine.dispose()


def age_in_flight(state: StateTarget, hours: int) -> int:
    """Move the in-flight intents' journal time ``hours`` back (the resume comes that much later); how many."""
    with journal(state) as db:
        rows = db.execute(text("SELECT step_key, created_at FROM intents WHERE status IN ('pending', 'sent')")).all()
        for step_key, created in rows:
            older = datetime.strptime(created, STAMP).replace(tzinfo=UTC) - timedelta(hours=hours)
            db.execute(
                text("UPDATE intents SET created_at = :at WHERE step_key = :key"),
                {"at": older.strftime(STAMP), "key": step_key},
            )
        return len(rows)


def items_of(census: Counter[tuple[str, ...]]) -> int:
    """How many split items the census counts."""
    return sum(count for key, count in census.items() if key[0] == "split")


def fan_outs_in_flight(state: StateTarget) -> int:
    with journal(state) as db:
        query = text("SELECT COUNT(*) FROM intents WHERE operation = :op AND status IN ('pending', 'sent')")
        return int(db.execute(query, {"op": "transactions_createItem"}).scalar_one())


@pytest.mark.wire
@pytest.mark.parametrize(
    ("kill_at", "kill_after"),
    [("split:service:1", None), (None, 0.02)],
    ids=["every-item-landed", "some-items-landed"],
)
def test_resume_past_key_retention_adds_no_split_item_twice(
    live: tuple[World, EmulatorState],
    run_state: StateTarget,
    reference: Counter[tuple[str, ...]],
    kill_at: str | None,
    kill_after: float | None,
) -> None:
    """Killed once a fan-out's items reached the service (all of them, or those sent in the first 20 ms), then
    resumed 25 h later with every key forgotten: the census equals a clean run's, and the resume sent exactly
    the items that were not on the target."""
    world, context = live
    armed = (lambda: context.stats.by_route[ITEMS_ROUTE] > 0) if kill_after is not None else None
    # Every v1 answer takes 20 ms while the run is killed, so 20 ms after the first item the fan-out is still
    # sending: without it a fast run can finish a small fan-out before the kill lands.
    httpx.post(f"{world.base_url}/_emulator/faults", json={"latencyMs": 20}).raise_for_status()
    assert run_forked(world, kill_at, kill_after=kill_after, armed=armed) == KILLED
    httpx.post(f"{world.base_url}/_emulator/faults", json={}).raise_for_status()
    assert fan_outs_in_flight(run_state) >= 1
    landed = items_of(asyncio.run(world.census()))
    assert landed > 0
    assert age_in_flight(run_state, hours=25) >= 1
    httpx.post(f"{world.base_url}/_emulator/settings", json={"idempotencyRetentionS": 0}).raise_for_status()
    sent_before = context.stats.by_route[ITEMS_ROUTE]
    assert run_forked(world) == 0
    census = asyncio.run(world.census())
    assert census == reference
    assert context.stats.by_route[ITEMS_ROUTE] - sent_before == items_of(census) - landed
