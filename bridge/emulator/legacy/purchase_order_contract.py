"""The published legacy purchase-order answers, encoded in our own words (``legacy.contract`` binds them).

Open and strict as every legacy shape (``legacy.contract_shapes``): an unlisted key passes, a listed one must
have its published type, ``None`` only where the description marks the field nullable.
"""

from __future__ import annotations

from typing import Literal, NotRequired

from pydantic import with_config
from typing_extensions import TypedDict  # pydantic needs this one before Python 3.12

from bridge.emulator.legacy.contract_shapes import OPEN, Actual, BudgetLine, Contact, File, Number
from bridge.emulator.wire.formats import DateTime

Status = Literal["draft", "approved", "rejected", "pending", "paid"]
NoBody = type(None)  # a 204 answers nothing


@with_config(OPEN)
class PurchaseOrderItem(TypedDict):
    id: str
    description: NotRequired[str | None]
    quantity: Number
    unitPrice: Number
    totalPrice: Number
    accountId: NotRequired[str | None]
    account: NotRequired[BudgetLine]
    lastModified: DateTime


@with_config(OPEN)
class PurchaseOrder(TypedDict):
    id: str
    purchaseOrderId: NotRequired[str | None]
    title: NotRequired[str | None]
    date: NotRequired[DateTime | None]
    amount: Number
    paidAmount: Number
    status: Status
    attachments: NotRequired[list[File]]
    notes: NotRequired[str | None]
    items: NotRequired[list[PurchaseOrderItem]]
    contact: NotRequired[Contact]
    actuals: NotRequired[list[Actual]]
    lastModified: DateTime


@with_config(OPEN)
class PurchaseOrders(TypedDict):
    purchaseOrders: list[PurchaseOrder]
