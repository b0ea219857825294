"""One writer per state: a second writer is refused while the first lives, and a killed one frees it.

On SQLite the lock is a sidecar file's flock; on PostgreSQL an advisory lock on the writer's connection.
"""

from __future__ import annotations

import os
import signal
import socket
import stat
from pathlib import Path

import pytest

from bridge.cli import exit_code
from state.errors import StateInUseError, StateLocationError
from state.store import open_state
from tests.pg import StateTarget
from tests.state.conftest import forked_writer


def test_a_second_writer_is_refused_while_the_first_is_open(state_target: StateTarget) -> None:
    """A second writer gets StateInUseError naming the holder's pid and host; a reader may still look."""
    with state_target.open() as first:
        first.runs.start("m", "legacy:a", "v1:b", {})
        with pytest.raises(StateInUseError) as refused:
            state_target.open()
        assert f"pid {os.getpid()} on {socket.gethostname()}" in str(refused.value)
        assert "bridge status" in str(refused.value)
        assert exit_code(refused.value) == 3
        with state_target.open(read_only=True) as reader:
            assert len(reader.runs.last_runs()) == 1
    with state_target.open() as again:  # closed cleanly: free again
        assert len(again.runs.last_runs()) == 1


def test_a_second_name_for_the_same_file_is_refused_while_a_writer_holds_it(store_path: Path) -> None:
    """A hard link is the same file under another name (another sidecar): the second writer is still refused,
    and once the first closes the link opens (SQLite only)."""
    open_state(store_path).close()
    link = store_path.with_name("linked.db")
    os.link(store_path, link)
    with open_state(store_path) as first:
        first.runs.start("m", "legacy:a", "v1:b", {})
        with pytest.raises(StateInUseError, match="under another name") as refused:
            open_state(link)
        assert exit_code(refused.value) == 3
    with open_state(link) as again:
        assert len(again.runs.last_runs()) == 1


def test_the_lock_file_is_private(store_path: Path) -> None:
    """The sidecar lock file is readable by its owner only, like the state file (SQLite: PostgreSQL has none)."""
    open_state(store_path).close()
    lock = store_path.with_name(store_path.name + "-lock")
    assert stat.S_IMODE(lock.stat().st_mode) == 0o600


def test_a_lock_file_planted_as_a_symlink_is_refused_and_its_target_untouched(store_path: Path) -> None:
    """A `-lock` symlink is exit 2 naming the lock file; the file it points at is not truncated (SQLite only)."""
    victim = store_path.with_name("victim.txt")
    victim.write_text("keep me\n")
    store_path.with_name(store_path.name + "-lock").symlink_to(victim.name)
    with pytest.raises(StateLocationError, match=r"writer lock .*-lock") as refused:
        open_state(store_path)
    assert exit_code(refused.value) == 2
    assert victim.read_text() == "keep me\n"


@pytest.mark.slow
def test_a_writer_killed_with_sigkill_leaves_no_stale_lock(expected_file: Path, state_target: StateTarget) -> None:
    """While a live writer process holds the state it is refused; once SIGKILLed, the next writer opens it."""
    process = forked_writer(expected_file, state_target.location, "drive", migration=state_target.migration)
    assert process.stdout is not None
    assert process.stdout.readline().strip() == "started"
    try:
        with pytest.raises(StateInUseError) as refused:
            state_target.open()
        assert f"pid {process.pid}" in str(refused.value)
    finally:
        process.send_signal(signal.SIGKILL)
        process.communicate(timeout=30)
    with state_target.open() as store:
        assert store.integrity_problems() == []
