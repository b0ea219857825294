"""A disk that refuses the N-th write (N = 1..k) leaves a clear error and a sound, resumable file.

How the failure is injected: Python cannot install a SQLite VFS, so the writer subprocess lowers its own
RLIMIT_FSIZE (with SIGXFSZ ignored) so that the N-th WAL frame appended after opening cannot be written; the
kernel fails that write() with EFBIG, exactly where a full disk fails with ENOSPC, and SQLite takes its real
I/O-error path (``PRAGMA max_page_count`` would only exercise a logical limit, not a failed write). The
sweep goes N = 1, 2, ... until the scenario fits, so every write of every transition fails once.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from state import StateStorageError, open_state
from state.db import integrity_problems
from tests.state import writer
from tests.state.conftest import writer_process


@pytest.mark.slow
def test_disk_full_at_every_write_leaves_a_clear_error_and_a_resumable_file(
    scratch: Path, expected: list[writer.Snapshot], expected_file: Path
) -> None:
    """For N = 1..k: the run stops with StateStorageError saying what to do, and the file resumes to the end."""
    base = scratch / "base.db"
    open_state(base).close()
    out = scratch / "sweep"
    out.mkdir()
    process = writer_process(expected_file, str(base), "disk-full", str(out))
    process.communicate(timeout=120)
    assert process.returncode == 0
    outcomes = [json.loads(path.read_text()) for path in sorted(out.glob("n*.json"))]
    failed = [o for o in outcomes if o["error"] is not None]
    assert len(failed) >= len(writer.TRANSITIONS), "every transition should have met a failing write"
    assert outcomes[-1]["error"] is None, "with enough room the scenario completes"
    assert {o["error"] for o in failed} == {StateStorageError.__name__}
    assert all("rerun the same command to resume" in o["message"] for o in failed)
    prefixes = set()
    for outcome in failed:
        path = out / f"n{outcome['n']:03d}.db"
        with open_state(path) as store:
            assert integrity_problems(store.database.engine) == []
            held = writer.snapshot(store)
            assert held in expected, f"write {outcome['n']} failed and left part of a transition"
            prefixes.add(expected.index(held))
            writer.drive(store, expected)
            assert writer.snapshot(store) == expected[-1]
    assert len(prefixes) >= len(writer.TRANSITIONS) - 1, "failures should land in (nearly) every transition"
