"""Purchase orders (A88-A91): each legacy purchase order becomes a v1 draft with its items inline.

v1 creates drafts only (``purchase-orders_create``) and sets a draft's currency and amount itself: the amount is
the sum of its items, so every item is sent with its ``amount`` (the legacy ``totalPrice`` in exact minor units,
refused on a sub-minor remainder, never rounded), and ``qty`` and ``rate`` as the decimal strings the published
shape takes (the rate in minor units, A88). A legacy order with no items becomes one synthetic item carrying its
amount; items that do not add up to the order's amount are carried as they are and the difference is reported.
The legacy status has no write on v1 (approval is the approval flow's alone): ``STATUSES`` says what each one
becomes and why, and which orders need approving again in the app.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Final, Required, TypedDict

from mappings.kinds import Kind
from mappings.money import EXACT, Money, exponent, parse_decimal, to_major, to_money
from mappings.notes import Note, NoteKind, lossy, unassigned
from mappings.records import PurchaseOrder, PurchaseOrderItem
from mappings.refs import WORKSPACE, Lookup, RecordRef
from mappings.results import Mapped
from mappings.shapes import check_refusal
from mappings.text import check_text

FREE_TEXT_LIMIT: Final = 2000
"""Names, numbers and notes: no limit is published; this bound only keeps runaway text out of requests."""
INLINE_ITEMS: Final = 100
"""PurchaseOrderCreate.items publishes maxItems 100; the rest go one by one (purchase-orders_createItem)."""
SYNTHETIC_ITEM: Final = "Total (legacy PO had no items)"
CURRENCY_DIFFERS: Final = "purchase_order.currency_differs"
"""The quarantine code of a draft whose currency v1 set otherwise than assumed (A89): it is deleted again."""
CURRENCY_FIX: Final = (
    "v1 gave the purchase order another currency than its project's actuals; set the project's first phase "
    "currency (or create the order by hand in v1) and re-run"
)


class PurchaseOrderItemWrite(TypedDict, total=False):
    """PurchaseOrderItemWrite: qty and rate as text, amount in minor units (always sent)."""

    description: str
    budgetLineId: str
    qty: str
    rate: str
    amount: Required[int]


class PurchaseOrderCreate(TypedDict, total=False):
    """PurchaseOrderCreate: a draft (no currency, amount, status or date field is published)."""

    projectId: Required[str]
    number: str
    name: str
    contactId: str
    notes: str
    sort: int
    items: list[PurchaseOrderItemWrite]


@dataclass(frozen=True, slots=True)
class Status:
    """What a legacy status becomes on v1, why, and whether the order needs approving again in the app."""

    v1: str
    why: str
    needs_approval: bool


DRAFT_ONLY = "v1 creates purchase orders as drafts only"
STATUSES: Final[dict[str, Status]] = {
    "draft": Status("draft", "carried as itself", needs_approval=False),
    "pending": Status(
        "draft", f"{DRAFT_ONLY}; submitting it starts v1's approval flow (opt-in: submit-pending)", needs_approval=True
    ),
    "approved": Status("draft", f"{DRAFT_ONLY}; approval is set only by v1's approval flow", needs_approval=True),
    "rejected": Status(
        "draft", f"{DRAFT_ONLY}; a rejection is set only by v1's approval flow: edit it or leave it", False
    ),
    "paid": Status(
        "draft", f"{DRAFT_ONLY}; paid comes from v1 payments, which have no write: approve it, then pay it", True
    ),
}
UNKNOWN_STATUS = Status("draft", f"{DRAFT_ONLY}; the legacy status is not one the description lists", True)
SUBMITTED = Status("pending", "submitted into v1's approval flow by the run (submit-pending)", needs_approval=True)


EDITABLE: Final = frozenset({"draft", "rejected"})
"""The v1 statuses in which an order's header and items take writes (``409 po_invalid_status`` otherwise)."""


def left_as(v1_status: str) -> Status:
    """An order v1 holds past draft or rejected, edited on legacy since it was carried: v1 takes no edit of it, so
    the edit stays off v1 (A107) for a person to make in the app."""
    why = (
        f"left as {v1_status} on v1: v1 takes edits of draft or rejected orders only (409 po_invalid_status); "
        "its legacy edit is not on v1, make it in the app"
    )
    return Status(v1_status, why, needs_approval=False)


