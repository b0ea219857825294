"""Legacy totals (phase currency, major units, floats) to workspace-currency minor units, with the rate used.

The money rules are the mappings' (``mappings.money``): ``Decimal(str(x))`` of the float the legacy surface
sent, the ISO-4217 exponent from babel, and the one rounding rule (half-even). The exchange-rate rule is
assumption A09: one unit of the phase currency is worth ``exchangeRate`` workspace units, and the v1 total
is the phase-currency total times the rate, rounded once to the workspace currency's minor unit.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from mappings.money import ROUNDING, exponent, parse_decimal
from mappings.records import RawNumber
from mappings.refs import RecordRef

ONE = Decimal(1)


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


def convert(value: RawNumber, rate: PhaseRate, ref: RecordRef, field: str) -> Converted:
    """Convert one legacy figure; a figure the legacy surface itself sent malformed raises a MappingError."""
    amount = parse_decimal(value, ref, field)
    exact = (amount * rate.rate).scaleb(exponent(rate.workspace_currency))
    minor = exact.quantize(ONE, rounding=ROUNDING)
    return Converted(amount, int(minor), minor - exact)


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
    """Minor units as a major-unit amount for people, e.g. ``1,234.56``; an absent figure prints as a dash."""
    if minor is None:
        return "—"
    places = exponent(currency)
    return f"{Decimal(minor).scaleb(-places):,.{places}f}"
