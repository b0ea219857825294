"""`bridge status` opens with one line a person can trust (its figures are the state's) and ends with the next
step; a run whose process is gone reads "interrupted (no live process)", never `running`."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from sqlmodel import col, select

from bridge.cli import cli
from bridge.commands import status_view
from bridge.emulator.control.faults import FaultPlan
from bridge.verify import report as verify_report
from state import CrosswalkEntry, RunRow, open_state
from tests.support.world import fresh_world

BRIDGE = str(Path(sys.executable).parent / "bridge")


def _status(state: Path | str, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["status", "--state", str(state), *args])
    return result.exit_code, result.output


def _json(state: Path | str, *args: str) -> dict[str, Any]:
    code, output = _status(state, "--json", *args)
    assert code == 0, output
    said: dict[str, Any] = json.loads(output)
    return said


def _until(found: Callable[[], bool], what: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not found():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def _edit_run(state: Path, **values: object) -> None:
    """Change the last run's row as another process or an earlier time would have left it."""
    with open_state(state) as store, store.database.write() as session:
        row = session.exec(select(RunRow).order_by(col(RunRow.id).desc())).first()
        assert row is not None
        for name, value in values.items():
            setattr(row, name, value)
        session.add(row)


@pytest.fixture
def finished(tmp_path: Path) -> Path:
    """A state with one run that took 83.4 s and two records migrated."""
    path = tmp_path / "bridge-state.db"
    with open_state(path) as store:
        run = store.runs.start("acme", "legacy:ws-acme", "v1:wrk_acme", {})
        assert run.id is not None
        store.crosswalk.put([CrosswalkEntry("space", "S1", "spc_1"), CrosswalkEntry("phase", "est", "phs_1", "P1")])
        store.runs.finish(run.id, "completed")
    with open_state(path) as store:
        (row,) = store.runs.last_runs(1)
    assert row.finished_at is not None
    _edit_run(path, finished_at=row.started_at + timedelta(seconds=83.4))
    return path


def _reconciliation(directory: Path, *, run: str, reconciled: bool, at: str, migration: str = "acme") -> None:
    """A report of `bridge verify` as it writes it (only the fields status reads matter here)."""
    directory.mkdir(parents=True)
    report = {"migration": migration, "run": run, "reconciled": reconciled, "generated_at": at}
    (directory / "reconciliation.json").write_text(json.dumps(report))


def test_the_opening_line_says_the_states_figures_and_the_last_line_the_next_step(
    finished: Path, tmp_path: Path
) -> None:
    """Migration and target, the run's outcome and duration, the records the crosswalk maps, the newest verify of
    this migration (another migration's report is passed over); the next step follows from them."""
    reports = tmp_path / "reports"
    code, output = _status(finished, "--report-dir", str(reports))
    assert code == 0, output
    lines = output.splitlines()
    assert lines[0] == (
        "migration acme -> v1:wrk_acme: run 1 completed in 1 min 23 s; 2 records migrated; last verify: none found"
    )
    assert lines[-1] == "next: bridge verify"
    assert "Records (crosswalk)" in output
    assert "Journal: write requests by status" in output

    _reconciliation(reports / "run-1", run="1", reconciled=False, at="2026-11-28T10:00:00Z")
    _reconciliation(reports / "run-1b", run="1", reconciled=True, at="2026-11-28T11:00:00Z")
    _reconciliation(reports / "other", run="1", reconciled=False, at="2026-11-28T12:00:00Z", migration="zeta")
    said = _json(finished, "--report-dir", str(reports))
    assert said["headline"].endswith("last verify: reconciled (run 1, 2026-11-28T11:00:00Z)")
    assert said["last_verify"]["report"] == str(reports / "run-1b" / "reconciliation.json")
    assert said["runs"][0]["duration_s"] == 83.4
    assert sum(info["migrated"] for info in said["records"].values()) == 2
    assert said["next"].startswith("nothing")
    assert status_view.JSON_NAME == verify_report.JSON_NAME  # status looks for the file verify writes


def test_a_run_whose_pid_now_names_another_process_is_interrupted(finished: Path) -> None:
    """A pid is reused: the run's recorded process start no longer matches the live process of that pid."""
    _edit_run(finished, status="running", finished_at=None, process_started="another-boot:1")
    said = _json(finished)
    assert (said["runs"][0]["status"], said["runs"][0]["process"]) == ("interrupted", "gone")
    assert "run 1 interrupted (no live process)" in said["headline"]
    assert said["next"].startswith("bridge run: it resumes where run 1 stopped")


def test_a_run_on_another_host_is_not_called_interrupted(finished: Path) -> None:
    """From here a process on another host cannot be checked: still running, and said so."""
    _edit_run(finished, status="running", finished_at=None, host="elsewhere.example")
    run = _json(finished)["runs"][0]
    assert (run["status"], run["process"]) == ("running", "unknown")
    assert "its process not checkable from here" in _status(finished)[1].splitlines()[0]


@pytest.mark.wire
@pytest.mark.slow
def test_status_after_a_sigkilled_run_says_interrupted(tmp_path: Path) -> None:
    """A real `bridge run` is `running` with its pid while it works; SIGKILLed mid-run, status says
    "interrupted (no live process)", and its next step is to run again (which resumes)."""
    world = fresh_world(tmp_path / "state.db")
    world.app.state.emulator.faults.set_plan(FaultPlan(latency_ms=100))  # slow enough to be caught mid-run
    with (
        world.served() as served,
        subprocess.Popen(
            [BRIDGE, "run"], env=served.env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        ) as run,
    ):
        try:

            def working() -> bool:
                code, output = _status(served.state, "--json")
                return code == 0 and any(n["done"] for n in json.loads(output)["journal"].values())

            _until(working, "the run's first writes")
            live = _json(served.state)
            assert (live["runs"][0]["status"], live["runs"][0]["pid"]) == ("running", run.pid)
            assert f"(pid {run.pid} on {socket.gethostname()})" in live["headline"]
        finally:
            run.send_signal(signal.SIGKILL)
            run.wait(timeout=30)
    assert run.returncode == -signal.SIGKILL
    said = _json(served.state)
    assert (said["runs"][0]["status"], said["runs"][0]["process"]) == ("interrupted", "gone")
    with open_state(served.state, read_only=True) as store:
        migrated = sum(store.crosswalk.counts().values())
    assert migrated > 0
    code, output = _status(served.state)
    assert code == 0
    lines = output.splitlines()
    assert lines[0].startswith(f"migration {said['runs'][0]['migration']} -> {said['target']}: run 1 ")
    assert f"run 1 interrupted (no live process); {migrated:,} records migrated" in lines[0]
    assert "running" not in lines[0]
    assert lines[-1].startswith("next: bridge run: it resumes where run 1 stopped")
