"""Kill -9 at every write point of every kind, resume, and find the target exactly as a clean run leaves it.

Each `bridge run` is a real child process (``forked.run_forked``) talking to the emulator on a loopback port;
a kill switch handed to it as its observer of the engine's write points makes it SIGKILL itself at the
named point. A chain of runs
kills at kind after kind, each resumed run replaying what the previous one left in flight; a last run
finishes. The target is then read through the v1 surface and compared, as a multiset, with what a clean run
leaves: no duplicate, no loss.
"""

from __future__ import annotations

import asyncio
import random
from collections import Counter
from collections.abc import Iterator

import pytest

from bridge.emulator.control.faults import FaultPlan
from bridge.engine.kinds import order
from bridge.engine.points import POINTS
from tests.pg import StateTarget
from tests.support.forked import KILLED, run_forked
from tests.support.world import World, fresh_world


@pytest.fixture
def live(run_state: StateTarget) -> Iterator[World]:
    """A fresh `small` emulator served on a loopback port, with a token, and an empty state (each backend)."""
    with fresh_world(run_state.for_world()).served() as world:
        yield world


# On PostgreSQL one chain kills kind after kind at each point in turn (each of the 14 kinds at one point, every
# point met twice or more), a fifth of the runs: the engine's kill points are the same on both backends; what
# differs there is the store's transactions, which every kill of the chain interrupts.
CHAINS = [pytest.param("sqlite", point, id=f"sqlite-{point}") for point in POINTS]
CHAINS.append(pytest.param("postgresql", None, id="postgresql-every-point"))


@pytest.mark.slow
@pytest.mark.wire
@pytest.mark.parametrize(("backend", "point"), CHAINS, indirect=["backend"])
def test_kill_at_every_kind_then_resume_leaves_no_duplicate_and_no_loss(
    live: World, reference: Counter[tuple[str, ...]], point: str | None
) -> None:
    """Killed at `point` of each kind in turn (the first write of that kind), resumed each time: clean result."""
    points = [point or POINTS[n % len(POINTS)] for n in range(len(order()))]
    statuses = [run_forked(live, f"{kind.value}:{at}:1") for kind, at in zip(order(), points, strict=True)]
    assert KILLED in statuses
    assert set(statuses) <= {KILLED, 0}
    assert run_forked(live) == 0
    assert asyncio.run(live.census()) == reference


@pytest.mark.slow
@pytest.mark.wire
def test_twenty_seeded_random_kills_then_resume_leave_no_duplicate_and_no_loss(
    live: World, reference: Counter[tuple[str, ...]]
) -> None:
    """20 runs killed at seeded random instants, each resuming the last one: a clean result at the end.

    Half die at a random wall time after their start (0.03-0.4 s: anywhere, not only at write points), half at
    the n-th pass (1-25) of a random write point by any kind.
    """
    # Every v1 answer held 10 ms, so that a run lasts longer than the latest wall-time kill even once the
    # target is complete (its reads alone then take longer): the kills land, not only the first few.
    live.emulator.faults.set_plan(FaultPlan(latency_ms=10))
    rng = random.Random(20)
    statuses = []
    for run in range(20):
        if run % 2:
            statuses.append(run_forked(live, kill_after=rng.uniform(0.03, 0.4)))
        else:
            statuses.append(run_forked(live, f"*:{rng.choice(POINTS)}:{rng.randint(1, 25)}"))
    assert statuses.count(KILLED) >= 5
    assert run_forked(live) == 0
    assert asyncio.run(live.census()) == reference
