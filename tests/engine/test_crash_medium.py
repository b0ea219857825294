"""20 kills at seeded random instants across a whole `medium` migration, each run resuming the last: the target
ends exactly as a clean run leaves it.

Five runs die in each stage of the migration in turn (workspace kinds, lines, transactions, split items), so
the kills are spread over the whole run: in each stage, some die by wall time, a seeded random instant after
the run reaches the stage (anywhere, not only at write points), the others at the n-th pass (1-4) of a random
write point of a random kind of the stage (a ``KillSwitch``). A last run finishes, and the v1
census (read through v1, never the crosswalk) equals a clean `medium` run's.
"""

from __future__ import annotations

import asyncio
import random
import sqlite3
import time
from collections import Counter
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path

import pytest
import structlog

from bridge.emulator.control.state import EmulatorState
from bridge.emulator.control.stats import RequestStats
from bridge.engine.kinds import order
from bridge.engine.points import POINTS
from mappings.kinds import Kind
from tests.support.forked import KILLED, run_forked
from tests.support.world import World

log = structlog.get_logger("tests.engine")

# The stages of a run in the order a project passes them: the kinds written in each, and the v1 route whose
# first request in a run shows the run has reached the stage.
STAGES: tuple[tuple[str, tuple[Kind, ...], str | None], ...] = (
    ("workspace kinds", order()[: order().index(Kind.LINE)], None),
    ("lines", (Kind.LINE,), "POST /v1/projects/{project_id}/budget/lines/bulk"),
    ("transactions", (Kind.ACTUAL,), "POST /v1/transactions/bulk"),
    ("split items", (Kind.SPLIT,), "POST /v1/transactions/{transaction_id}/items"),
)
RUNS_PER_STAGE = 5


@dataclass(slots=True)
class Reached:
    """Whether the run started now has sent its first request on ``route`` (at once for None); remembers it."""

    stats: RequestStats
    route: str | None
    before: int = 0
    fired: bool = False

    def __post_init__(self) -> None:
        self.before = self.stats.by_route[self.route] if self.route else 0

    def __call__(self) -> bool:
        self.fired = self.fired or self.route is None or self.stats.by_route[self.route] > self.before
        return self.fired


def stages_in_flight(state: Path | str) -> set[str]:
    """The stages whose intents a killed run left pending or sent (logged to show where kills land; read from
    the journal, so only a diagnosis: the verdict is the v1 census).

    The connection is closed here, not left to the garbage collector: a forked run would inherit it, and its
    own collection closing that descriptor would drop every POSIX lock the run's SQLite holds on the file
    (SQLite's "how to corrupt" 2.2). Left open, that lost journal commits and duplicated split items.
    """
    with closing(sqlite3.connect(state)) as db, db:
        kinds = {row[0] for row in db.execute("SELECT DISTINCT kind FROM intents WHERE status IN ('pending', 'sent')")}
    return {name for name, members, _ in STAGES if kinds & {kind.value for kind in members}}


@pytest.mark.slow
@pytest.mark.wire
def test_twenty_seeded_random_kills_across_medium_leave_no_duplicate_and_no_loss(
    medium: tuple[World, EmulatorState], medium_reference: Counter[tuple[str, ...]]
) -> None:
    """20 runs of the whole `medium` workspace killed at seeded random instants, each resuming the last, then one
    that finishes: runs died in every stage, and the target holds exactly what a clean run leaves."""
    world, context = medium
    rng = random.Random(2026)
    statuses: list[int] = []
    cut: set[str] = set()
    started = time.monotonic()
    for stage, (name, kinds, route) in enumerate(STAGES):
        for run in range(RUNS_PER_STAGE):
            if run % 2:
                # Wall time: a random instant after the run reaches this stage (from its start for the first).
                delay = rng.uniform(0.1, 2.0) if route is None else rng.uniform(0.0, 0.5)
                trigger = Reached(context.stats, route)
                status = run_forked(world, kill_after=delay, armed=trigger)
                died_in = name if trigger.fired else None
            else:
                # A write point of this stage; should the run pass the stage without meeting it (its kind has
                # no work left), it dies soon after it sends its first request of the next stage.
                point = f"{rng.choice(kinds).value}:{rng.choice(POINTS)}:{rng.randint(1, 4)}"
                later = stage + 1 if stage + 1 < len(STAGES) else stage
                trigger = Reached(context.stats, STAGES[later][2])
                status = run_forked(world, point, kill_after=rng.uniform(0.0, 0.5), armed=trigger)
                died_in = STAGES[later][0] if trigger.fired else name
            statuses.append(status)
            if status == KILLED and died_in is not None:
                cut.add(died_in)
            in_flight = stages_in_flight(world.state) if status == KILLED else set()
            log.info("tests.crash.killed", stage=name, run=run, status=status, died_in=died_in, in_flight=in_flight)
    assert run_forked(world) == 0
    chain_s = time.monotonic() - started
    log.info("tests.crash.chain", seconds=round(chain_s, 1), killed=statuses.count(KILLED))
    assert statuses.count(KILLED) >= 15
    assert cut == {name for name, _, _ in STAGES}
    assert asyncio.run(world.census()) == medium_reference
