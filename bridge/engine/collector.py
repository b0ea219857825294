"""The pace of Python's cyclic garbage collector while a run is in progress.

A run allocates a few containers per record (decoded rows, validated records, bodies, notes, tallies) and
frees nearly all of them by reference counting, yet CPython starts a young collection every 700 containers
allocated and not freed, and every hundredth one walks the whole heap. In a medium migration (4,266
requests) that was about 2.5 s of the engine's 15 s of CPU: 1,700 young, 160 middle and 14 full collections.
With a young collection every 10,000 containers it is about 1.1 s: 230, 21 and 2. Cycles are still
collected, only later: the young generation holds at most YOUNG_THRESHOLD containers more.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Final

YOUNG_THRESHOLD: Final = 10_000


class _Pace:
    """Runs in progress in this process (a fleet worker may overlap some) and the thresholds found before."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.runs = 0
        self.found: tuple[int, int, int] = gc.get_threshold()


_PACE = _Pace()


@contextmanager
def run_pace() -> Iterator[None]:
    """Young collections every YOUNG_THRESHOLD containers while any run is in progress; the last run to end
    puts back the thresholds the first one found."""
    with _PACE.lock:
        if _PACE.runs == 0:
            _PACE.found = gc.get_threshold()
            young, middle, old = _PACE.found
            # A threshold of 0 means collection is off: left so.
            gc.set_threshold(max(YOUNG_THRESHOLD, young) if young else 0, middle, old)
        _PACE.runs += 1
    try:
        yield
    finally:
        with _PACE.lock:
            _PACE.runs -= 1
            if _PACE.runs == 0:
                gc.set_threshold(*_PACE.found)
