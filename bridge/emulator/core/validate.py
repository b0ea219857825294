"""Field checks the store applies to every write, whichever surface it came from.

Each check returns the cleaned value or raises ``InvalidInput`` naming the field, so a surface can pass a
parsed JSON value straight through. The dirty seed bypasses these (it writes records directly).
"""

from __future__ import annotations

import math
import re
from decimal import Decimal, InvalidOperation
from typing import TypeVar

from bridge.emulator.core.errors import InvalidInput

T = TypeVar("T", bound=str)

HEX_COLOR = re.compile(r"^#[0-9A-Fa-f]{6}$")
CONTROL_CHARS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f]")
MAX_MAGNITUDE = Decimal(2) ** 53


def text(field: str, value: object, *, max_len: int = 255, required: bool = False) -> str | None:
    """A string of at most ``max_len`` characters; ``required`` refuses None and the empty string."""
    if value is None:
        if required:
            raise InvalidInput(field, "is required; send a non-empty string")
        return None
    if not isinstance(value, str):
        raise InvalidInput(field, f"must be a string, got {type(value).__name__}")
    if required and not value.strip():
        raise InvalidInput(field, "must not be empty")
    if len(value) > max_len:
        raise InvalidInput(field, f"is {len(value)} characters; the limit is {max_len}")
    if CONTROL_CHARS.search(value):
        raise InvalidInput(field, "contains control characters; remove them")
    return value


def required_text(field: str, value: object, *, max_len: int = 255) -> str:
    """Like ``text`` with ``required=True``, typed as never None."""
    cleaned = text(field, value, max_len=max_len, required=True)
    assert cleaned is not None  # required=True never returns None
    return cleaned


def number(field: str, value: object, *, allow_none: bool = True) -> Decimal | None:
    """A finite number (int, float or numeric string) as Decimal; floats go through ``str`` so 0.1 stays 0.1."""
    if value is None:
        if allow_none:
            return None
        raise InvalidInput(field, "is required; send a number")
    if isinstance(value, bool):
        raise InvalidInput(field, "must be a number, got a boolean")
    if isinstance(value, float) and not math.isfinite(value):
        raise InvalidInput(field, "must be a finite number")
    if not isinstance(value, int | float | str | Decimal):
        raise InvalidInput(field, f"must be a number, got {type(value).__name__}")
    try:
        parsed = Decimal(str(value))
    except InvalidOperation as exc:
        raise InvalidInput(field, f"{value!r} is not a number") from exc
    if not parsed.is_finite():
        raise InvalidInput(field, "must be a finite number")
    if abs(parsed) > MAX_MAGNITUDE:
        raise InvalidInput(field, "is larger than 2**53; amounts that large are refused")
    return parsed


def required_number(field: str, value: object) -> Decimal:
    """A finite number that must be present."""
    parsed = number(field, value, allow_none=False)
    assert parsed is not None  # allow_none=False never returns None
    return parsed


def cell(field: str, value: object) -> Decimal | str | None:
    """A phase-data cell: a finite number, or a formula string starting with '=' (A24)."""
    if isinstance(value, str) and value.startswith("="):
        return text(field, value, max_len=2000)
    return number(field, value)


def color(field: str, value: object) -> str | None:
    """A ``#RRGGBB`` colour or None."""
    cleaned = text(field, value, max_len=7)
    if cleaned is not None and not HEX_COLOR.match(cleaned):
        raise InvalidInput(field, f"{cleaned!r} is not a colour like #1A2B3C")
    return cleaned


def flag(field: str, value: object) -> bool:
    """A JSON boolean."""
    if not isinstance(value, bool):
        raise InvalidInput(field, "must be true or false")
    return value


def choice(field: str, value: object, allowed: tuple[T, ...]) -> T:
    """One of ``allowed``."""
    for option in allowed:
        if value == option:
            return option
    raise InvalidInput(field, f"{value!r} is not one of {', '.join(allowed)}")


def string_list(field: str, value: object, *, max_len: int = 255) -> list[str]:
    """A list of strings (None = empty list)."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise InvalidInput(field, "must be an array of strings")
    return [required_text(f"{field}[{i}]", item, max_len=max_len) for i, item in enumerate(value)]
