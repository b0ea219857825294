"""Counting what the source holds of the kinds the bridge does not write: counts, exact sums, bytes."""

from __future__ import annotations

from decimal import Decimal

import pytest

from mappings.inventory import Stock, as_files, files, nested, summed
from mappings.records import File


def test_money_is_summed_exactly_and_a_row_without_a_number_is_counted_but_not_summed() -> None:
    rows: list[object] = [{"amount": 0.1}, {"amount": 0.2}, {"amount": "12"}, {"amount": None}, "not an object"]
    stock = summed("purchase_order", rows, "amount", "USD")
    assert stock.count == 5
    assert stock.money == {"USD": Decimal("0.3")}  # 0.1 + 0.2 in floats would be 0.30000000000000004
    assert stock.unreadable == 3


def test_rows_without_money_are_only_counted() -> None:
    assert summed("comment", [{"id": "a"}, {"id": "b"}]) == Stock("comment", 2)


@pytest.mark.parametrize("value", [float("nan"), float("inf"), True, [1], {"a": 1}])
def test_a_number_that_is_no_amount_is_left_out_of_the_sum(value: object) -> None:
    stock = summed("rate", [{"rate": value}, {"rate": 2}], "rate", "USD")
    assert (stock.count, stock.money, stock.unreadable) == (2, {"USD": Decimal(2)}, 1)


def test_files_add_their_published_sizes_and_count_an_unreadable_size() -> None:
    attached = [File(id="a", size=1000), File(id="b", size=24), File(id="c", size="big"), File(id="d", size=-1)]
    assert files("receipt", attached) == Stock("receipt", 4, bytes=1024, unreadable=2)


def test_stocks_of_one_kind_add_up_per_currency() -> None:
    a = Stock("purchase_order", 2, {"USD": Decimal("1.50")}, unreadable=1)
    b = Stock("purchase_order", 1, {"USD": Decimal("2.25"), "EUR": Decimal(3)}, bytes=5)
    assert a + b == Stock("purchase_order", 3, {"USD": Decimal("3.75"), "EUR": Decimal(3)}, 5, 1)
    with pytest.raises(ValueError, match="cannot add comment stock to purchase_order stock"):
        _ = a + Stock("comment", 1)


def test_nested_rows_and_attachments_as_sent() -> None:
    orders: list[object] = [{"items": [{"totalPrice": 1}, {"totalPrice": 2}], "attachments": [{"size": 7}, 3]}, {}]
    assert summed("purchase_order_item", nested(orders, "items"), "totalPrice", "USD").money == {"USD": Decimal(3)}
    assert files("purchase_order_file", as_files(nested(orders, "attachments"))) == Stock(
        "purchase_order_file", 2, bytes=7, unreadable=1
    )
