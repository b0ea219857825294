"""The crash tests' kill switch kills at exactly the configured pass, and a run hands it every write point."""

from __future__ import annotations

import subprocess
import sys

import pytest

from bridge.engine.kinds import order
from bridge.engine.points import POINTS
from bridge.engine.writes import Write
from tests.support.killswitch import KillSwitch
from tests.support.world import World

SCRIPT = """
from bridge.engine.writes import Write
from mappings.kinds import Kind
from tests.support.killswitch import KillSwitch
switch = KillSwitch("line:sent:3")
phase = Write(Kind.PHASE, "p", "budget_updatePhase", ("prj", "phs"), {"name": "A"}, ("a",))
line = Write(Kind.LINE, "p", "budget_updateLine", ("prj", "lin"), {"description": "A"}, ("a",))
for n in range(1, 6):
    switch.reached(phase, "sent")
    switch.reached(line, "journal")
    switch.reached(line, "sent")
    print(n, flush=True)
"""


def test_switch_kills_at_the_nth_pass_of_its_kind_and_point() -> None:
    """'line:sent:3' dies on the third line send, not on other kinds or points."""
    result = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, check=False, timeout=60)
    assert result.returncode == -9
    assert result.stdout.split() == ["1", "2"]


def test_unknown_point_is_refused() -> None:
    """A typo in the hook names the valid points instead of silently never firing."""
    with pytest.raises(ValueError, match="journal, sent, service, response, done"):
        KillSwitch("line:sending:1")


class Seen:
    """An observer that notes every (kind, point) it is told of."""

    def __init__(self) -> None:
        self.passes: set[tuple[str, str]] = set()

    def reached(self, write: Write, point: str) -> None:
        self.passes.add((write.kind.value, point))


@pytest.mark.anyio
async def test_a_run_tells_its_observer_every_point_of_every_kind(world: World) -> None:
    """Every kind a run writes passes every write point, in sight of the observer it was handed (with every
    opt-in kind asked for, so that every declared kind is written)."""
    seen = Seen()
    await world.run(observer=seen, extras=("tax-documents",))
    assert seen.passes == {(kind.value, point) for kind in order() for point in POINTS}
