"""The emulator's own money rules (it shares none with the bridge, so one bug cannot hide on both sides).

Minor-unit digits come from CLDR through babel (JPY 0, USD 2, KWD 3); rounding is half-even (A09, A11).
"""

from __future__ import annotations

from decimal import ROUND_HALF_EVEN, Decimal
from functools import lru_cache

from babel.numbers import get_currency_precision


@lru_cache(maxsize=256)
def minor_digits(code: str) -> int:
    """How many decimal places the currency's minor unit has (unknown codes get CLDR's default, 2)."""
    return int(get_currency_precision(code.upper()))


@lru_cache(maxsize=256)
def _quantum(code: str) -> Decimal:
    return Decimal(1).scaleb(-minor_digits(code))


def round_minor(amount: Decimal, code: str) -> Decimal:
    """``amount`` rounded half-even to the currency's minor unit, still in major units."""
    return amount.quantize(_quantum(code), rounding=ROUND_HALF_EVEN)


def to_minor_units(amount: Decimal, code: str) -> int:
    """``amount`` (major units) as an integer count of minor units, rounded half-even."""
    return int(round_minor(amount, code).scaleb(minor_digits(code)))


def convert(amount: Decimal, rate: Decimal, target_code: str) -> Decimal:
    """``amount`` times an exchange ``rate``, rounded to ``target_code``'s minor unit (A09)."""
    return round_minor(amount * rate, target_code)
