"""Fixtures for the state tests: a fresh store on a temporary file, and the scripted writer's snapshots."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from state import StateStore
from tests.pg import StateTarget
from tests.state import writer

ROOT = Path(__file__).resolve().parents[2]
WRITER = Path(writer.__file__).resolve()


@pytest.fixture
def store(state_target: StateTarget) -> Iterator[StateStore]:
    """An open store on a new state (a file, or a PostgreSQL schema: each backend in turn), closed after the test."""
    with state_target.open() as opened:
        yield opened


@pytest.fixture
def scratch(tmp_path: Path) -> Iterator[Path]:
    """A directory for files that writer processes crash on: on tmpfs when the machine has one.

    These tests kill processes, not machines: the page cache outlives a SIGKILL, so an fsync adds nothing
    to what they prove, and on tmpfs it costs nothing (each transition is ~3x faster on a busy disk).
    """
    shm = Path("/dev/shm")
    if not (shm.is_dir() and os.access(shm, os.W_OK)):
        yield tmp_path
        return
    directory = Path(tempfile.mkdtemp(prefix="bridge-state-test-", dir=shm))
    try:
        yield directory
    finally:
        shutil.rmtree(directory, ignore_errors=True)


@pytest.fixture(scope="session")
def expected(tmp_path_factory: pytest.TempPathFactory) -> list[writer.Snapshot]:
    """The writer's snapshot before and after each transition, from one uninterrupted in-process run."""
    return writer.expected_snapshots(tmp_path_factory.mktemp("expected") / "state.db")


@pytest.fixture(scope="session")
def expected_file(tmp_path_factory: pytest.TempPathFactory, expected: list[writer.Snapshot]) -> Path:
    """The expected snapshots as the writer subprocess reads them."""
    path = tmp_path_factory.mktemp("expected-file") / "expected.jsonl"
    writer.save_snapshots(expected, path)
    return path


def writer_process(expected_file: Path | None, *args: str, migration: str = "default") -> subprocess.Popen[str]:
    """Start the scripted writer as a real subprocess (stdout piped), on the migration given (PostgreSQL)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), writer.MIGRATION_VARIABLE: migration}
    if expected_file is not None:
        env["WRITER_EXPECTED"] = str(expected_file)
    return subprocess.Popen(
        [sys.executable, "-W", "error", str(WRITER), *args], env=env, stdout=subprocess.PIPE, text=True, cwd=ROOT
    )


@pytest.fixture
def store_path(tmp_path: Path) -> Path:
    """A path for a state file that does not exist yet."""
    return tmp_path / "bridge-state.db"
