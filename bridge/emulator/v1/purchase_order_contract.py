"""The published v1 purchase-order answers, in our own words (``v1.contract`` binds them to the operations).

Closed and strict like every v1 shape (``v1.contract_shapes``). Payment requests and payments, which the
emulator does not keep, are checked as objects only.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Literal, NotRequired

from pydantic import Field, with_config
from typing_extensions import TypedDict  # pydantic needs this one before Python 3.12

from bridge.emulator.v1.contract_shapes import CLOSED, Id, Money, page
from bridge.emulator.v1.contract_shapes import LineContact as ContactRef  # the same published shape
from bridge.emulator.wire.formats import Date, DateTime

Status = Literal["draft", "pending", "approved", "rejected", "actualizing", "paid", "void"]
Code = Annotated[str, Field(min_length=3, max_length=3)]
NO_BODY = None


@with_config(CLOSED)
class TransactionRef(TypedDict):
    id: Id
    projectId: Id | None
    purchaseOrderId: Id
    amount: int | None
    description: str | None
    timestamp: DateTime | None
    status: str
    type: str | None
    contactId: Id | None
    budgetLineId: Id | None


@with_config(CLOSED)
class DocumentRef(TypedDict):
    id: Id
    name: str
    mimeType: str
    status: str
    size: int
    classification: str | None


@with_config(CLOSED)
class BudgetLineRef(TypedDict):
    id: Id
    accountId: str | None
    type: str
    description: str | None
    parentId: Id | None
    sort: str | None
    contactId: Id | None
    lineColor: str | None
    emoji: str | None
    notes: str | None


@with_config(CLOSED)
class ActivityItem(TypedDict):
    type: str
    label: str
    severity: Literal["neutral", "info", "warning", "danger", "success"]
    count: Annotated[int, Field(ge=0)]
    sourceIds: list[str]


@with_config(CLOSED)
class Activity(TypedDict):
    primaryActivity: ActivityItem | None
    items: list[ActivityItem]


@with_config(CLOSED)
class Amounts(TypedDict):
    ordered: Money
    requested: Money
    invoiced: Money
    sent: Money
    actualized: Money
    remaining: Money
    variance: Money


@with_config(CLOSED)
class Summary(TypedDict):
    purchaseOrderId: Id
    currency: Code
    amounts: Amounts


@with_config(CLOSED)
class Item(TypedDict):
    id: Id
    purchaseOrderId: Id
    lineNumber: NotRequired[str | None]
    description: NotRequired[str | None]
    budgetLineId: NotRequired[str | None]
    qty: NotRequired[str | None]
    unit: NotRequired[str | None]
    rate: NotRequired[str | None]
    amount: NotRequired[int | None]
    sort: str


@with_config(CLOSED)
class PurchaseOrder(TypedDict):
    id: Id
    workspaceId: Id
    projectId: Id | None
    number: NotRequired[str | None]
    name: NotRequired[str | None]
    status: Status
    contactId: NotRequired[str | None]
    budgetLineId: NotRequired[str | None]
    dueDate: NotRequired[Date | None]
    serviceStartAt: NotRequired[Date | None]
    serviceEndAt: NotRequired[Date | None]
    notes: NotRequired[str | None]
    sort: NotRequired[float | int | None]
    currency: Code
    exchangeRate: float | int | None
    exchangeRateSource: str | None
    createdById: NotRequired[str | None]
    amount: Money
    createdAt: DateTime
    updatedAt: DateTime
    items: NotRequired[list[Item]]
    contact: NotRequired[ContactRef | None]
    transactions: NotRequired[list[TransactionRef]]
    documents: NotRequired[list[DocumentRef]]
    paymentRequests: NotRequired[list[dict[str, Any]]]
    payments: NotRequired[list[dict[str, Any]]]
    budgetLine: NotRequired[BudgetLineRef | None]
    activity: NotRequired[Activity | None]
    summary: NotRequired[Summary | None]


@with_config(CLOSED)
class Actor(TypedDict):
    id: Id
    name: str
    avatarUrl: str | None


@with_config(CLOSED)
class ResourceRef(TypedDict):
    type: Literal["document", "payment_request", "payment", "transaction", "approval"]
    id: Id


EventType = Literal[
    "created", "item_added", "submitted_for_approval", "approved", "rejected", "approval_request_canceled",
    "voided", "transaction_linked", "transaction_unlinked", "marked_paid", "invoice_requested",
    "invoice_uploaded", "attachment_uploaded", "document_linked", "decision_recorded", "decision_undone",
    "status_changed", "approval_decision", "details_updated",
]  # fmt: skip


@with_config(CLOSED)
class TimelineEvent(TypedDict):
    id: Id
    type: EventType
    label: str
    occurredAt: DateTime
    actor: Actor | None
    related: list[ResourceRef]
    superseded: bool


@with_config(CLOSED)
class TimelinePage(TypedDict):
    data: list[TimelineEvent]
    nextCursor: NotRequired[str | None]


PO = "/purchase-orders"
ONE = PO + "/{purchaseOrderId}"

# (method, path template) -> published success status -> shape, for ``v1.contract.OPERATIONS``.
OPERATIONS: Mapping[tuple[str, str], Mapping[int, Any]] = {
    ("GET", PO): {200: page(PurchaseOrder)},
    ("POST", PO): {201: PurchaseOrder},
    ("GET", ONE): {200: PurchaseOrder},
    ("PATCH", ONE): {200: PurchaseOrder},
    ("DELETE", ONE): {204: NO_BODY},
    ("POST", ONE + "/submit"): {200: PurchaseOrder},
    ("POST", ONE + "/cancel-submission"): {200: PurchaseOrder},
    ("POST", ONE + "/void"): {200: PurchaseOrder},
    ("POST", ONE + "/mark-paid"): {200: PurchaseOrder},
    ("PUT", ONE + "/transactions/{transactionId}"): {200: PurchaseOrder},
    ("DELETE", ONE + "/transactions/{transactionId}"): {200: PurchaseOrder},
    ("GET", ONE + "/timeline"): {200: TimelinePage},
    ("GET", ONE + "/items"): {200: page(Item)},
    ("POST", ONE + "/items"): {201: Item},
    ("PATCH", ONE + "/items/{itemId}"): {200: Item},
    ("DELETE", ONE + "/items/{itemId}"): {204: NO_BODY},
}
