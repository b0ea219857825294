"""Legacy totals (phase currency, major units, floats) to workspace-currency minor units, with the rate used.

The money rules are the mappings' (``mappings.money``): ``Decimal(str(x))`` of the float the legacy surface
sent, the ISO-4217 exponent from babel, and the one rounding rule (half-even). The exchange-rate rule is
assumption A09: one unit of the phase currency is worth ``exchangeRate`` workspace units, and the v1 total
is the phase-currency total times the rate, rounded once to the workspace currency's minor unit.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Context, Decimal, InvalidOperation, localcontext
from typing import Final

from babel.numbers import format_currency

from mappings.errors import ErrorCode, MappingError
from mappings.money import MAX_MAGNITUDE, ROUNDING, exponent, parse_decimal
from mappings.records import RawNumber
from mappings.refs import RecordRef

ONE = Decimal(1)
WIDE: Final = Context(prec=1000, rounding=ROUNDING)
"""Digits enough for any finite amount in a JSON number and its product with a rate, exactly."""
_PATTERN: Final = "#,##0.00"
"""babel's pattern: the decimals are the currency's (``currency_digits``), the figure alone (no symbol)."""


@dataclass(frozen=True, slots=True)
class PhaseRate:
    """How one legacy phase's figures convert: its currency and the rate to the workspace currency (A09)."""

    currency: str
    rate: Decimal
    workspace_currency: str

    @property
    def is_identity(self) -> bool:
        return self.rate == ONE and self.currency == self.workspace_currency


@dataclass(frozen=True, slots=True)
class Converted:
    """A legacy figure as read, and the same figure in workspace minor units."""

    amount: Decimal
    minor: int
    rounding: Decimal
    """minor - exact: how far the single rounding moved it, in workspace minor units (|x| <= 0.5)."""
    precision: Decimal = Decimal(0)
    """How far the legacy float itself may be from the true total, converted (its ulp beyond 2^53, else 0)."""


def convert(value: RawNumber, rate: PhaseRate, ref: RecordRef, field: str) -> Converted:
    """Convert one legacy figure; a figure the legacy surface itself sent malformed raises a MappingError.

    A total beyond 2^53 is not refused as a migrated value would be (the mappings quarantine such records):
    it is what the legacy surface computed, so it is compared, with its float spacing as the precision.
    """
    try:
        amount = parse_decimal(value, ref, field)
    except MappingError as error:
        if error.code != ErrorCode.NUMBER_TOO_LARGE or not isinstance(value, int | float):
            raise
        amount = Decimal(str(value))
    return convert_amount(amount, rate)


def convert_amount(amount: Decimal, rate: PhaseRate) -> Converted:
    """An exact phase-currency amount in workspace minor units (A09: x rate, rounded half-even once).

    Computed in a context wide enough for any amount a legacy surface can send (1e308 and beyond has 309
    integer digits): the default 28 digits would round the product and refuse the quantize.
    """
    with localcontext(WIDE):
        spacing = _spacing(amount) if abs(amount) > MAX_MAGNITUDE else Decimal(0)
        places = exponent(rate.workspace_currency)
        exact = (amount * rate.rate).scaleb(places)
        minor = exact.quantize(ONE, rounding=ROUNDING)
        return Converted(amount, int(minor), minor - exact, (spacing * rate.rate).scaleb(places))


def _spacing(amount: Decimal) -> Decimal:
    """The float spacing at ``amount`` (how far a float total there may be off); past the float range, all of it."""
    try:
        return Decimal(math.ulp(float(amount)))
    except OverflowError:
        return abs(amount)


def as_counted(value: RawNumber) -> Decimal:
    """A stored amount as the legacy surface counts it in its totals (A39): readable -> its value, else 0."""
    if isinstance(value, bool) or value is None:
        return Decimal(0)
    try:
        number = Decimal(str(value).strip())
    except InvalidOperation:
        return Decimal(0)
    return number if number.is_finite() else Decimal(0)


def conversion_bound(rate: PhaseRate) -> Decimal:
    """How far the two sides may differ through conversion alone, in workspace minor units.

    Each side rounds once to the minor unit (half a unit at most); with the identity rate nothing is
    converted, and legacy line amounts are already rounded to the phase currency's minor unit (A11), so
    nothing may differ at all.
    """
    return Decimal(0) if rate.is_identity else ONE


def summed_bound(rate: PhaseRate, terms: int) -> Decimal:
    """The bound when the verifier sums ``terms`` v1 figures, each rounded on its own, against one legacy total.

    Each v1 term carries up to half a minor unit of conversion rounding and the legacy total one more half.
    """
    return Decimal(0) if rate.is_identity else Decimal(terms + 1) / 2


def format_minor(minor: int | None, currency: str) -> str:
    """Minor units as a major-unit figure for people, e.g. ``1,234.56``; an absent figure prints as a dash.

    The one number format of every report (``amounts.py`` adds the currency code and the sign): babel's
    thousands separators and the currency's own decimals, exact at any size.
    """
    return "—" if minor is None else format_major(Decimal(minor).scaleb(-exponent(currency)), currency)


def format_major(value: Decimal, currency: str, *, every_digit: bool = False) -> str:
    """A major-unit figure with separators and at least the currency's decimals (``every_digit``: and every
    further digit it has, never rounded away)."""
    # babel quantizes in the current context: wide enough for any figure a hostile legacy surface can send.
    with localcontext(WIDE):
        return format_currency(
            value, currency, format=_PATTERN, locale="en_US", currency_digits=True, decimal_quantization=not every_digit
        )
