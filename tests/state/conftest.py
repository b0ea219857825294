"""Fixtures for the state tests: a fresh store on a temporary file, and the scripted writer's snapshots."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

import pytest

from state import StateStore
from tests.pg import StateTarget
from tests.state import writer
from tests.support.forked import fork

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


@dataclass(slots=True)
class ForkedWriter:
    """The scripted writer in a child forked from the test: a real process to kill, without an interpreter start.

    The same surface as the Popen of ``writer_process`` (pid, stdout, send_signal, communicate, returncode);
    forking after the imports saves each crash case about a second of start-up, which on two CPUs is most
    of what a case costs.
    """

    pid: int
    stdout: TextIO
    returncode: int | None = None

    def send_signal(self, number: int) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, number)

    def communicate(self, timeout: float) -> str:
        """Wait for the child's end (killing it past ``timeout``); what it printed that was not read yet."""
        deadline = time.monotonic() + timeout
        while True:
            reaped, status = os.waitpid(self.pid, os.WNOHANG)
            if reaped:
                break
            if time.monotonic() > deadline:
                self.send_signal(signal.SIGKILL)
                os.waitpid(self.pid, 0)
                raise TimeoutError(f"the writer did not end within {timeout} s")
            time.sleep(0.005)
        self.returncode = os.waitstatus_to_exitcode(status)
        with self.stdout:
            return self.stdout.read()


def forked_writer(expected_file: Path | None, *args: str, migration: str = "default") -> ForkedWriter:
    """Run ``writer.main(args)`` in a forked child on the migration given (PostgreSQL); its stdout piped."""
    read_end, write_end = os.pipe()
    # No collection may be closing a connection (holding a driver lock) at the fork.
    pid = fork()
    if pid == 0:  # the child: run the writer and leave without running the parent's cleanups
        code = 70
        try:
            os.close(read_end)
            os.dup2(write_end, 1)
            sys.stdout = open(1, "w", closefd=False)  # noqa: SIM115 -- the child's stdout until os._exit
            os.environ[writer.MIGRATION_VARIABLE] = migration
            if expected_file is not None:
                os.environ["WRITER_EXPECTED"] = str(expected_file)
            writer.main(list(args))
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
        except BaseException:  # noqa: BLE001 -- whatever it is, the child shows it before its _exit
            traceback.print_exc()
            code = 1
        finally:
            os._exit(code)
    os.close(write_end)
    return ForkedWriter(pid, open(read_end))


@pytest.fixture
def store_path(tmp_path: Path) -> Path:
    """A path for a state file that does not exist yet."""
    return tmp_path / "bridge-state.db"
