"""`bridge status` and `bridge crosswalk export|lookup` only read: whatever --state names, nothing about it changes.

Each case is a path an operator might pass by mistake (or on purpose, for the symlink): the commands answer
with the documented exit code and a message naming the path and what to do, never a traceback, and every
file's bytes (where readable), mode and link target are as they were. SQLite's own -wal and -shm files may
appear beside a WAL state file a reader opened (they are its shared memory); nothing else may.
"""

from __future__ import annotations

import os
import shutil
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner

from bridge.cli import cli
from state import CrosswalkEntry, open_state
from state.schema import REVISIONS
from tests.test_files import null_device

FIXTURE_0001 = Path(__file__).resolve().parent / "fixtures" / "state-0001.db"

COMMANDS = {
    "status": ("status",),
    "status --json": ("status", "--json"),
    "export": ("crosswalk", "export", "--format", "csv"),
    "lookup": ("crosswalk", "lookup", "space", "S1"),
}


@dataclass(frozen=True)
class Case:
    """A path to pass as --state, the paths whose state must not change, and the documented answer."""

    state: Path
    watched: tuple[Path, ...]
    code: int
    says: tuple[str, ...]


def _current_state(directory: Path) -> Path:
    """A state file of this bridge's schema, loosened to 0644 so a chmod would show."""
    path = directory / "bridge-state.db"
    with open_state(path) as store:
        store.crosswalk.put([CrosswalkEntry("space", "S1", "spc_1")])
    path.chmod(0o644)
    return path


def _symlink(directory: Path) -> Case:
    target = _current_state(directory)
    link = directory / "current.db"
    link.symlink_to(target.name)
    return Case(link, (link, target), 0, ())


def _empty(directory: Path) -> Case:
    path = directory / "empty.db"
    path.touch()
    path.chmod(0o644)
    return Case(path, (path,), 2, ("holds no bridge state", str(path)))


def _old_schema(directory: Path) -> Case:
    path = directory / "old.db"
    shutil.copy(FIXTURE_0001, path)
    path.chmod(0o644)
    return Case(path, (path,), 2, ("schema version 0001", REVISIONS[-1], "`bridge plan` or `bridge run`", str(path)))


def _device(directory: Path) -> Case:
    device = null_device(directory)
    return Case(device, (device,), 2, ("is a device", "not a state file"))


def _fifo(directory: Path) -> Case:
    """A FIFO: SQLite opening it would block forever waiting for a writer; it is refused first."""
    path = directory / "pipe"
    os.mkfifo(path, 0o644)
    return Case(path, (path,), 2, ("is a FIFO", "not a state file"))


CASES: dict[str, Callable[[Path], Case]] = {
    "symlink to a state file": _symlink,
    "empty file": _empty,
    "old schema": _old_schema,
    "device node": _device,
    "FIFO": _fifo,
}


def _snapshot(path: Path) -> tuple[int, bytes | str | None]:
    """A path's own mode and content: a symlink's target name, a regular file's bytes, nothing for the rest."""
    info = path.lstat()
    if stat.S_ISLNK(info.st_mode):
        return info.st_mode, os.readlink(path)
    if stat.S_ISREG(info.st_mode):
        return info.st_mode, path.read_bytes()
    return info.st_mode, None


@pytest.fixture(params=list(CASES), ids=list(CASES))
def case(request: pytest.FixtureRequest, tmp_path: Path) -> Case:
    return CASES[request.param](tmp_path)


@pytest.mark.parametrize("command", list(COMMANDS))
def test_reading_commands_change_no_file_they_are_pointed_at(case: Case, command: str, tmp_path: Path) -> None:
    """The documented exit code and message, no traceback; bytes, modes, links as they were; no new file but
    SQLite's -wal/-shm."""
    before = {path: _snapshot(path) for path in case.watched}
    names_before = {entry.name for entry in tmp_path.iterdir()}
    result = CliRunner().invoke(cli, [*COMMANDS[command], "--state", str(case.state)])
    output = result.stdout + result.stderr
    assert result.exit_code == case.code, output
    assert "Traceback" not in output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    for phrase in case.says:
        assert phrase in result.stderr
    assert {path: _snapshot(path) for path in case.watched} == before
    created = {entry.name for entry in tmp_path.iterdir()} - names_before
    assert all(name.endswith(("-wal", "-shm")) for name in created), created


def test_an_old_state_file_refused_by_status_reads_once_a_writer_upgraded_it(tmp_path: Path) -> None:
    """Opening the old file as `bridge plan` and `bridge run` do (a writer) upgrades it; status then reads it."""
    path = tmp_path / "old.db"
    shutil.copy(FIXTURE_0001, path)
    open_state(path).close()
    result = CliRunner().invoke(cli, ["status", "--json", "--state", str(path)])
    assert result.exit_code == 0, result.output
    assert f'"schema_version": "{REVISIONS[-1]}"' in result.stdout


def test_a_sync_upgrades_an_old_state_file_as_a_run_does(tmp_path: Path) -> None:
    """`bridge sync` writes, so it opens an old state file as `bridge run` does (upgraded), not as status does."""
    path = tmp_path / "old.db"
    shutil.copy(FIXTURE_0001, path)
    env = {
        "BRIDGE_LEGACY_URL": "http://127.0.0.1:9/api/v1",
        "BRIDGE_V1_URL": "http://127.0.0.1:9/v1",
        "BRIDGE_LEGACY_KEY": "legacy-key-for-the-upgrade-test",
        "BRIDGE_V1_TOKEN": "tok_token-for-the-upgrade-test",
    }
    result = CliRunner().invoke(cli, ["sync", "--once", "--state", str(path)], env=env)
    assert "schema version 0001" not in result.output
    assert "127.0.0.1:9" in result.output  # past the state: the first request finds nothing listening
    status = CliRunner().invoke(cli, ["status", "--json", "--state", str(path)])
    assert f'"schema_version": "{REVISIONS[-1]}"' in status.stdout
