"""The commands that only look (`status`, `crosswalk export`, verify) read a state file in a folder their user may
not write: exactly, when no run has it open; with a clear "what to do" when one may (never "free disk space")."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from bridge.cli import cli
from state.crosswalk import CrosswalkEntry
from state.store import open_state

NOBODY = 65534


def _as_reader(work: Callable[[], str]) -> str:
    """``work``'s answer, run by a user who may not write the folder: ourselves after ``chmod``, or (as root,
    whom no mode stops) a forked child that became ``nobody``."""
    if os.geteuid() != 0:
        return work()
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover (the child's coverage is not collected)
        os.close(read)
        try:
            os.setgid(NOBODY)
            os.setuid(NOBODY)
            answer = work()
        except BaseException as exc:  # noqa: BLE001 (every failure is the answer the parent checks)
            answer = f"raised {type(exc).__name__}: {exc}"
        os.write(write, answer.encode())
        os._exit(0)
    os.close(write)
    chunks = []
    while chunk := os.read(read, 65536):
        chunks.append(chunk)
    os.close(read)
    os.waitpid(pid, 0)
    return b"".join(chunks).decode()


@pytest.fixture
def folder(tmp_path: Path) -> Iterator[Path]:
    """A folder holding a closed state file with one run and one crosswalk entry, readable by all."""
    # Every folder above it must be passable for the reader (pytest's own are private to their owner).
    made = Path(tempfile.mkdtemp(prefix="bridge-ro-")) if os.geteuid() == 0 else tmp_path / "ro"
    made.mkdir(exist_ok=True)
    made.chmod(0o755)
    state = made / "state.db"
    with open_state(state) as store:
        run = store.runs.start("m", "legacy:a", "v1:b", {})
        store.crosswalk.put([CrosswalkEntry("project", "prj_1", "v1_prj_1")], run_id=run.id)
    state.chmod(0o644)
    yield made
    made.chmod(0o755)
    shutil.rmtree(made)


def _cli(*args: str) -> Callable[[], str]:
    def invoke() -> str:
        result = CliRunner().invoke(cli, list(args))
        return f"exit {result.exit_code}\n{result.output}"

    return invoke


def test_status_and_export_read_a_closed_state_in_a_read_only_folder(folder: Path) -> None:
    state = str(folder / "state.db")
    folder.chmod(0o555)
    try:
        status = _as_reader(_cli("status", "--state", state))
        export = _as_reader(_cli("crosswalk", "export", "--state", state, "--format", "json"))
    finally:
        folder.chmod(0o755)
    assert status.startswith("exit 0"), status
    assert "legacy:a" in status
    assert export.startswith("exit 0"), export
    rows = json.loads(export.split("\n", 1)[1])
    assert [row["v1_id"] for row in rows] == ["v1_prj_1"]
    assert sorted(os.listdir(folder)) == ["state.db", "state.db-lock"]  # nothing made beside it


def test_a_state_a_run_may_be_writing_says_what_to_do(folder: Path) -> None:
    state = folder / "state.db"
    with open_state(state):  # a writer: its -wal file is there while it runs
        folder.chmod(0o555)
        try:
            status = _as_reader(_cli("status", "--state", str(state)))
        finally:
            folder.chmod(0o755)
    assert status.startswith("exit 2"), status
    said = " ".join(status.split())
    assert "folder this user may not write" in said
    assert "copy the state file" in said
    assert "disk space" not in said
