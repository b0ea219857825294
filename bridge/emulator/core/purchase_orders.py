"""Purchase orders: the legacy surface's (per project, a free status) and the v1 surface's (per workspace, a
status machine), as typed records and the rules of the v1 machine. No HTTP and no wire names here.

The two are different records, as the two services keep them: a legacy order belongs to its project and any
status can be written to it; a v1 order is created a draft, moves only through its published transitions, and
its amount is always the sum of its items. Both link to spend the same way: an actual (a v1 transaction) names
its order in ``Actual.purchase_order_id``, so an order's linked actuals are found from the actuals, and a
deleted actual leaves no dangling link behind.

Amounts are ``Decimal`` in major units of the order's currency, as everywhere in the core.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date, datetime
from decimal import Decimal
from typing import Literal

from bridge.emulator.core.errors import Conflict

LegacyStatus = Literal["draft", "approved", "rejected", "pending", "paid"]
LEGACY_STATUSES: tuple[LegacyStatus, ...] = ("draft", "approved", "rejected", "pending", "paid")

Status = Literal["draft", "pending", "approved", "rejected", "actualizing", "paid", "void"]
STATUSES: tuple[Status, ...] = ("draft", "pending", "approved", "rejected", "actualizing", "paid", "void")

# What each write needs the order to be in (V-SPEC, per operation); anything else is refused.
EDITABLE: frozenset[Status] = frozenset({"draft", "rejected"})  # PATCH and the item writes
DELETABLE: frozenset[Status] = frozenset({"draft"})
CLOSABLE: frozenset[Status] = frozenset({"approved", "actualizing"})  # void and mark-paid
# A voided or paid order is closed: its links to spend no longer change (assumption, not published).
LINKABLE: frozenset[Status] = frozenset(STATUSES) - {"void", "paid"}

# The history a v1 order keeps, by the published timeline event types.
EventType = Literal[
    "created",
    "item_added",
    "submitted_for_approval",
    "approved",
    "rejected",
    "approval_request_canceled",
    "voided",
    "transaction_linked",
    "transaction_unlinked",
    "marked_paid",
    "status_changed",
    "details_updated",
]


@dataclass(frozen=True, slots=True)
class Move:
    """One transition of the status machine: from any of ``allowed`` to ``target``, recorded as ``event``."""

    allowed: frozenset[Status]
    target: Status
    event: EventType
    label: str


SUBMIT = Move(frozenset({"draft", "rejected"}), "pending", "submitted_for_approval", "Submitted for approval")
CANCEL = Move(frozenset({"pending"}), "draft", "approval_request_canceled", "Submission cancelled")
VOID = Move(CLOSABLE, "void", "voided", "Voided")
PAY = Move(CLOSABLE, "paid", "marked_paid", "Marked paid")
# The approval flow's own moves, which no published operation makes: only the control API drives them. The
# timeline has no event type of its own for entering actualizing.
DECISIONS: Mapping[str, Move] = {
    "approved": Move(frozenset({"pending"}), "approved", "approved", "Approved"),
    "rejected": Move(frozenset({"pending"}), "rejected", "rejected", "Rejected"),
    "actualizing": Move(frozenset({"approved"}), "actualizing", "status_changed", "Actualizing"),
}


class InvalidStatus(Conflict):
    """A write the order's current status does not allow."""

    code = "invalid_status"


class AlreadyLinked(Conflict):
    """A transaction already linked to another purchase order."""

    code = "already_linked"


def require_status(order: PurchaseOrder, allowed: frozenset[Status], action: str) -> None:
    """Refuse ``action`` unless the order is in one of the ``allowed`` statuses."""
    if order.status not in allowed:
        wanted = " or ".join(s for s in STATUSES if s in allowed)
        raise InvalidStatus(f"purchase order {order.id!r} is {order.status}; {action} needs it {wanted}")


# -- legacy ---------------------------------------------------------------------------------------------------


@dataclass(slots=True)
class LegacyItem:
    """A legacy order's line: ``total_price`` is stored as written, not derived from quantity x unit price."""

    id: str
    quantity: Decimal
    unit_price: Decimal
    total_price: Decimal
    last_modified: datetime
    description: str | None = None
    line_id: str | None = None


@dataclass(slots=True)
class LegacyPurchaseOrder:
    """A legacy purchase order in its project. ``number`` is the published ``purchaseOrderId``; ``amount`` is
    stored as written, so it may differ from its items' sum (bad source data the bridge must report)."""

    id: str
    amount: Decimal
    paid_amount: Decimal
    status: LegacyStatus
    last_modified: datetime
    number: str | None = None
    title: str | None = None
    date: datetime | None = None
    notes: str | None = None
    contact_id: str | None = None
    items: list[LegacyItem] = field(default_factory=list)


# -- v1 -------------------------------------------------------------------------------------------------------


@dataclass(slots=True)
class Item:
    """A v1 order's item: ``qty`` and ``rate`` are text as sent (a number or a formula), ``amount`` the item's
    total in major units of the order's currency (None when neither it nor a numeric qty x rate was given)."""

    id: str
    sort: str
    amount: Decimal | None = None
    line_number: str | None = None
    description: str | None = None
    budget_line_id: str | None = None
    qty: str | None = None
    unit: str | None = None
    rate: str | None = None


@dataclass(frozen=True, slots=True)
class Event:
    """One entry of an order's history; ``related`` names a transaction the event concerns."""

    id: str
    type: EventType
    label: str
    occurred_at: datetime
    actor_id: str | None
    related: str | None = None


@dataclass(slots=True)
class PurchaseOrder:
    """A v1 purchase order. ``currency`` is set by the service at creation; ``amount`` is derived from the
    items (``total``). ``deleted`` orders are kept for ``includeDeleted``."""

    id: str
    workspace_id: str
    currency: str
    created_at: datetime
    updated_at: datetime
    status: Status = "draft"
    project_id: str | None = None
    number: str | None = None
    name: str | None = None
    contact_id: str | None = None
    budget_line_id: str | None = None
    due_date: date | None = None
    service_start_at: date | None = None
    service_end_at: date | None = None
    notes: str | None = None
    sort: int | float | None = None
    created_by_id: str | None = None
    items: list[Item] = field(default_factory=list)
    history: list[Event] = field(default_factory=list)
    deleted: bool = False

    def total(self) -> Decimal:
        """The published amount: the sum of the items' amounts (an item without one counts nothing)."""
        return sum((item.amount for item in self.items if item.amount is not None), Decimal(0))
