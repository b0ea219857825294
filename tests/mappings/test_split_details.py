"""A split part's label, quantity, unit and rate (A99) and its coding (A100) on the item v1 gets."""

from __future__ import annotations

import pytest

from mappings.actuals import item_patch, map_actual
from mappings.errors import ErrorCode, MappingError
from mappings.kinds import Kind
from mappings.records import Actual, SubActual
from mappings.refs import WORKSPACE
from tests.mappings.crosswalk import lookup_from

LOOKUP = lookup_from({(Kind.LINE, "p1", "l1"): "lin_1", (Kind.TAG, WORKSPACE, "union"): "tag_u"})


def _items(*parts: SubActual, amount: object = 1400) -> list[dict[str, object]]:
    actual = Actual(id="a1", amount=amount, date="2026-02-01", subactuals=parts)  # type: ignore[arg-type]
    return [dict(item.body) for item in map_actual("p1", "prj_1", actual, "USD", LOOKUP).items]


def test_label_quantity_unit_and_rate_are_carried_as_exact_text() -> None:
    """``lineId`` is the label (lineNumber), ``accountId`` the line; numbers are the exact decimal, in plain
    notation, rate in major units of the transaction's currency."""
    part = SubActual(lineId="A-10", accountId="l1", amount=1400.5, quantity=2, unit="Day", rate=700.25)
    assert _items(part, amount=1400.5) == [
        {
            "lineNumber": "A-10",
            "budgetLineId": "lin_1",
            "qty": "2",
            "unit": "Day",
            "rate": "700.25",
            "amount": {"amount": 140050, "currency": "USD"},
        }
    ]


@pytest.mark.parametrize(
    ("quantity", "rate", "qty_text", "rate_text"),
    [
        (0.1, 1e-7, "0.1", "0.0000001"),
        (1e15, 625.0, "1000000000000000", "625"),
        ("2.50", "0", "2.5", "0"),
        (-3, 0.30000000000000004, "-3", "0.30000000000000004"),
    ],
)
def test_numbers_are_sent_as_the_decimal_they_denote(
    quantity: object, rate: object, qty_text: str, rate_text: str
) -> None:
    """No float noise added, none taken away, no exponent: 1e-7 is 0.0000001, 625.0 is 625."""
    item = _items(SubActual(amount=1400, quantity=quantity, rate=rate))[0]  # type: ignore[arg-type]
    assert (item["qty"], item["rate"]) == (qty_text, rate_text)


def test_a_part_without_details_sends_none_of_them() -> None:
    """Each detail is optional on both sides: a part with none sends only its amount and coding."""
    assert _items(SubActual(accountId="l1", amount=1400)) == [
        {"budgetLineId": "lin_1", "amount": {"amount": 140000, "currency": "USD"}}
    ]
    only_unit = _items(SubActual(amount=1400, unit="Flat", lineId="SA-001"))[0]
    assert only_unit == {"lineNumber": "SA-001", "unit": "Flat", "amount": {"amount": 140000, "currency": "USD"}}


def test_the_label_is_never_taken_for_the_budget_line() -> None:
    """A part whose label happens to be a line id, and no accountId, stays uncoded (reported), not coded to
    that line: the label is ordering text, not a reference."""
    actual = Actual(id="a1", amount=10, date="2026-02-01", subactuals=(SubActual(amount=10, lineId="l1"),))
    item = map_actual("p1", "prj_1", actual, "USD", LOOKUP).items[0]
    assert item.body == {"lineNumber": "l1", "amount": {"amount": 1000, "currency": "USD"}}
    assert not item.notes


def test_an_unresolved_coding_is_reported_under_account_id() -> None:
    actual = Actual(id="a1", amount=10, date="2026-02-01", subactuals=(SubActual(amount=10, accountId="gone"),))
    item = map_actual("p1", "prj_1", actual, "USD", LOOKUP).items[0]
    assert "budgetLineId" not in item.body
    assert [(n.field, n.old) for n in item.notes] == [("accountId", "gone")]


@pytest.mark.parametrize(
    ("field", "value", "code"),
    [
        ("quantity", float("nan"), ErrorCode.NUMBER_NAN),
        ("rate", "abc", ErrorCode.NUMBER_NOT_NUMERIC),
        ("quantity", [1], ErrorCode.NUMBER_NOT_NUMERIC),
        ("rate", True, ErrorCode.NUMBER_NOT_NUMERIC),
        ("quantity", 1e21, ErrorCode.NUMBER_TOO_LARGE),
    ],
)
def test_a_malformed_quantity_or_rate_refuses_the_actual_naming_the_part(field: str, value: object, code: str) -> None:
    """Never half-written: the whole actual is refused, the error names the part and the field."""
    part = SubActual(amount=10, **{field: value})  # type: ignore[arg-type]
    actual = Actual(id="a1", amount=10, date="2026-02-01", subactuals=(part,))
    with pytest.raises(MappingError) as refused:
        map_actual("p1", "prj_1", actual, "USD", LOOKUP)
    assert (refused.value.code, refused.value.field, refused.value.ref.legacy_id) == (code, field, "a1#0")


def test_a_patch_clears_the_details_the_source_dropped() -> None:
    """The state a changed part is PATCHed to names every detail: what the source no longer holds is null."""
    item = _items(SubActual(amount=1400, quantity=2))[0]
    assert item_patch(item) == {  # type: ignore[arg-type]
        "lineNumber": None,
        "qty": "2",
        "unit": None,
        "rate": None,
        "amount": {"amount": 140000, "currency": "USD"},
    }
