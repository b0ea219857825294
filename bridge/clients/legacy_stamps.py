"""What a legacy answer says of when its records were written: ``lastModified`` (``updatedAt`` on a project).

Bridge mode reads them twice: a cutover proves a frozen project stayed quiet (``sync.quiet``), and a sync cycle
notes, as it reads, the write times of records changed since the last cycle, to say each written record's lag
(``STAMPED``, ``sync.lag``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import UTC, datetime

STAMPS = ("lastModified", "updatedAt")
WRITE_TIME = re.compile(rb'"(?:lastModified|updatedAt)"\s*:\s*"([^"]{1,64})"')
# A nested list's records are named by the list they sit in.
KINDS_BY_KEY = {
    "phases": "phase",
    "fringes": "fringe",
    "globals": "global",
    "lines": "line",
    "items": "purchase order item",
    "purchaseOrders": "purchase order",
    "subactuals": "actual part",
    "subActuals": "actual part",
}


@dataclass(frozen=True, slots=True, order=True)
class Stamp:
    """One legacy record's write time, as the record publishes it."""

    at: datetime
    kind: str
    legacy_id: str


def _parsed(value: object) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        found = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return found if found.tzinfo else found.replace(tzinfo=UTC)


def stamps(node: object, kind: str) -> Iterator[Stamp]:
    """Every record in a decoded legacy answer that names its id and a write time."""
    if isinstance(node, list):
        for item in node:
            yield from stamps(item, kind)
        return
    if not isinstance(node, dict):
        return
    found = next((at for key in STAMPS if (at := _parsed(node.get(key))) is not None), None)
    if found is not None and isinstance(node.get("id"), str):
        yield Stamp(found, kind, node["id"])
    for key, value in node.items():
        if isinstance(value, dict | list) and key not in {"contact", "totals"}:
            yield from stamps(value, KINDS_BY_KEY.get(key, kind))


@dataclass(slots=True)
class Stamped:
    """The write times, by legacy id, of the records read that were written at ``since`` or later."""

    since: datetime
    found: dict[str, datetime] = field(default_factory=dict)

    def note(self, content: bytes, body: object) -> None:
        """The write times since ``since`` that ``body`` (decoded from ``content``) names."""
        # Walking a decoded body is the cost (a project's every actual); one whose text names no write time since
        # is passed over first, by a scan of its bytes.
        texts = (match.group(1).decode(errors="replace") for match in WRITE_TIME.finditer(content))
        if not any((at := _parsed(text)) is not None and at >= self.since for text in texts):
            return
        for stamp in stamps(body, ""):
            if stamp.at >= self.since:
                self.found[stamp.legacy_id] = stamp.at


STAMPED: ContextVar[Stamped | None] = ContextVar("legacy_stamped", default=None)
"""Where the legacy client notes write times while a sync cycle reads (a context variable: the cycle's reads run
in many tasks)."""


@contextmanager
def stamping(since: datetime | None) -> Iterator[dict[str, datetime]]:
    """The write times at ``since`` or later of the records read inside the block (none noted when None)."""
    if since is None:
        yield {}
        return
    stamped = Stamped(since)
    token = STAMPED.set(stamped)
    try:
        yield stamped.found
    finally:
        STAMPED.reset(token)
