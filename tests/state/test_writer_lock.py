"""One writer per state file: a second writer is refused while the first lives, and a killed one frees it."""

from __future__ import annotations

import os
import signal
import stat
from pathlib import Path

import pytest

from bridge.cli import exit_code
from state.errors import StateInUseError, StateLocationError
from state.store import open_state
from tests.state.conftest import writer_process


def test_a_second_writer_is_refused_while_the_first_is_open(store_path: Path) -> None:
    """A second writer gets StateInUseError naming the holder's pid; a reader may still look."""
    with open_state(store_path) as first:
        first.runs.start("m", "legacy:a", "v1:b", {})
        with pytest.raises(StateInUseError) as refused:
            open_state(store_path)
        assert f"pid {os.getpid()}" in str(refused.value)
        assert "bridge status" in str(refused.value)
        assert exit_code(refused.value) == 3
        with open_state(store_path, read_only=True) as reader:
            assert len(reader.runs.last_runs()) == 1
    with open_state(store_path) as again:  # closed cleanly: free again
        assert len(again.runs.last_runs()) == 1


def test_the_lock_file_is_private(store_path: Path) -> None:
    """The sidecar lock file is readable by its owner only, like the state file."""
    open_state(store_path).close()
    lock = store_path.with_name(store_path.name + "-lock")
    assert stat.S_IMODE(lock.stat().st_mode) == 0o600


def test_a_lock_file_planted_as_a_symlink_is_refused_and_its_target_untouched(store_path: Path) -> None:
    """A `-lock` symlink is exit 2 naming the lock file; the file it points at is not truncated."""
    victim = store_path.with_name("victim.txt")
    victim.write_text("keep me\n")
    store_path.with_name(store_path.name + "-lock").symlink_to(victim.name)
    with pytest.raises(StateLocationError, match=r"writer lock .*-lock") as refused:
        open_state(store_path)
    assert exit_code(refused.value) == 2
    assert victim.read_text() == "keep me\n"


@pytest.mark.slow
def test_a_writer_killed_with_sigkill_leaves_no_stale_lock(expected_file: Path, store_path: Path) -> None:
    """While a live writer process holds the file it is refused; once SIGKILLed, the next writer opens it."""
    process = writer_process(expected_file, str(store_path), "drive")
    assert process.stdout is not None
    assert process.stdout.readline().strip() == "started"
    try:
        with pytest.raises(StateInUseError) as refused:
            open_state(store_path)
        assert f"pid {process.pid}" in str(refused.value)
    finally:
        process.send_signal(signal.SIGKILL)
        process.communicate(timeout=30)
    with open_state(store_path) as store:
        assert store.integrity_problems() == []
