"""Moments and dates on the wire: both surfaces write ISO 8601 with UTC as ``Z`` and read RFC 3339.

``wire_moment`` writes a stored moment; ``is_date_time`` is what a published ``format: date-time`` accepts;
``DateTime`` and ``Date`` are those formats as the response contracts' field types (legacy and v1 alike).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Annotated

from pydantic import AfterValidator

# RFC 3339 date-time, as OpenAPI's ``format: date-time`` names it: a date, T, a time, and a zone (Z or offset).
DATE_TIME = re.compile(r"^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$")
DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def is_date_time(text: str) -> bool:
    """Whether ``text`` is an RFC 3339 date-time naming a real moment (no 31 February, no hour 24)."""
    if not DATE_TIME.match(text):
        return False
    try:
        datetime.fromisoformat(text.upper().replace("Z", "+00:00"))
    except ValueError:
        return False
    return True


def wire_moment(moment: datetime) -> str:
    """A moment as both surfaces write it: ISO 8601, with UTC as ``Z``.

    A UTC moment is formatted once and looked up after: a record's stamps are written in every answer that
    shows it and change only when it does, and formatting them was about 6% of the emulator's CPU. Only UTC
    moments are kept, since an aware moment equals (and hashes like) the same instant at another offset.
    """
    return _utc_text(moment) if moment.tzinfo is UTC else _text(moment)


def _text(moment: datetime) -> str:
    return moment.isoformat().replace("+00:00", "Z")


_utc_text = functools.lru_cache(maxsize=1 << 16)(_text)


def checked(name: str, valid: Callable[[str], bool]) -> AfterValidator:
    """A contract field type's check: the value as it is, or an error naming the format it misses."""

    def check(value: str) -> str:
        if not valid(value):
            raise ValueError(f"{value!r} is not a valid {name}")
        return value

    return AfterValidator(check)


DateTime = Annotated[str, checked("date-time", is_date_time)]
Date = Annotated[str, checked("date", lambda value: DATE.match(value) is not None)]
