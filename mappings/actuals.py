"""Actuals (A16, A17): each legacy actual becomes a manual v1 transaction; a split's parts become items.

Amounts are Money fields, so they are converted exactly (``exact=True``): an actual of 10.5 in JPY is
refused, never rounded. A split whose parts do not add up to the actual is refused too: the accountant
must decide which figure is right. Contacts and budget lines resolve through the crosswalk; a reference
that cannot be resolved leaves the transaction uncoded and is reported, so no money is dropped.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Final, Required, TypedDict

from mappings.enums import ACTUAL_STATUSES, ACTUAL_TYPES, DEFAULT_ACTUAL_STATUS, DEFAULT_ACTUAL_TYPE
from mappings.errors import ErrorCode, MappingError
from mappings.kinds import Kind
from mappings.money import Money, parse_decimal, to_money, total
from mappings.notes import Note, lossy, unassigned
from mappings.records import Actual, RawNumber, SubActual
from mappings.refs import WORKSPACE, Lookup, RecordRef
from mappings.results import Mapped
from mappings.shapes import check_refusal
from mappings.tags import tag_ids
from mappings.text import check_text

FREE_TEXT_LIMIT: Final = 2000
"""Descriptions and notes: no limit is published; this bound only keeps runaway text out of requests."""
BULK_KIND: Final = "transaction.bulk"
"""The Idempotency-Key kind of a transaction bulk create (``bridge.engine.kinds``)."""


class TransactionCreate(TypedDict, total=False):
    """TransactionManualCreate (A16)."""

    type: Required[str]
    amount: Required[Money]
    timestamp: Required[str]
    status: str
    description: str
    projectId: str
    contactId: str
    budgetLineId: str
    number: str
    ref: str
    notes: str
    actualized: bool


class TransactionItem(TypedDict, total=False):
    """POST /transactions/{id}/items (A16); the part's label, quantity, unit and rate as A99 and A100 say."""

    lineNumber: str
    description: str
    budgetLineId: str
    qty: str
    unit: str
    rate: str
    amount: Required[Money]
    tagIds: list[str]


PART_DETAILS: Final = ("lineNumber", "qty", "unit", "rate")
"""The item fields a split part may leave unset: a PATCH sends each one it lacks as null (``item_patch``)."""


@dataclass(frozen=True, slots=True)
class MappedActual:
    """One actual: its transaction and, when split, its items (crosswalk: split, project, '<actual>#<n>')."""

    transaction: Mapped[TransactionCreate]
    items: tuple[Mapped[TransactionItem], ...] = ()


def actual_ref(project_id: str, actual_id: str) -> RecordRef:
    return RecordRef(Kind.ACTUAL, actual_id, project_id)


def map_actual(project_id: str, v1_project_id: str, actual: Actual, currency: str, lookup: Lookup) -> MappedActual:
    """One actual; ``currency`` is the validated currency its amounts are in (the first phase's, per A31).

    An actual read as refused (an id the legacy answer repeats is one, A66) is refused here with its error.
    """
    check_refusal(actual)
    ref = actual_ref(project_id, actual.id)
    notes: list[Note] = []
    amount = to_money(actual.amount, currency, ref, "amount", exact=True)
    kind, kind_lossy = ACTUAL_TYPES.get(actual.type or DEFAULT_ACTUAL_TYPE, ("", False))
    if not kind:
        raise MappingError(ErrorCode.ACTUAL_TYPE_UNKNOWN, ref, "type", actual.type)
    if kind_lossy or actual.type is None:
        notes.append(lossy(ref, "type", str(actual.type), kind, "A17" if actual.type else "A31"))
    status = DEFAULT_ACTUAL_STATUS
    if actual.status is not None:
        status, status_lossy = ACTUAL_STATUSES.get(actual.status, ("", False))
        if not status:
            raise MappingError(ErrorCode.ACTUAL_STATUS_UNKNOWN, ref, "status", actual.status)
        if status_lossy:
            notes.append(lossy(ref, "status", actual.status, status, "A17"))
    body = TransactionCreate(
        type=kind,
        amount=amount.money,
        timestamp=_timestamp(actual.date, ref),
        status=status,
        projectId=v1_project_id,
        actualized=True,
    )
    for field, value in (("description", actual.description), ("number", actual.number), ("ref", actual.ref)):
        text = check_text(value, ref, field, limit=FREE_TEXT_LIMIT)
        if text:
            body[field] = text  # type: ignore[literal-required]
    text_notes = check_text(actual.notes, ref, "notes", limit=FREE_TEXT_LIMIT)
    if text_notes:
        body["notes"] = text_notes
    if actual.pay_id:
        notes.append(unassigned(ref, "payId", actual.pay_id, "v1 manual transactions have no payId"))
    if not actual.subactuals:  # a split actual's tags go on each of its items
        notes.extend(
            unassigned(ref, "tags", tag, "v1 transactions take tags on items only", "A16") for tag in actual.tags
        )
    if actual.contact_id is not None:
        contact = lookup(Kind.CONTACT, WORKSPACE, actual.contact_id)
        if contact is None:
            notes.append(unassigned(ref, "contactId", actual.contact_id, "contact has no v1 id"))
        else:
            body["contactId"] = contact
    items: tuple[Mapped[TransactionItem], ...] = ()
    if actual.subactuals:
        items = _items(project_id, actual, currency, amount.money, lookup)
    elif actual.account_id is not None:
        line = lookup(Kind.LINE, project_id, actual.account_id)
        if line is None:
            notes.append(unassigned(ref, "accountId", actual.account_id, "budget line has no v1 id; left uncoded"))
        else:
            body["budgetLineId"] = line
    return MappedActual(Mapped(ref, body, tuple(notes)), items)


