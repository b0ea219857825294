"""The crash tests' observer of the engine's write points: it kills this process at a chosen pass.

``KillSwitch("<kind>:<point>:<n>")``: the n-th time (1-based) that kind reaches that point, the process sends
itself SIGKILL, so nothing (no ``finally``, no flush, no clean close of the state file) runs after it, exactly
like a power cut of the process. ``<kind>`` may be ``*`` for any kind. It is handed to `bridge run` as click's
context object (``forked.run_forked``), or to ``migrate`` as its observer.
"""

from __future__ import annotations

import os
import signal
from collections import Counter

from bridge.engine.points import POINTS
from bridge.engine.writes import Write


class KillSwitch:
    """Counts passes through write points and kills the process at the configured one."""

    def __init__(self, spec: str) -> None:
        self._hits: Counter[tuple[str, str]] = Counter()
        kind, point, nth = spec.split(":")
        if point not in POINTS:
            raise ValueError(f"kill point {spec!r}: point must be one of {', '.join(POINTS)}")
        self._target = (kind, point, int(nth))

    def reached(self, write: Write, point: str) -> None:
        """Record one pass of ``write``'s kind through ``point``; die here if this is the configured pass."""
        want_kind, want_point, nth = self._target
        if point != want_point or want_kind not in ("*", write.kind.value):
            return
        self._hits[(want_kind, point)] += 1
        if self._hits[(want_kind, point)] == nth:
            os.kill(os.getpid(), signal.SIGKILL)
