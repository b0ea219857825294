"""`bridge sync --watch` SIGKILLed at random instants while legacy keeps changing: nothing twice, nothing lost.

Each round changes legacy (an actual's amount, a new actual, an older new one deleted), starts a watch as a
real process and kills it at a seeded random instant. After the last round one `sync --once` finishes. The
target, read through v1, must then equal what one clean sync of the same final legacy leaves on a fresh target
(as multisets: a duplicate is a count of two, a loss a missing key), and the sync log's chain must hold.
`make soak` runs 20 rounds (``SYNC_KILLS``); `make test` runs fewer.
"""

from __future__ import annotations

import asyncio
import os
import random
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from bridge.emulator.control.faults import FaultPlan
from bridge.sync.log import verify_chain
from tests.support.synced import bridge, legacy, synced
from tests.support.world import SMALL_PROJECT, World

ROUNDS = int(os.environ.get("SYNC_KILLS", "6"))
pytestmark = [pytest.mark.wire, pytest.mark.slow, pytest.mark.timeout(120 + 30 * ROUNDS)]


def _change(world: World, round_: int) -> None:
    """Round ``round_``'s legacy edits: deterministic, so a fresh emulator given the same rounds ends the same."""
    with legacy(world) as old:
        rows = old.get(f"/projects/{SMALL_PROJECT}/actuals", params={"idMode": "system"}).json()["actuals"]
        plain = [row for row in rows if not row.get("subactuals")]
        edited = plain[round_ % len(plain)]
        answer = old.put(f"/projects/{SMALL_PROJECT}/actuals/{edited['id']}", json={"amount": 100 + round_})
        assert answer.is_success, answer.text
        new = {"date": edited["date"], "amount": 10 + round_, "description": f"late {round_}"}
        new["accountId"] = edited["accountId"]
        assert old.post(f"/projects/{SMALL_PROJECT}/actuals", json=new).status_code == 201
        gone = [row for row in rows if row.get("description") == f"late {round_ - 2}"]
        for row in gone:
            assert old.delete(f"/projects/{SMALL_PROJECT}/actuals/{row['id']}").status_code == 204


def _reference(state: Path) -> Counter[tuple[str, ...]]:
    """What one sync of the final legacy leaves on a fresh target."""
    with synced(state) as world:
        for round_ in range(ROUNDS):
            _change(world, round_)
        code, output = bridge(world, "sync", "--once", "--project", SMALL_PROJECT)
        assert code == 0, output
        return asyncio.run(world.census())


def test_random_sigkills_of_a_watch_leave_no_duplicate_no_loss_and_an_intact_chain(
    served: World, tmp_path: Path
) -> None:
    reference = _reference(tmp_path / "reference.sqlite")
    # Every answer held 10 ms, so a cycle lasts long enough for the kills to land inside it, not only between.
    served.emulator.faults.set_plan(FaultPlan(latency_ms=10))
    rng = random.Random(32)
    command = [str(Path(sys.executable).parent / "bridge"), "sync", "--watch", "--interval", "100ms"]
    killed = 0
    for round_ in range(ROUNDS):
        _change(served, round_)
        process = subprocess.Popen(
            [*command, "--project", SMALL_PROJECT],
            env=served.env(),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        time.sleep(rng.uniform(0.2, 1.5))
        if process.poll() is None:
            process.send_signal(signal.SIGKILL)
            killed += 1
        process.wait(timeout=60)
    assert killed >= ROUNDS // 2
    served.emulator.faults.set_plan(FaultPlan())
    code, output = bridge(served, "sync", "--once", "--project", SMALL_PROJECT)
    assert code == 0, output
    assert asyncio.run(served.census()) == reference
    check = verify_chain(Path(f"{served.state}.sync.jsonl"))
    assert check.broken is None
