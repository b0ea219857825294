"""A test-only crash hook: kill this process at a named write point of a named kind.

Crash tests set ``BRIDGE_TEST_KILL_AT=<kind>:<point>:<n>`` on a ``bridge run`` subprocess; the n-th time
(1-based) that kind reaches that point, the process sends itself SIGKILL, so nothing (no ``finally``, no
flush, no clean close of the state file) runs after it, exactly like a power cut of the process. Unset (the
normal case) the hook does nothing. ``<kind>`` may be ``*`` for any kind.

The points, in the order one write passes them:

- ``journal``: the intent is built but its journal row is not yet committed;
- ``sent``: the intent is committed (pending), the request is about to leave;
- ``service``: the service has committed the write and answered, the engine has not read the answer (from the
  engine's side this is the same instant as a response lost after the service committed);
- ``response``: the answer is read and the v1 ids known, the crosswalk commit has not happened;
- ``done``: the completion and the crosswalk entries are committed.
"""

from __future__ import annotations

import os
import signal
from collections import Counter

POINTS = ("journal", "sent", "service", "response", "done")
ENV_VAR = "BRIDGE_TEST_KILL_AT"


class KillSwitch:
    """Counts passes through write points and kills the process at the configured one."""

    def __init__(self, spec: str | None) -> None:
        self._target: tuple[str, str, int] | None = None
        self._hits: Counter[tuple[str, str]] = Counter()
        if spec:
            kind, point, nth = spec.split(":")
            if point not in POINTS:
                raise ValueError(f"{ENV_VAR}={spec!r}: point must be one of {', '.join(POINTS)}")
            self._target = (kind, point, int(nth))

    @classmethod
    def from_env(cls) -> KillSwitch:
        """The switch configured by the environment (inactive when the variable is unset)."""
        return cls(os.environ.get(ENV_VAR))

    def reach(self, kind: str, point: str) -> None:
        """Record one pass of ``kind`` through ``point``; die here if this is the configured pass."""
        if self._target is None:
            return
        want_kind, want_point, nth = self._target
        if point != want_point or want_kind not in ("*", kind):
            return
        self._hits[(want_kind, point)] += 1
        if self._hits[(want_kind, point)] == nth:
            os.kill(os.getpid(), signal.SIGKILL)
