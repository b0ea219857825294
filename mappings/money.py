"""Legacy numbers to v1 Money: integer minor units with the currency's ISO-4217 exponent (from babel).

The one rounding rule: ROUND_HALF_EVEN to the currency's minor unit (banker's rounding, so rounding errors
do not drift one way over many lines; A09 and the emulator use the same rule). Every conversion goes
through ``Decimal(str(x))`` (the shortest repr of the float the legacy surface sent, never binary float
arithmetic) and returns the rounding it introduced, so a plan and the verifier can say exactly how far
rounding moved each total. Where a field is Money on the target and rounding would change the value (an
actual of 10.5 in JPY), the conversion is refused instead (``exact=True``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Context, Decimal, Inexact, InvalidOperation, localcontext
from functools import cache
from typing import Final, TypedDict

from babel.numbers import get_currency_precision, is_currency

from mappings.errors import ErrorCode, MappingError
from mappings.records import RawNumber
from mappings.refs import RecordRef

ROUNDING: Final = ROUND_HALF_EVEN
MAX_MAGNITUDE: Final = Decimal(2**53)
"""Beyond 2^53 a legacy float no longer holds every integer, so the value cannot be trusted to the unit."""

EXACT: Final = Context(prec=1000, rounding=ROUND_HALF_EVEN, traps=[Inexact, InvalidOperation])
"""Sums and differences of legacy values are exact: 1000 digits hold any float's decimal expansion (the
smallest subnormal needs ~770) plus the integer part, and Inexact traps rather than drops a digit."""

_ROUNDING_CONTEXT: Final = Context(prec=1000, rounding=ROUND_HALF_EVEN)
_UNIT: Final = Decimal(1)
_PLAIN_DECIMAL = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)")
_EXPONENT = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)[eE][+-]?\d+")
_NAN_WORDS = frozenset({"nan", "+nan", "-nan"})
_INF_WORDS = frozenset({"inf", "+inf", "-inf", "infinity", "+infinity", "-infinity"})


class Money(TypedDict):
    """v1 Money: integer minor units and an ISO-4217 code."""

    amount: int
    currency: str


@dataclass(frozen=True, slots=True)
class Conversion:
    """One value converted: the Money sent, the exact legacy value and the rounding (sent - exact, major units)."""

    money: Money
    exact: Decimal
    rounding: Decimal


@dataclass(frozen=True, slots=True)
class MoneyTotal:
    """A sum of conversions in one currency, with the exact rounding the total carries."""

    money: Money
    exact: Decimal
    rounding: Decimal


def parse_decimal(value: RawNumber, ref: RecordRef, field: str) -> Decimal:
    """A legacy number as an exact Decimal; every malformed shape raises its own catalogue code."""
    if value is None:
        raise MappingError(ErrorCode.NUMBER_MISSING, ref, field, value)
    if isinstance(value, bool):
        raise MappingError(ErrorCode.NUMBER_NOT_NUMERIC, ref, field, value)
    if isinstance(value, int):
        number = Decimal(value)
    elif isinstance(value, float):
        if math.isnan(value):
            raise MappingError(ErrorCode.NUMBER_NAN, ref, field, value)
        if math.isinf(value):
            raise MappingError(ErrorCode.NUMBER_INFINITE, ref, field, value)
        number = Decimal(str(value))
    elif isinstance(value, str):
        number = _parse_text(value, ref, field)
    else:  # a JSON array or object where a number belongs
        raise MappingError(ErrorCode.NUMBER_NOT_NUMERIC, ref, field, value)
    if abs(number) > MAX_MAGNITUDE:
        raise MappingError(ErrorCode.NUMBER_TOO_LARGE, ref, field, value)
    return number


def _parse_text(value: str, ref: RecordRef, field: str) -> Decimal:
    text = value.strip()
    lowered = text.lower()
    if not text:
        raise MappingError(ErrorCode.NUMBER_EMPTY, ref, field, value)
    if lowered in _NAN_WORDS:
        raise MappingError(ErrorCode.NUMBER_NAN, ref, field, value)
    if lowered in _INF_WORDS:
        raise MappingError(ErrorCode.NUMBER_INFINITE, ref, field, value)
    if "," in text or "_" in text or " " in text:
        raise MappingError(ErrorCode.NUMBER_THOUSANDS_SEPARATOR, ref, field, value)
    if _EXPONENT.fullmatch(text):
        raise MappingError(ErrorCode.NUMBER_EXPONENT, ref, field, value)
    if not _PLAIN_DECIMAL.fullmatch(text):
        raise MappingError(ErrorCode.NUMBER_NOT_NUMERIC, ref, field, value)
    try:
        return Decimal(text)
    except InvalidOperation as exc:  # pragma: no cover - the pattern above admits only valid decimals
        raise MappingError(ErrorCode.NUMBER_NOT_NUMERIC, ref, field, value) from exc


def currency_code(code: str | None, ref: RecordRef, field: str) -> str:
    """An upper-case ISO-4217 code the currency library knows; missing or unknown codes raise."""
    if code is None or not code.strip():
        raise MappingError(ErrorCode.CURRENCY_MISSING, ref, field, code)
    normalized = code.strip().upper()
    if not _is_iso_4217(normalized):
        raise MappingError(ErrorCode.CURRENCY_UNKNOWN, ref, field, code)
    return normalized


@cache
def _is_iso_4217(code: str) -> bool:
    # Cached: babel's lookup dominates a conversion's cost and its answer never changes in a process.
    return len(code) == 3 and code.isascii() and bool(is_currency(code))


@cache
def exponent(currency: str) -> int:
    """The ISO-4217 minor-unit exponent of a validated code (JPY 0, USD 2, BHD 3)."""
    return int(get_currency_precision(currency))


def to_money(value: RawNumber, currency: str, ref: RecordRef, field: str, *, exact: bool = False) -> Conversion:
    """Convert a legacy major-unit number to Money in ``currency`` (already validated by ``currency_code``).

    With ``exact`` a value that would need rounding is refused (MONEY_TOO_PRECISE) rather than rounded.
    """
    number = parse_decimal(value, ref, field)
    places = exponent(currency)
    # Each operation names its context rather than entering a copy of EXACT (a third of a conversion's cost):
    # the same precision and traps, so the same results and the same refusals; only EXACT's flags record what
    # was signalled, and nothing reads them. The one deliberate rounding is outside the Inexact trap.
    minor = number.scaleb(places, EXACT).quantize(_UNIT, rounding=ROUNDING, context=_ROUNDING_CONTEXT)
    sent = minor.scaleb(-places, EXACT)
    delta = EXACT.subtract(sent, number)
    if exact and sent != number:
        raise MappingError(
            ErrorCode.MONEY_TOO_PRECISE, ref, field, value, f"{currency} allows {places} decimal place(s)"
        )
    return Conversion(Money(amount=int(minor), currency=currency), number, delta)


def to_major(money: Money) -> Decimal:
    """A Money value back in major units, exactly."""
    return Decimal(money["amount"]).scaleb(-exponent(money["currency"]))


def total(conversions: Iterable[Conversion], currency: str) -> MoneyTotal:
    """The sum of conversions in one currency: what was sent, what was exact and their exact difference."""
    amount = 0
    exact_sum = Decimal(0)
    with localcontext(EXACT):
        for conversion in conversions:
            if conversion.money["currency"] != currency:
                raise ValueError(
                    f"cannot total {conversion.money['currency']} into {currency}: convert with an exchange rate first"
                )
            amount += conversion.money["amount"]
            exact_sum += conversion.exact
        sent = Money(amount=amount, currency=currency)
        return MoneyTotal(sent, exact_sum, to_major(sent) - exact_sum)
