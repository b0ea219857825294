"""The CLI's start-up: `bridge --help`, `bridge status` and `bridge config show`, each a fresh process.

Each command runs as the operator runs it (the installed console script), ``REPEATS`` times after one run that
warms the disk cache, spawned from a bare interpreter (``bench.peak`` says why); figures: the median wall time
from spawn to exit, the median CPU seconds (what a busy machine does not stretch) and the largest resident set.
`status` reads a small state file made here (one finished run, a bulk of crosswalk entries, one intent in
flight); `config show` reads the same settings as a run would, from an environment without the caller's
``BRIDGE_*`` settings.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from state import CrosswalkEntry, IntentSpec, open_state

REPEATS = 7
ROOT = Path(__file__).resolve().parent.parent
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


def measure(args: tuple[str, ...], env: dict[str, str]) -> dict[str, float]:
    """Median wall and CPU seconds and max RSS in MB of `bridge ARGS`, the warming run left out."""
    spawned = subprocess.run(
        [sys.executable, "-m", "bench.peak", str(1 + REPEATS), str(BRIDGE), *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if spawned.returncode != 0:
        raise RuntimeError(f"bench.peak bridge {' '.join(args)}: {spawned.stderr}")
    answer = json.loads(spawned.stdout)
    runs: list[list[float]] = answer["runs"][1:]
    rss = max(r for _, r, _ in runs)
    if rss <= answer["spawner_rss_mb"]:
        raise RuntimeError(f"bridge {' '.join(args)} is no larger than its spawner: its figure would be the spawner's")
    return {
        "wall_s": round(statistics.median(w for w, _, _ in runs), 3),
        "cpu_s": round(statistics.median(c for _, _, c in runs), 3),
        "max_rss_mb": round(rss, 1),
    }


def run() -> dict[str, object]:
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
            figures.update({f"{name}_{key}": value for key, value in measure(args, env).items()})
    return figures
