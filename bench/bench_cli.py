"""The CLI's start-up: `bridge --help`, `bridge status` and `bridge config show`, each a fresh process.

Each command runs as the operator runs it (the installed console script), ``REPEATS`` times after one run that
warms the disk cache; figures: the median wall time from spawn to exit and the largest resident set. `status`
reads a small state file made here (one finished run, a bulk of crosswalk entries, one intent in flight);
`config show` reads the same settings as a run would, from a clean environment.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from state import CrosswalkEntry, IntentSpec, open_state

REPEATS = 7
BRIDGE = Path(sys.executable).with_name("bridge")


def _state(path: Path) -> None:
    """A state as a small migration leaves it: a finished run with its report, a bulk done, one in flight."""
    with open_state(path) as store:
        run = store.runs.start("bench-cli", "legacy", "target", {"concurrency": 8})
        members = tuple(f"L{n}" for n in range(100))
        done = IntentSpec("lines:P1:0", "lines", "POST", "/budget/lines/bulk", "bench-cli-0", "{}", members, "P1")
        store.journal.record(done)
        store.journal.complete(done.step_key, [CrosswalkEntry("lines", m, f"lin_{m}", "P1", "h") for m in members])
        store.journal.record(IntentSpec("lines:P1:1", "lines", "POST", "/budget/lines/bulk", "bench-cli-1", "{}"))
        assert run.id is not None
        store.runs.finish(run.id, "completed", {"kinds": {"lines": {"to_create": 100, "requests": 1}}})


def _once(args: tuple[str, ...], env: dict[str, str]) -> tuple[float, float]:
    """One run: wall seconds and max resident set in MB (the child's own, from wait4)."""
    silent = [(os.POSIX_SPAWN_OPEN, fd, os.devnull, os.O_WRONLY, 0) for fd in (1, 2)]
    started = time.perf_counter()
    pid = os.posix_spawn(BRIDGE, [BRIDGE.name, *args], env, file_actions=silent)
    _, status, usage = os.wait4(pid, 0)
    wall = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"bridge {' '.join(args)} exited {os.waitstatus_to_exitcode(status)}")
    return wall, usage.ru_maxrss / 1024  # Linux counts ru_maxrss in KiB


def _measure(args: tuple[str, ...], env: dict[str, str]) -> tuple[float, float]:
    _once(args, env)
    runs = [_once(args, env) for _ in range(REPEATS)]
    return round(statistics.median(w for w, _ in runs), 3), round(max(r for _, r in runs), 1)


def run() -> dict[str, object]:
    # The caller's own BRIDGE_* settings would change what `config show` and `status` read.
    env = {k: v for k, v in os.environ.items() if not k.startswith("BRIDGE_")}
    figures: dict[str, object] = {"repeats": REPEATS}
    with tempfile.TemporaryDirectory() as directory:
        state = Path(directory) / "state.db"
        _state(state)
        commands = {
            "help": ("--help",),
            "status": ("status", "--state", str(state)),
            "config_show": ("config", "show", "--state", str(state)),
        }
        for name, args in commands.items():
            wall, rss = _measure(args, env)
            figures[f"{name}_wall_s"] = wall
            figures[f"{name}_max_rss_mb"] = rss
    return figures
