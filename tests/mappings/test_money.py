"""Money: minor units by ISO-4217 exponent, one rounding rule, rounding reported exactly."""

from __future__ import annotations

from decimal import Decimal, localcontext

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mappings.errors import ErrorCode, MappingError
from mappings.kinds import Kind
from mappings.money import EXACT, currency_code, exponent, to_major, to_money, total
from mappings.refs import RecordRef
from tests.strategies import currencies, legacy_amounts

REF = RecordRef(Kind.ACTUAL, "a1", "p1")


@given(value=legacy_amounts(), currency=currencies())
def test_conversion_never_moves_a_value_more_than_half_a_minor_unit(value: float | int | str, currency: str) -> None:
    """Sent amount minus exact legacy value is the reported rounding, and at most half a minor unit."""
    conversion = to_money(value, currency, REF, "amount")
    half = Decimal(1).scaleb(-exponent(currency)) / 2
    assert abs(conversion.rounding) <= half
    with localcontext(EXACT):
        assert to_major(conversion.money) - conversion.exact == conversion.rounding
    assert conversion.exact == Decimal(str(value))


@given(values=st.lists(legacy_amounts(), max_size=30), currency=currencies())
def test_a_total_reports_its_rounding_exactly(values: list[float | int | str], currency: str) -> None:
    """The rounding of a sum is exactly the sum of each value's rounding, and the sum sent is the sum of parts."""
    conversions = [to_money(v, currency, REF, "amount") for v in values]
    summed = total(conversions, currency)
    assert summed.money["amount"] == sum(c.money["amount"] for c in conversions)
    with localcontext(EXACT):
        assert summed.rounding == sum((c.rounding for c in conversions), Decimal(0))
        assert summed.exact + summed.rounding == to_major(summed.money)


@pytest.mark.parametrize(
    ("value", "currency", "amount"),
    [
        (0.125, "USD", 12),
        (0.135, "USD", 14),
        (2.5, "JPY", 2),
        (3.5, "JPY", 4),
        ("1.0005", "BHD", 1000),
        (-0.005, "EUR", 0),
    ],
)
def test_ties_round_half_even(value: float | str, currency: str, amount: int) -> None:
    """The one rounding rule is half-even, in the currency's own exponent (JPY 0, BHD 3)."""
    assert to_money(value, currency, REF, "amount").money == {"amount": amount, "currency": currency}


def test_the_float_is_read_through_its_shortest_repr() -> None:
    """0.1 + 0.2 style binary noise never reaches the amount: 1.1 is 110 cents, not 110.00000000000001."""
    conversion = to_money(1.1, "USD", REF, "amount")
    assert conversion.money["amount"] == 110
    assert conversion.rounding == 0


def test_exact_conversion_refuses_values_the_currency_cannot_hold() -> None:
    """Where the field is Money, 10.5 JPY is refused rather than rounded."""
    with pytest.raises(MappingError) as caught:
        to_money(10.5, "JPY", REF, "amount", exact=True)
    assert caught.value.code is ErrorCode.MONEY_TOO_PRECISE
    assert to_money(10, "JPY", REF, "amount", exact=True).money == {"amount": 10, "currency": "JPY"}


def test_currency_codes_are_normalised_and_checked_against_iso_4217() -> None:
    """Lower-case codes are accepted as the same currency; an invented code is refused."""
    assert currency_code("eur", REF, "currency") == "EUR"
    with pytest.raises(MappingError) as caught:
        currency_code("EURO", REF, "currency")
    assert caught.value.code is ErrorCode.CURRENCY_UNKNOWN


def test_totals_refuse_mixed_currencies() -> None:
    """Adding yen to dollars is an error, not a number."""
    with pytest.raises(ValueError, match="JPY"):
        total([to_money(1, "JPY", REF, "amount")], "USD")
