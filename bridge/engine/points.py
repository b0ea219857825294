"""The points one write passes through the journal's state machine, and the observer that may watch them.

The executor tells its observer, when it has one, each time a write reaches a point. Nothing in the
bridge observes them: the crash tests hand ``migrate`` (or `bridge run`, through click's context object) an
observer that kills the process at a chosen pass, exactly like a power cut. The points, in the order one
write passes them:

- ``journal``: the intent is built but its journal row is not yet committed;
- ``sent``: the intent is committed (pending), the request is about to leave;
- ``service``: the service has committed the write and answered, the engine has not read the answer (from the
  engine's side this is the same instant as a response lost after the service committed);
- ``response``: the answer is read and the v1 ids known, the crosswalk commit has not happened;
- ``done``: the completion and the crosswalk entries are committed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    from bridge.engine.writes import Write

POINTS = ("journal", "sent", "service", "response", "done")


@runtime_checkable
class WriteObserver(Protocol):
    """Told each time ``write`` reaches ``point`` (one of ``POINTS``)."""

    def reached(self, write: Write, point: str) -> None: ...
