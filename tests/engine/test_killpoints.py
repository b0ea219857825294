"""The test-only crash hook does nothing unless configured, and kills at exactly the configured pass."""

from __future__ import annotations

import subprocess
import sys

import pytest

from bridge.engine.killpoints import KillSwitch
from mappings.kinds import Kind

SCRIPT = """
from bridge.engine.killpoints import KillSwitch
from mappings.kinds import Kind
switch = KillSwitch("line:sent:3")
for n in range(1, 6):
    switch.reach(Kind.PHASE, "sent")
    switch.reach(Kind.LINE, "journal")
    switch.reach(Kind.LINE, "sent")
    print(n, flush=True)
"""


def test_unset_switch_never_kills() -> None:
    """Without BRIDGE_TEST_KILL_AT a run passes every point untouched."""
    switch = KillSwitch(None)
    for _ in range(10):
        switch.reach(Kind.LINE, "sent")


def test_switch_kills_at_the_nth_pass_of_its_kind_and_point() -> None:
    """'line:sent:3' dies on the third line send, not on other kinds or points."""
    result = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, check=False, timeout=60)
    assert result.returncode == -9
    assert result.stdout.split() == ["1", "2"]


def test_unknown_point_is_refused() -> None:
    """A typo in the hook names the valid points instead of silently never firing."""
    with pytest.raises(ValueError, match="journal, sent, service, response, done"):
        KillSwitch("line:sending:1")
