"""The watch's soaks (`make soak`; not part of `make test`): edits every second for an hour, memory flat, state
lean; and five minutes of the issue's edits on `medium`, every quiet cycle reconciled at zero tolerance.

A `bridge sync --watch --interval 5s` process runs while legacy changes every second (an actual's amount; every
tenth second a new actual, and the one added twenty seconds before deleted). Its resident memory is sampled every
few seconds: after a warm-up (a sixth of the run), the mean of the last sixth must be within 5% of the first
sixth's. The state file may grow only with what changed: at most ``BYTES_PER_CHANGE`` per legacy change made
after the warm-up. SIGTERM then ends it with exit 0 and the sync log's chain intact.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bridge.sync.log import verify_chain
from tests.support.synced import bridge, legacy
from tests.support.world import SMALL_PROJECT, World, fresh_world

SECONDS = float(os.environ.get("SOAK_SECONDS", "0"))
# The watch of `medium` under edits (run with the soak).
MEDIUM_SECONDS = 300.0
# A changed actual rewrites its crosswalk entry and mark and journals one intent (its body included).
BYTES_PER_CHANGE = 4096

pytestmark = [
    pytest.mark.wire,
    pytest.mark.slow,
    pytest.mark.skipif(SECONDS <= 0, reason="the soak runs under `make soak` (SOAK_SECONDS)"),
]


def _rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError(f"no VmRSS for {pid}")


def _edit(world: World, second: int, added: list[str]) -> None:
    with legacy(world) as old:
        rows = old.get(f"/projects/{SMALL_PROJECT}/actuals", params={"idMode": "system"}).json()["actuals"]
        plain = next(row for row in rows if not row.get("subactuals"))
        assert old.put(
            f"/projects/{SMALL_PROJECT}/actuals/{plain['id']}", json={"amount": 100 + second % 50}
        ).is_success
        if second % 10 == 0:
            new = {
                "date": plain["date"],
                "amount": 7.5,
                "description": f"soak {second}",
                "accountId": plain["accountId"],
            }
            answer = old.post(f"/projects/{SMALL_PROJECT}/actuals", json=new)
            assert answer.status_code == 201
            added.append(answer.json()["id"])
            if len(added) > 2:
                assert old.delete(f"/projects/{SMALL_PROJECT}/actuals/{added.pop(0)}").status_code == 204


@pytest.mark.timeout(SECONDS + 600)  # its own length, and the last cycle's end after SIGTERM
def test_an_hour_of_edits_keeps_the_watch_flat_and_the_state_lean(served: World) -> None:
    command = [str(Path(sys.executable).parent / "bridge"), "sync", "--watch", "--interval", "5s"]
    process = subprocess.Popen(
        [*command, "--project", SMALL_PROJECT], env=served.env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    state = Path(str(served.state))
    start = time.monotonic()
    samples: list[tuple[float, int]] = []
    added: list[str] = []
    warm, window = SECONDS / 6, SECONDS / 6
    size_after_warmup: int | None = None
    changes_after_warmup = 0
    second = 0
    try:
        while (elapsed := time.monotonic() - start) < SECONDS:
            _edit(served, second, added)
            if elapsed >= warm:
                if size_after_warmup is None:
                    size_after_warmup = state.stat().st_size
                changes_after_warmup += 1 + (second % 10 == 0) * 2
            if second % 5 == 0:
                samples.append((elapsed, _rss_kib(process.pid)))
            assert process.poll() is None, process.stderr.read() if process.stderr else ""
            second += 1
            time.sleep(max(0.0, start + second - time.monotonic()))
    finally:
        process.send_signal(signal.SIGTERM)
        _, errors = process.communicate(timeout=300)
    assert process.returncode == 0, errors
    first = [rss for at, rss in samples if warm <= at < warm + window]
    last = [rss for at, rss in samples if at >= SECONDS - window]
    first_mean, last_mean = sum(first) / len(first), sum(last) / len(last)
    print(f"soak {SECONDS:.0f} s: RSS first {first_mean / 1024:.1f} MiB, last {last_mean / 1024:.1f} MiB")
    assert abs(last_mean - first_mean) <= 0.05 * first_mean, (first_mean, last_mean)
    assert size_after_warmup is not None
    growth = state.stat().st_size - size_after_warmup
    print(f"state grew {growth:,} bytes over {changes_after_warmup:,} legacy changes")
    assert growth <= BYTES_PER_CHANGE * changes_after_warmup
    assert verify_chain(Path(f"{served.state}.sync.jsonl")).broken is None


def _medium_edit(world: World, step: int, project: str) -> None:
    """The issue's edits, one every few seconds in turn: a line's rate, an actual's amount, a new actual, an actual
    deleted, the project renamed."""
    with legacy(world) as old:
        if step % 5 == 0:
            budget = old.get(f"/projects/{project}/budget", params={"idMode": "system", "expands[]": "phases"}).json()
            # subAccounts: each account by id, with its lines (the runbooks read `.subAccounts[].lines[]`).
            lines = (row for account in budget["subAccounts"].values() for row in account["lines"])
            line = next(row for row in lines if row["type"] == "line")
            body = {"type": "line", "phaseData": {budget["phases"][0]["id"]: {"rate": 1000 + step}}}
            assert old.put(f"/projects/{project}/budget/line/{line['id']}", json=body).is_success
            return
        rows = old.get(f"/projects/{project}/actuals", params={"idMode": "system"}).json()["actuals"]
        plain = [row for row in rows if not row.get("subactuals") and not row.get("purchaseOrderId")]
        actual = plain[step % len(plain)]
        if step % 5 == 1:
            assert old.put(f"/projects/{project}/actuals/{actual['id']}", json={"amount": 50 + step}).is_success
        elif step % 5 == 2:
            new = {
                "date": actual["date"],
                "amount": 12.5,
                "description": f"late {step}",
                "accountId": actual["accountId"],
            }
            assert old.post(f"/projects/{project}/actuals", json=new).status_code == 201
        elif step % 5 == 3:
            assert old.delete(f"/projects/{project}/actuals/{actual['id']}").status_code == 204
        else:
            assert old.put(f"/projects/{project}", json={"name": f"Renamed {step}"}).is_success


@pytest.mark.timeout(1800)
def test_five_minutes_of_edits_on_medium_reconcile_after_each_quiet_cycle(tmp_path: Path) -> None:
    """`sync --watch --interval 5s --fail-on rounding` on `medium` while legacy changes every 3 s for 5 minutes:
    every cycle that verifies (one that finds nothing to write) reconciles at zero tolerance, and so does a last
    verify once the edits stop."""
    world = fresh_world(tmp_path / "state.sqlite", "medium", projects=())
    with world.served() as served:
        assert bridge(served, "run")[0] == 0
        assert bridge(served, "sync", "--once")[0] == 0
        with legacy(served) as old:
            project = old.get("/projects", params={"idMode": "system"}).json()["projects"][0]["id"]
        command = [str(Path(sys.executable).parent / "bridge"), "sync", "--watch", "--interval", "5s"]
        process = subprocess.Popen(
            [*command, "--fail-on", "rounding"], env=served.env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT
        )
        start = time.monotonic()
        step = 0
        while time.monotonic() - start < MEDIUM_SECONDS:
            _medium_edit(served, step, project)
            step += 1
            time.sleep(3)
        process.send_signal(signal.SIGTERM)
        output = process.communicate(timeout=600)[0].decode()
        assert process.returncode == 0, output
        for _ in range(2):  # the last edits written (if the watch's last cycle did not), then a quiet cycle
            code, said = bridge(served, "sync", "--once", "--fail-on", "rounding")
            assert code == 0, said
        records = [json.loads(line)["record"] for line in Path(f"{served.state}.sync.jsonl").read_text().splitlines()]
        verified = [r["verdict"] for r in records if r["verdict"]["verified"]]
        print(f"medium, {step} edits in {MEDIUM_SECONDS:.0f} s: {len(records)} cycles, {len(verified)} verified")
        assert all(verdict["reconciled"] for verdict in verified), [v for v in verified if not v["reconciled"]]
        # Once the edits stopped, a quiet cycle verified what the last writes left.
        assert any(r["verdict"]["verified"] for r in records[-3:]), records[-3:]
        assert not records[-1]["unverified"]
