"""A whole workspace migrated while every write's answer is lost once ends exactly as a clean run does."""

from __future__ import annotations

import pytest

from tests.engine.conftest import CleanRun
from tests.pg import StateTarget
from tests.support.census import v1_writes_by_route
from tests.support.world import World, fast_controls, fresh_world


@pytest.fixture
def world(run_state: StateTarget) -> World:
    """A fresh emulator and an empty state, on each backend in turn."""
    return fresh_world(run_state.for_world())


@pytest.mark.anyio
async def test_commit_then_drop_on_every_write_ends_identical_to_a_clean_run(
    world: World, workspace_reference: CleanRun
) -> None:
    """Every v1 write that commits loses its answer; the retries (keyed replays, PATCHes that change nothing
    any more) finish the run with nothing stopped or quarantined (exit 0), and the target reads as after a
    clean run.

    Each drop costs exactly one more request: on every write route the faulted run sent more requests than the
    clean run (drops happened there) and at most twice as many (no write was dropped twice), and the extra
    requests are as many as the drops.
    """
    world.projects = ()
    rule = {"kind": "commit_then_drop", "rate": 1.0, "route": "/v1/*"}
    await world.control("POST", "/faults", {"rules": [rule]})
    outcome = await world.run(controls=fast_controls(retry_ratio=2.0))
    assert outcome.ledger.quarantine == []
    stats = await world.control("GET", "/stats")
    assert isinstance(stats, dict)
    clean, faulted = workspace_reference.writes_by_route, v1_writes_by_route(stats)
    assert set(faulted) == set(clean)
    assert all(clean[route] < faulted[route] <= 2 * clean[route] for route in clean)
    drops = stats["faultsInjected"]["commit_then_drop"]
    assert drops == stats["errors"]["dropped"] == faulted.total() - clean.total()
    assert stats["replays"] > 0
    assert await world.census() == workspace_reference.census
