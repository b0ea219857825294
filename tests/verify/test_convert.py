"""Converting legacy figures to workspace minor units with the phase's exchange rate (A09)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from bridge.verify.convert import PhaseRate, conversion_bound, convert, summed_bound
from mappings.errors import MappingError
from mappings.kinds import Kind
from mappings.records import RawNumber
from mappings.refs import RecordRef

REF = RecordRef(Kind.LINE, "l1", "p1")
USD = PhaseRate("USD", Decimal(1), "USD")


def test_an_identity_rate_keeps_cents_exactly() -> None:
    """A USD figure in a USD workspace is the same number of cents, with no rounding and no bound."""
    converted = convert(1234.56, USD, REF, "totals")
    assert (converted.minor, converted.rounding) == (123456, Decimal(0))
    assert conversion_bound(USD) == 0


def test_a_zero_decimal_currency_converts_through_its_rate_half_even() -> None:
    """JPY 1,005 at 0.0065 USD is 653.25 cents exactly, rounded half-even to 653."""
    jpy = PhaseRate("JPY", Decimal("0.0065"), "USD")
    converted = convert(1005, jpy, REF, "totals")
    assert converted.minor == 653
    assert converted.rounding == Decimal("-0.25")
    assert conversion_bound(jpy) == 1


def test_the_float_is_read_through_its_shortest_repr() -> None:
    """0.1 + 0.2 as a float converts from its repr, not from its binary expansion."""
    assert convert(0.1 + 0.2, USD, REF, "totals").minor == 30


@pytest.mark.parametrize("bad", ["1,000.00", float("nan"), None, "1e3"])
def test_a_malformed_legacy_figure_is_refused_naming_the_record(bad: RawNumber) -> None:
    """A figure the legacy surface sent malformed raises the mappings' error, naming record and field."""
    with pytest.raises(MappingError) as caught:
        convert(bad, USD, REF, "totals")
    assert "l1" in str(caught.value)
    assert "totals" in str(caught.value)


def test_a_sum_of_separately_rounded_terms_may_drift_half_a_unit_per_term() -> None:
    """Summing n converted v1 figures against one converted legacy total allows (n + 1) / 2 minor units."""
    jpy = PhaseRate("JPY", Decimal("0.0067"), "USD")
    assert summed_bound(jpy, 3) == 2
    assert summed_bound(USD, 3) == 0