def status_of(legacy: str | None, *, submit_pending: bool = False) -> Status:
    """What ``legacy`` becomes on v1: a draft, or (``submit_pending``) pending for a legacy pending order."""
    if submit_pending and legacy == "pending":
        return SUBMITTED
    return STATUSES.get(legacy or "", UNKNOWN_STATUS)


@dataclass(frozen=True, slots=True)
class MappedOrder:
    """One purchase order: its create body (at most ``INLINE_ITEMS`` items), the items sent after it, and what
    v1 cannot hold of it: a synthesized item, the difference between its amount and its items (major units,
    legacy amount minus the items' sum; zero when they agree), its status."""

    order: Mapped[PurchaseOrderCreate]
    extra: tuple[PurchaseOrderItemWrite, ...]
    currency: str
    amount: Money
    difference: Decimal
    synthesized: bool
    status: Status

    @property
    def state(self) -> dict[str, object]:
        """What the order's source hash covers: its create body, with every item when some go after it (an edit
        of the hundred-and-first item is an edit of the order)."""
        body: dict[str, object] = dict(self.order.body)
        if self.extra:
            body["items"] = [*self.order.body.get("items", []), *self.extra]
        return body


def order_ref(project_id: str, order_id: str) -> RecordRef:
    return RecordRef(Kind.PURCHASE_ORDER, order_id, project_id)


def decimal_text(value: Decimal) -> str:
    """A plain decimal string with no exponent and no trailing zeros (5, 2.5, 1234.5678)."""
    text = format(value, "f")
    return text.rstrip("0").rstrip(".") if "." in text else text


def map_order(
    order: PurchaseOrder,
    lookup: Lookup,
    *,
    project_id: str,
    v1_project_id: str,
    sort: int,
    currency: str,
    submit_pending: bool = False,
) -> MappedOrder:
    """One legacy order as a v1 draft; ``currency`` is the one its amounts are read in (A89), ``sort`` its place
    in the legacy list. MappingError names the order and the field (an item's as ``items[n].field``): an amount
    with a sub-minor remainder (MONEY_TOO_PRECISE) or a number that is not one."""
    check_refusal(order)
    ref = order_ref(project_id, order.id)
    notes: list[Note] = []
    amount = to_money(order.amount, currency, ref, "amount", exact=True)
    body = PurchaseOrderCreate(projectId=v1_project_id, sort=sort)
    texts = (
        ("purchaseOrderId", "number", order.number),
        ("title", "name", order.title),
        ("notes", "notes", order.notes),
    )
    for field, key, value in texts:
        text = check_text(value, ref, field, limit=FREE_TEXT_LIMIT)
        if text:
            body[key] = text  # type: ignore[literal-required]
    vendor = order.contact.id if order.contact is not None else None
    contact = lookup(Kind.CONTACT, WORKSPACE, vendor) if vendor is not None else None
    if contact is not None:
        body["contactId"] = contact
    elif vendor is not None:
        notes.append(unassigned(ref, "contact", vendor, "contact has no v1 id"))
    items = [_item(ref, n, item, currency, lookup, notes) for n, item in enumerate(order.items)]
    synthesized = not items
    if synthesized:
        minor = amount.money["amount"]
        synthetic = PurchaseOrderItemWrite(description=SYNTHETIC_ITEM, qty="1", rate=str(minor), amount=minor)
        items = [synthetic]
        notes.append(lossy(ref, "items", "none", SYNTHETIC_ITEM, "A90"))
    summed = sum(item["amount"] for item in items)
    difference = EXACT.subtract(to_major(amount.money), to_major(Money(amount=summed, currency=currency)))
    if difference:
        notes.append(
            Note(
                NoteKind.CONFLICT,
                ref,
                "amount",
                old=str(amount.exact),
                new=str(to_major(Money(amount=summed, currency=currency))),
                detail=f"v1's amount is its items' sum; the legacy amount differs by {difference} {currency}",
                assumption="A90",
            )
        )
    status = status_of(order.status, submit_pending=submit_pending)
    if status.v1 != order.status:
        notes.append(lossy(ref, "status", str(order.status), status.v1, "A91"))
    body["items"] = items[:INLINE_ITEMS]
    extra = tuple(items[INLINE_ITEMS:])
    return MappedOrder(Mapped(ref, body, tuple(notes)), extra, currency, amount.money, difference, synthesized, status)


