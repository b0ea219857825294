"""Actuals (A16, A17): each legacy actual becomes a manual v1 transaction; a split's parts become items.

Amounts are Money fields, so they are converted exactly (``exact=True``): an actual of 10.5 in JPY is
refused, never rounded. A split whose parts do not add up to the actual is refused too: the accountant
must decide which figure is right. Contacts and budget lines resolve through the crosswalk; a reference
that cannot be resolved leaves the transaction uncoded and is reported, so no money is dropped.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Final, Required, TypedDict

from mappings.budget import chunks
from mappings.enums import ACTUAL_STATUSES, ACTUAL_TYPES, DEFAULT_ACTUAL_STATUS, DEFAULT_ACTUAL_TYPE
from mappings.errors import ErrorCode, MappingError
from mappings.keys import idempotency_key
from mappings.kinds import Kind
from mappings.money import Money, to_money, total
from mappings.notes import Note, lossy, unassigned
from mappings.records import Actual
from mappings.refs import WORKSPACE, Lookup, RecordRef
from mappings.results import Mapped
from mappings.shapes import check_refusal
from mappings.tags import tag_ids
from mappings.text import check_text

TRANSACTIONS_PER_BULK: Final = 500
"""POST /transactions/bulk takes at most 500 transactions (V-SPEC; A16)."""
FREE_TEXT_LIMIT: Final = 2000
"""Descriptions and notes: no limit is published; this bound only keeps runaway text out of requests."""
BULK_KIND: Final = "transaction.bulk"


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
    """POST /transactions/{id}/items (A16)."""

    description: str
    budgetLineId: str
    amount: Required[Money]
    tagIds: list[str]


class TransactionBulk(TypedDict):
    transactions: list[TransactionCreate]


@dataclass(frozen=True, slots=True)
class MappedActual:
    """One actual: its transaction and, when split, its items (crosswalk: split, project, '<actual>#<n>')."""

    transaction: Mapped[TransactionCreate]
    items: tuple[Mapped[TransactionItem], ...] = ()


def actual_ref(project_id: str, actual_id: str) -> RecordRef:
    return RecordRef(Kind.ACTUAL, actual_id, project_id)


def map_actual(
    project_id: str,
    v1_project_id: str,
    actual: Actual,
    currency: str,
    lookup: Lookup,
    *,
    duplicates: Collection[str] = (),
) -> MappedActual:
    """One actual; ``currency`` is the validated currency its amounts are in (the first phase's, per A31).

    ``duplicates`` holds legacy actual ids seen more than once in the workspace (``duplicate_ids``): every
    copy is refused, since no one can tell which of them the crosswalk should point at.
    """
    check_refusal(actual)
    ref = actual_ref(project_id, actual.id)
    if actual.id in duplicates:
        raise MappingError(ErrorCode.DUPLICATE_ID, ref, "id", actual.id)
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
        notes: list[Note] = []
        line_id = part.line_id or part.account_id
        if line_id is not None:
            line = lookup(Kind.LINE, project_id, line_id)
            if line is None:
                notes.append(unassigned(part_ref, "lineId", line_id, "budget line has no v1 id; left uncoded"))
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


@dataclass(frozen=True, slots=True)
class ActualsBatch:
    """A project's actuals: bulk requests of at most 500 transactions, and the actuals quarantined."""

    mapped: tuple[MappedActual, ...]
    bulks: tuple[tuple[tuple[str, ...], TransactionBulk], ...]
    quarantined: tuple[MappingError, ...]

    def key(self, namespace: str, scope: str, index: int) -> str:
        ids, body = self.bulks[index]
        return idempotency_key(namespace, BULK_KIND, scope, ids, body)


def duplicate_ids(ids: Iterable[str]) -> frozenset[str]:
    """Ids that occur more than once: pass every project's actual ids to find workspace-wide duplicates."""
    seen: set[str] = set()
    repeated: set[str] = set()
    for legacy_id in ids:
        (repeated if legacy_id in seen else seen).add(legacy_id)
    return frozenset(repeated)


def map_actuals(
    project_id: str,
    v1_project_id: str,
    actuals: Sequence[Actual],
    currency: str,
    lookup: Lookup,
    *,
    duplicates: Collection[str] = (),
) -> ActualsBatch:
    """Every actual of a project, in legacy order; all copies of a repeated legacy id are quarantined."""
    repeated = duplicate_ids(a.id for a in actuals) | frozenset(duplicates)
    mapped: list[MappedActual] = []
    errors: list[MappingError] = []
    for actual in actuals:
        try:
            mapped.append(map_actual(project_id, v1_project_id, actual, currency, lookup, duplicates=repeated))
        except MappingError as error:
            errors.append(error)
    bulks = tuple(
        (
            tuple(m.transaction.ref.legacy_id for m in part),
            TransactionBulk(transactions=[m.transaction.body for m in part]),
        )
        for part in chunks(mapped, TRANSACTIONS_PER_BULK)
    )
    return ActualsBatch(tuple(mapped), bulks, tuple(errors))
