"""Split parts' line label, quantity, unit and rate (A99): each migrated part against the v1 item it became.

The actuals comparison (``actuals.py``) checks that every part has its item and the transaction's sums; this
checks the four details each item carries. Numbers compare as the decimals they denote (legacy ``700.5`` and
v1 ``"700.50"`` agree), text as text; an item's quantity or rate v1 holds as a formula compares as its text.
A difference is reported as a setting that differs (``LibraryDifference``, kind ``split``) and fails
verification: the next edit of that item on v1 would compute from the wrong figures.

The v1 side is kept as the listing reads it, one small tuple per item that holds any detail (items without
any are not kept), so a project's transactions are still read a page at a time.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal, InvalidOperation

from bridge.verify.schema import LibraryDifference
from mappings.actuals import part_ids
from mappings.kinds import Kind
from mappings.records import Actual, SubActual

Details = tuple[str | None, str | None, str | None, str | None]
"""(lineNumber, qty, unit, rate), each None when unset; numbers as normalized decimal text."""
FIELDS = ("lineNumber", "qty", "unit", "rate")
NONE: Details = (None, None, None, None)


def _number(value: object) -> str | None:
    """A quantity or rate as the decimal it denotes (normalized text), or its text when it is no number."""
    if value is None or isinstance(value, bool):
        return None if value is None else str(value)
    try:
        number = Decimal(str(value))
    except InvalidOperation:
        return str(value)
    return format(number.normalize(), "f") if number.is_finite() else str(value)


def _text(value: object) -> str | None:
    return None if value is None or value == "" else str(value)


def legacy_details(part: SubActual) -> Details:
    return (_text(part.line_id), _number(part.quantity), _text(part.unit), _number(part.rate))


def v1_details(item: Mapping[str, object]) -> Details:
    return (_text(item.get("lineNumber")), _number(item.get("qty")), _text(item.get("unit")), _number(item.get("rate")))


class ItemDetails:
    """The details of a project's v1 items, by item id, as the transactions are listed."""

    def __init__(self) -> None:
        self._held: dict[str, Details] = {}

    def add(self, items: object) -> None:
        """A transaction's listed ``items`` (its model's extra field, unchecked JSON)."""
        for item in items if isinstance(items, list) else ():
            if isinstance(item, Mapping) and isinstance(item.get("id"), str):
                details = v1_details(item)
                if details != NONE:
                    self._held[str(item["id"])] = details

    def differences(self, actual: Actual, copies: Mapping[str, str]) -> list[LibraryDifference]:
        """Each detail of each of ``actual``'s migrated parts (``copies``: part id -> v1 item id) that its v1
        item does not hold; a part with no v1 item is the ledger's to count, not compared here."""
        out: list[LibraryDifference] = []
        for part_id, part in zip(part_ids(actual), actual.subactuals, strict=True):
            v1_id = copies.get(part_id)
            if v1_id is None:
                continue
            found = self._held.get(v1_id, NONE)
            for field, legacy, v1 in zip(FIELDS, legacy_details(part), found, strict=True):
                if legacy != v1:
                    # The part's own id names it in the reports' tables (which show no legacy id column).
                    label = part.description or actual.description
                    name = f"{part_id} ({label})" if label else part_id
                    out.append(
                        LibraryDifference(
                            kind=Kind.SPLIT.value,
                            legacy_id=part_id,
                            v1_id=v1_id,
                            name=name,
                            field=field,
                            legacy=legacy,
                            v1=v1,
                        )
                    )
        return out
