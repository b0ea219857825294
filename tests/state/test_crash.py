"""A writer killed with SIGKILL at any instant leaves a sound file holding whole transitions only."""

from __future__ import annotations

import random
import shutil
import signal
import sqlite3
import time
from pathlib import Path

import pytest
from sqlmodel import select

from state import open_state
from state.db import integrity_problems
from state.models import SessionRow
from state.schema import REVISIONS
from tests.state import writer
from tests.state.conftest import writer_process

POINTS = range(len(writer.TRANSITIONS) + 1)
UPGRADE_FIXTURE = Path(__file__).resolve().parent / "fixtures" / "state-0001.db"


def _assert_recovers_to(path: Path, expected: list[writer.Snapshot], transitions_held: int | None, pid: int) -> None:
    """Open after the crash: integrity holds, the file is an exact prefix, and the run resumes to the end."""
    with open_state(path) as store:
        assert integrity_problems(store.database.engine) == []
        held = writer.snapshot(store)
        assert held in expected, "the file holds part of a transition"
        if transitions_held is not None:
            assert held == expected[transitions_held]
        with store.database.read() as session:
            crashed = session.exec(select(SessionRow).where(SessionRow.pid == pid)).one()
        assert crashed.closed_at is None
        assert crashed.checked_at is not None, "an unclean stop must be integrity-checked on the next open"
        writer.drive(store, expected)
        assert writer.snapshot(store) == expected[-1]


@pytest.mark.slow
@pytest.mark.parametrize("after", POINTS)
def test_kill_between_transitions_keeps_every_committed_one(
    scratch: Path, expected: list[writer.Snapshot], expected_file: Path, after: int
) -> None:
    """SIGKILL right after transition K committed: the file holds transitions 1..K exactly and resumes."""
    path = scratch / "state.db"
    process = writer_process(expected_file, str(path), "kill-after", str(after))
    process.communicate(timeout=60)
    assert process.returncode == -signal.SIGKILL
    _assert_recovers_to(path, expected, after, process.pid)


@pytest.mark.slow
@pytest.mark.parametrize("inside", POINTS[1:])
def test_kill_inside_a_transition_keeps_none_of_it(
    scratch: Path, expected: list[writer.Snapshot], expected_file: Path, inside: int
) -> None:
    """SIGKILL inside transition K, its statements run but not committed: the file holds 1..K-1 only."""
    path = scratch / "state.db"
    process = writer_process(expected_file, str(path), "kill-inside", str(inside))
    process.communicate(timeout=60)
    assert process.returncode == -signal.SIGKILL
    _assert_recovers_to(path, expected, inside - 1, process.pid)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(4))
def test_kill_at_a_random_instant_leaves_a_prefix(
    scratch: Path, expected: list[writer.Snapshot], expected_file: Path, seed: int
) -> None:
    """SIGKILL at a seeded random time while transitions commit (inside COMMIT too): a whole prefix survives."""
    path = scratch / "state.db"
    process = writer_process(expected_file, str(path), "loop")
    assert process.stdout is not None
    assert process.stdout.readline().strip() == "started"
    time.sleep(random.Random(seed).uniform(0.0, 0.08))
    process.send_signal(signal.SIGKILL)
    process.communicate(timeout=60)
    _assert_recovers_to(path, expected, None, process.pid)


@pytest.mark.slow
@pytest.mark.parametrize("commit", [1, 2, 3])
def test_kill_during_a_schema_upgrade_leaves_a_whole_revision(scratch: Path, commit: int) -> None:
    """SIGKILL inside each commit of opening an 0001 file: the file is at one whole revision and upgrades after."""
    path = scratch / "state.db"
    shutil.copy(UPGRADE_FIXTURE, path)
    process = writer_process(None, str(path), "kill-upgrade", str(commit))
    process.communicate(timeout=60)
    assert process.returncode == -signal.SIGKILL
    with sqlite3.connect(path) as connection:
        version = connection.execute("SELECT version_num FROM alembic_version").fetchone()[0]
        columns = {row[1] for row in connection.execute("PRAGMA table_info(quarantine)")}
    assert ("value" in columns) == (version != "0001"), "the version table and the schema disagree"
    with open_state(path) as store:
        assert store.schema_version() == REVISIONS[-1]
        assert store.integrity_problems() == []
        assert store.crosswalk.counts() == {"spaces": 1, "projects": 1, "phases": 1}
        assert [i.step_key for i in store.journal.in_flight()] == ["lines:P1:bulk:0"]
