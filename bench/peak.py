"""Wall time and peak memory of a command, each run a fresh process spawned from this small one.

Linux counts in a child's max RSS (``wait4``) the resident set it had before ``exec``, which is its parent's:
the child starts as a copy of the parent (or, under ``posix_spawn``, shares it). Spawned from the bench's own
process (the state store loaded, about 60 MB), a 16 MB command reads as 60 MB; spawned from here, a bare
interpreter importing nothing of the project, the figure is the command's own whenever the command is the larger
(the answer gives this process's size for the caller to check).

    python -m bench.peak REPEATS COMMAND [ARG...]
    -> {"runs": [[wall_s, max_rss_mb, cpu_s], ...], "spawner_rss_mb": ...}   (one JSON line on stdout)
"""

from __future__ import annotations

import json
import os
import sys
import time

MB = 1024  # Linux counts ru_maxrss and VmHWM in KiB


def once(argv: list[str]) -> tuple[float, float, float]:
    """One run, its output discarded: wall seconds from spawn to exit, its max resident set in MB, and its CPU
    seconds (user and system: what a busy machine does not stretch, unlike the wall)."""
    silent = [(os.POSIX_SPAWN_OPEN, fd, os.devnull, os.O_WRONLY, 0) for fd in (1, 2)]
    started = time.perf_counter()
    pid = os.posix_spawn(argv[0], argv, dict(os.environ), file_actions=silent)
    _, status, usage = os.wait4(pid, 0)
    wall = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"{' '.join(argv)} exited {os.waitstatus_to_exitcode(status)}")
    return wall, usage.ru_maxrss / MB, usage.ru_utime + usage.ru_stime


def _high_water() -> float:
    """This process's peak resident set since its exec, in MB: what a child's figure starts from.

    Not ``getrusage(RUSAGE_SELF)``: that too counts what this process held before its own exec (its parent's)."""
    with open("/proc/self/status", encoding="ascii") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmHWM:")) / MB


def main() -> int:
    repeats, argv = int(sys.argv[1]), sys.argv[2:]
    runs = [once(argv) for _ in range(repeats)]
    print(json.dumps({"runs": runs, "spawner_rss_mb": _high_water()}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
