"""What the source holds of the kinds a run does not write (yet): counted, with money per currency and bytes.

Pure: each function takes what the legacy surface sent (rows as sent, or typed records) and gives a
``Stock``: how many records, their money per currency where they hold money, the bytes of files, and how
many could not be read for a sum (a row that is not an object, a size or amount that is not a number). A
row that cannot be summed is still counted: the inventory says what the source holds, the sums say what they
could, and ``unreadable`` says how many were left out of the sums.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal

from mappings.records import File


@dataclass(frozen=True, slots=True)
class Stock:
    """What the source holds of one inventory kind: records, money per currency, bytes, rows left unsummed, and
    why a list could not be read (its records are then not in the count)."""

    kind: str
    count: int = 0
    money: Mapping[str, Decimal] = field(default_factory=dict)
    bytes: int = 0
    unreadable: int = 0
    # Why some scope's records of the kind could not be listed at all ("" when every list was read).
    unread: str = ""

    def __add__(self, other: Stock) -> Stock:
        if other.kind != self.kind:
            raise ValueError(f"cannot add {other.kind} stock to {self.kind} stock")
        money = dict(self.money)
        for currency, value in other.money.items():
            money[currency] = money.get(currency, Decimal(0)) + value
        unreadable = self.unreadable + other.unreadable
        unread = "; ".join(why for why in (self.unread, other.unread) if why)
        return Stock(self.kind, self.count + other.count, money, self.bytes + other.bytes, unreadable, unread)


def figures(stock: Stock, money: Callable[[Decimal, str], str] | None = None) -> str:
    """The stock as people read it, thousands separated: ``12, 4,500.25 USD, 1,024 bytes`` (``money`` writes
    an amount with its currency, as the caller's other amounts are written)."""
    written = money or (lambda value, currency: f"{value:,} {currency}")
    said = [f"{stock.count:,}", *(written(value, currency) for currency, value in sorted(stock.money.items()))]
    if stock.bytes:
        said.append(f"{stock.bytes:,} bytes")
    if stock.unreadable:
        said.append(f"{stock.unreadable:,} left out of the sums (no readable amount or size)")
    if stock.unread:
        said.append(f"not all counted ({stock.unread})")
    return ", ".join(said)


def amount(value: object) -> Decimal | None:
    """A legacy number as an exact Decimal, None for anything else (text, null, NaN, infinities, true)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return Decimal(str(value))


def files(kind: str, attached: Iterable[File]) -> Stock:
    """Attached files: how many, and their published sizes in bytes."""
    count = size = unreadable = 0
    for file in attached:
        count += 1
        if isinstance(file.size, int) and not isinstance(file.size, bool) and file.size >= 0:
            size += file.size
        else:
            unreadable += 1
    return Stock(kind, count, bytes=size, unreadable=unreadable)


def summed(kind: str, rows: Iterable[object], money_field: str | None = None, currency: str = "") -> Stock:
    """Rows as sent: how many, and the sum of ``money_field`` in ``currency`` where each holds a number."""
    count = unreadable = 0
    money = Decimal(0)
    for row in rows:
        count += 1
        if money_field is None:
            continue
        value = amount(row.get(money_field)) if isinstance(row, dict) else None
        if value is None:
            unreadable += 1
        else:
            money += value
    return Stock(kind, count, {currency: money} if money_field is not None and count else {}, unreadable=unreadable)


def nested(rows: Iterable[object], field_name: str) -> list[object]:
    """The entries of each row's ``field_name`` array (a purchase order's items), rows without one skipped."""
    found: list[object] = []
    for row in rows:
        inner = row.get(field_name) if isinstance(row, dict) else None
        if isinstance(inner, list):
            found.extend(inner)
    return found


def as_files(rows: Iterable[object]) -> list[File]:
    """Attachments as sent (a purchase order's, a bank transaction's) as files; an entry that is not an object
    is a file whose size cannot be read."""
    return [File.model_validate(row) if isinstance(row, dict) else File() for row in rows]
