"""A fleet heals by itself: the database restarted mid-run, every workspace still ends verified with nobody
acting; a worker frozen past its lease and then resumed is taken over, joins again, and is taken over again
when it dies."""

from __future__ import annotations

import json
import os
import signal
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest
import sqlalchemy as sa

from bridge.fleet.rehearsal import Rehearsal, rehearsal
from bridge.localpg import LocalPostgres

pytestmark = pytest.mark.timeout(900)

OUTAGE_S = 60


def wait_for(what: str, done: Callable[[], bool], within: float) -> None:
    deadline = time.monotonic() + within
    while not done():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.3)


def steps_done(fleet: Rehearsal) -> int:
    return sum(row["steps_done"] for row in fleet.status())


def events(log: Path) -> list[str]:
    return [json.loads(line).get("event", "") for line in log.read_text().splitlines() if line.startswith("{")]


def test_a_database_restart_mid_run_heals_without_an_operator(tmp_path: Path) -> None:
    """PostgreSQL (the fleet's queue and every migration's state) stops for a minute while two workspaces run:
    the worker stays up, each step cut off retries, and both end verified; the log says the database was away
    and back."""
    with LocalPostgres() as server:
        state = server.create_database(f"fleet_{uuid.uuid4().hex[:8]}")
        with rehearsal(tmp_path, state, 2, ("--size", "small", "--latency-ms", "30")) as fleet:
            assert fleet.submit().returncode == 0
            log = tmp_path / "worker.jsonl"
            worker = fleet.start_worker("--workspaces", "2", "--log-file", str(log))
            wait_for("a first step done", lambda: steps_done(fleet) >= 1, 300)
            server.halt()
            time.sleep(OUTAGE_S)
            assert worker.poll() is None, (tmp_path / "worker-1.out").read_text()  # still up with no database
            server.resume()
            wait_for("every workspace verified", lambda: {r["state"] for r in fleet.status()} == {"verified"}, 600)
            rows = fleet.status()
            worker.send_signal(signal.SIGTERM)
            assert worker.wait(timeout=60) == 0, (tmp_path / "worker-1.out").read_text()
    assert {(row["name"], row["state"], row["reconciled"]) for row in rows} == {
        ("ws-01", "verified", True),
        ("ws-02", "verified", True),
    }
    said = events(log)
    assert "bridge.fleet.step.retrying" in said  # the steps cut off by the restart were retried, not stopped
    assert said.index("bridge.fleet.worker.database_away") < said.index("bridge.fleet.worker.database_back")


def test_a_worker_frozen_past_its_lease_joins_again_and_is_taken_over_again(pg: LocalPostgres, tmp_path: Path) -> None:
    """SIGSTOP past the lease: another worker takes its workspace over. SIGCONT: it joins again (alive, its
    beat recorded). SIGKILL: taken over a second time; every workspace ends verified with nobody acting."""
    state = pg.create_database(f"fleet_{uuid.uuid4().hex[:8]}")
    with rehearsal(tmp_path, state, 3, ("--size", "small", "--latency-ms", "30")) as fleet:
        assert fleet.submit().returncode == 0
        frozen = fleet.start_worker("--workspaces", "1")
        wait_for("the first worker to finish a step", lambda: steps_done(fleet) >= 1, 300)
        os.kill(frozen.pid, signal.SIGSTOP)
        helper = fleet.start_worker("--workspaces", "1")
        wait_for("the frozen worker declared dead", lambda: _worker_state(fleet, frozen.pid) == "dead", 120)
        os.kill(frozen.pid, signal.SIGCONT)
        wait_for("the frozen worker alive again", lambda: _worker_state(fleet, frozen.pid) == "alive", 60)
        os.kill(frozen.pid, signal.SIGKILL)
        frozen.wait()
        wait_for("the killed worker taken over again", lambda: _worker_state(fleet, frozen.pid) == "dead", 120)
        wait_for("every workspace verified", lambda: {r["state"] for r in fleet.status()} == {"verified"}, 600)
        rows = fleet.status()
        helper.send_signal(signal.SIGTERM)
        assert helper.wait(timeout=60) == 0
    assert {(row["state"], row["reconciled"]) for row in rows} == {("verified", True)}


def _worker_state(fleet: Rehearsal, pid: int) -> str | None:
    """The fleet's record of the worker with this pid (the newest row: a worker joins once per process)."""
    engine = sa.create_engine(fleet.state)
    try:
        with engine.connect() as connection:
            found = connection.execute(
                sa.text("SELECT state FROM bridge_fleet.workers WHERE pid = :pid ORDER BY started_at DESC LIMIT 1"),
                {"pid": pid},
            ).scalar()
    finally:
        engine.dispose()
    return None if found is None else str(found)
