"""A writer killed with SIGKILL at any instant leaves a sound state holding whole transitions only.

Every case runs on both backends: a SQLite file, and a PostgreSQL schema (where the kill drops the writer's
connection mid-transaction and the server rolls it back).
"""

from __future__ import annotations

import random
import shutil
import signal
import time
from pathlib import Path

import pytest
from sqlalchemy import inspect, text
from sqlmodel import select

from state.models import SessionRow
from state.schema import REVISIONS
from tests.pg import Backend, StateTarget, load_sqlite_file, state_target_in
from tests.state import writer
from tests.state.conftest import ForkedWriter, forked_writer

POINTS = range(len(writer.TRANSITIONS) + 1)
UPGRADE_FIXTURE = Path(__file__).resolve().parent / "fixtures" / "state-0001.db"


@pytest.fixture
def crashed(backend: Backend, scratch: Path, request: pytest.FixtureRequest) -> StateTarget:
    """A new state for a writer to crash on: a file on tmpfs, or a PostgreSQL schema of its own."""
    return state_target_in(backend, scratch, request)


def _writer(state_target: StateTarget, expected_file: Path | None, *args: str) -> ForkedWriter:
    return forked_writer(expected_file, state_target.location, *args, migration=state_target.migration)


def _assert_recovers_to(
    state_target: StateTarget, expected: list[writer.Snapshot], transitions_held: int | None, pid: int
) -> None:
    """Open after the crash: integrity holds, the state is an exact prefix, and the run resumes to the end."""
    with state_target.open() as store:
        assert store.integrity_problems() == []
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
    crashed: StateTarget, expected: list[writer.Snapshot], expected_file: Path, after: int
) -> None:
    """SIGKILL right after transition K committed: the state holds transitions 1..K exactly and resumes."""
    process = _writer(crashed, expected_file, "kill-after", str(after))
    process.communicate(timeout=60)
    assert process.returncode == -signal.SIGKILL
    _assert_recovers_to(crashed, expected, after, process.pid)


@pytest.mark.slow
@pytest.mark.parametrize("inside", POINTS[1:])
def test_kill_inside_a_transition_keeps_none_of_it(
    crashed: StateTarget, expected: list[writer.Snapshot], expected_file: Path, inside: int
) -> None:
    """SIGKILL inside transition K, its statements run but not committed: the state holds 1..K-1 only."""
    process = _writer(crashed, expected_file, "kill-inside", str(inside))
    process.communicate(timeout=60)
    assert process.returncode == -signal.SIGKILL
    _assert_recovers_to(crashed, expected, inside - 1, process.pid)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(4))
def test_kill_at_a_random_instant_leaves_a_prefix(
    crashed: StateTarget, expected: list[writer.Snapshot], expected_file: Path, seed: int
) -> None:
    """SIGKILL at a seeded random time while transitions commit (inside COMMIT too): a whole prefix survives."""
    process = _writer(crashed, expected_file, "loop")
    assert process.stdout is not None
    assert process.stdout.readline().strip() == "started"
    time.sleep(random.Random(seed).uniform(0.0, 0.08))
    process.send_signal(signal.SIGKILL)
    process.communicate(timeout=60)
    _assert_recovers_to(crashed, expected, None, process.pid)


@pytest.mark.slow
@pytest.mark.parametrize("commit", [1, 2, 3])
def test_kill_during_a_schema_upgrade_leaves_a_whole_revision(crashed: StateTarget, commit: int) -> None:
    """SIGKILL inside each commit of opening an 0001 state: it is at one whole revision and upgrades after."""
    if crashed.backend == "sqlite":
        shutil.copy(UPGRADE_FIXTURE, crashed.location)
    else:
        load_sqlite_file(UPGRADE_FIXTURE, crashed, "0001")
    process = _writer(crashed, None, "kill-upgrade", str(commit))
    process.communicate(timeout=60)
    assert process.returncode == -signal.SIGKILL
    engine = crashed.engine()
    try:
        with engine.connect() as connection:
            version = connection.execute(text("SELECT version_num FROM alembic_version")).scalar_one()
        columns = {column["name"] for column in inspect(engine).get_columns("quarantine")}
    finally:
        engine.dispose()
    assert ("value" in columns) == (version != "0001"), "the version table and the schema disagree"
    with crashed.open() as store:
        assert store.schema_version() == REVISIONS[-1]
        assert store.integrity_problems() == []
        assert store.crosswalk.counts() == {"spaces": 1, "projects": 1, "phases": 1}
        assert [i.step_key for i in store.journal.in_flight()] == ["lines:P1:bulk:0"]
