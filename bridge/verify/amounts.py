"""Every amount a report shows, written one way: the terminal, the Markdown and the HTML call these.

An amount is ``1,234.56 USD``: thousands separators and the currency's own number of decimals (JPY none, BHD
three: babel's ISO-4217 data, the same the mappings use; ``convert.format_minor``), then the ISO code, so an
amount copied out of any of the three renderings reads the same and names its currency. A difference
carries its sign (``+12.00 USD``, ``-0.50 USD``, ``0.00 USD``); an absent figure is a dash. Amounts are
integers in minor units (or the legacy surface's decimal text) and are formatted exactly, whatever their size.

The strings are plain text: each renderer escapes them like any other text it writes.
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from typing import Final

from bridge.verify.convert import format_major, format_minor

ABSENT: Final = "—"


def amount(minor: int | None, currency: str) -> str:
    """Minor units as ``1,234.56 USD``; an absent figure as a dash."""
    return ABSENT if minor is None else f"{format_minor(minor, currency)} {currency}"


def signed(minor: int | None, currency: str) -> str:
    """A difference: ``+1,234.56 USD``, ``-0.50 USD``, zero as ``0.00 USD``; an absent one as a dash."""
    return ("+" if minor is not None and minor > 0 else "") + amount(minor, currency)


def as_computed(text: str | None, currency: str) -> str:
    """A legacy figure as the legacy surface computed it (decimal text, phase currency): separated like every
    amount, with at least the currency's decimals and every further digit it has (``0.30000000000000004
    USD``: the float the legacy surface summed to is shown, never rounded away). Text that is no number is
    kept as it is."""
    if text is None:
        return ABSENT
    try:
        value = Decimal(text)
    except InvalidOperation:
        return f"{text} {currency}"
    shown = format_major(value, currency, every_digit=True) if value.is_finite() else text
    return f"{shown} {currency}"


def number(count: int) -> str:
    """A count of records or totals, with thousands separators (``13,730``)."""
    return f"{count:,}"