def _timestamp(value: str | None, ref: RecordRef) -> str:
    if value is None:
        raise MappingError(ErrorCode.DATE_INVALID, ref, "date", value)
    try:
        datetime.fromisoformat(value)
    except ValueError as exc:
        raise MappingError(ErrorCode.DATE_INVALID, ref, "date", value) from exc
    return value


def part_ids(actual: Actual) -> list[str]:
    """The legacy ids of an actual's split parts: the parts carry none the crosswalk can keep, so their place."""
    return [f"{actual.id}#{index}" for index in range(len(actual.subactuals))]


def actual_of(part_id: str) -> str:
    """The legacy id of the actual a split part's legacy id (``part_ids``) names."""
    return part_id.rpartition("#")[0]


def _items(
    project_id: str, actual: Actual, currency: str, whole: Money, lookup: Lookup
) -> tuple[Mapped[TransactionItem], ...]:
    ref = actual_ref(project_id, actual.id)
    items: list[Mapped[TransactionItem]] = []
    conversions = []
    for part_id, part in zip(part_ids(actual), actual.subactuals, strict=True):
        part_ref = RecordRef(Kind.SPLIT, part_id, project_id)
        conversion = to_money(part.amount, currency, part_ref, "amount", exact=True)
        conversions.append(conversion)
        body = TransactionItem(amount=conversion.money)
        description = check_text(part.description, part_ref, "description", limit=FREE_TEXT_LIMIT)
        if description:
            body["description"] = description
        _details(part, part_ref, body)
        notes: list[Note] = []
        # A100: ``accountId`` is the part's coding; ``lineId`` its own label (carried as lineNumber above).
        if part.account_id is not None:
            line = lookup(Kind.LINE, project_id, part.account_id)
            if line is None:
                notes.append(
                    unassigned(part_ref, "accountId", part.account_id, "budget line has no v1 id; left uncoded")
                )
            else:
                body["budgetLineId"] = line
        tags = tag_ids(part_ref, actual.tags, lookup, notes)
        if tags:
            body["tagIds"] = tags
        items.append(Mapped(part_ref, body, tuple(notes)))
    parts = total(conversions, currency)
    if parts.money["amount"] != whole["amount"]:
        raise MappingError(
            ErrorCode.SPLIT_SUM_MISMATCH,
            ref,
            "amount",
            actual.amount,
            f"parts add up to {parts.exact} {currency}",
        )
    return tuple(items)


def _details(part: SubActual, ref: RecordRef, body: TransactionItem) -> None:
    """The part's label, quantity, unit and rate, each only when the source holds it (A99)."""
    label = check_text(part.line_id, ref, "lineId", limit=FREE_TEXT_LIMIT)
    if label:
        body["lineNumber"] = label
    unit = check_text(part.unit, ref, "unit", limit=FREE_TEXT_LIMIT)
    if unit:
        body["unit"] = unit
    if part.quantity is not None:
        body["qty"] = number_text(part.quantity, ref, "quantity")
    if part.rate is not None:
        body["rate"] = number_text(part.rate, ref, "rate")


def number_text(value: RawNumber, ref: RecordRef, field: str) -> str:
    """A legacy number as the text v1 takes for a quantity or rate: the exact decimal it denotes, in plain
    notation and without trailing zeros ("700.5", "4"), never rounded; a malformed one refuses the record."""
    number = parse_decimal(value, ref, field)
    text = format(number.normalize(), "f")
    return "0" if number.is_zero() else text


def item_patch(item: TransactionItem) -> dict[str, object]:
    """The full state a changed part is PATCHed to: a detail the source no longer holds is cleared (null),
    not left as v1 last had it."""
    return {**dict.fromkeys(PART_DETAILS), **item}