def _item(  # noqa: PLR0917 - one private call site, each argument a different thing
    ref: RecordRef,
    index: int,
    item: PurchaseOrderItem,
    currency: str,
    lookup: Lookup,
    notes: list[Note],
) -> PurchaseOrderItemWrite:
    where = f"items[{index}]"
    total = to_money(item.total_price, currency, ref, f"{where}.totalPrice", exact=True)
    body = PurchaseOrderItemWrite(amount=total.money["amount"])
    description = check_text(item.description, ref, f"{where}.description", limit=FREE_TEXT_LIMIT)
    if description:
        body["description"] = description
    if item.quantity is not None:
        body["qty"] = decimal_text(parse_decimal(item.quantity, ref, f"{where}.quantity"))
    if item.unit_price is not None:
        price = parse_decimal(item.unit_price, ref, f"{where}.unitPrice")
        body["rate"] = decimal_text(price.scaleb(exponent(currency), EXACT))
    if item.account_id is not None:
        line = lookup(Kind.LINE, ref.scope, item.account_id)
        if line is None:
            notes.append(unassigned(ref, f"{where}.accountId", item.account_id, "budget line has no v1 id; uncoded"))
        else:
            body["budgetLineId"] = line
    return body


@dataclass(frozen=True, slots=True)
class OrderLine:
    """One legacy purchase order as a run left it: a row of the status table and of the approvals list."""

    scope: str
    legacy_id: str
    number: str | None
    name: str | None
    legacy_status: str
    status: Status
    amount: Money
    difference: Decimal
    synthesized: bool
    v1_id: str | None
    # v1's amount of an order the run left as v1 holds it (A107): the legacy amount may differ from it.
    v1_amount: Money | None = None

    @property
    def left(self) -> bool:
        return self.v1_amount is not None

    @property
    def behind(self) -> Decimal:
        """The legacy amount less v1's, for an order left as v1 holds it (zero otherwise)."""
        return EXACT.subtract(to_major(self.amount), to_major(self.v1_amount)) if self.v1_amount else Decimal(0)


def line_of(order: PurchaseOrder, mapped: MappedOrder, v1_id: str | None) -> OrderLine:
    return OrderLine(
        mapped.order.ref.scope,
        order.id,
        order.number,
        order.title,
        order.status or "",
        mapped.status,
        mapped.amount,
        mapped.difference,
        mapped.synthesized,
        v1_id,
    )


@dataclass(frozen=True, slots=True)
class StatusRow:
    """One row of the status table: a legacy status, what it became on v1 and why, how many and how much."""

    legacy: str
    v1: str
    why: str
    count: int
    money: dict[str, Decimal]
    needs_approval: bool


def status_table(lines: Sequence[OrderLine]) -> list[StatusRow]:
    """The orders grouped by legacy status (then v1 status), with their count and amount per currency."""
    groups: dict[tuple[str, str], list[OrderLine]] = {}
    for line in lines:
        groups.setdefault((line.legacy_status, line.status.v1), []).append(line)
    rows = []
    for (legacy, v1), members in sorted(groups.items()):
        money: dict[str, Decimal] = {}
        for line in members:
            currency = line.amount["currency"]
            money[currency] = money.get(currency, Decimal(0)) + to_major(line.amount)
        first = members[0].status
        rows.append(StatusRow(legacy, v1, first.why, len(members), money, first.needs_approval))
    return rows


def orders_json(lines: Sequence[OrderLine]) -> dict[str, object]:
    """The status table and every order (``plan.json``'s ``purchase_orders``), money as decimal text."""
    return {
        "statuses": [
            {
                "legacy": row.legacy,
                "v1": row.v1,
                "why": row.why,
                "count": row.count,
                "money": {currency: str(value) for currency, value in sorted(row.money.items())},
                "needs_approval": row.needs_approval,
            }
            for row in status_table(lines)
        ],
        "orders": [
            {
                "scope": line.scope,
                "legacy_id": line.legacy_id,
                "number": line.number,
                "name": line.name,
                "legacy_status": line.legacy_status,
                "v1_status": line.status.v1,
                "v1_id": line.v1_id,
                "amount": str(to_major(line.amount)),
                "currency": line.amount["currency"],
                "difference": str(line.difference),
                "synthesized_item": line.synthesized,
                "needs_approval": line.status.needs_approval,
                # An order left as v1 holds it (A107): v1's amount, and the legacy amount less it.
                "left_on_v1": line.left,
                "v1_amount": str(to_major(line.v1_amount)) if line.v1_amount else None,
                "behind": str(line.behind),
            }
            for line in lines
        ],
    }
