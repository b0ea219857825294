"""The published legacy shapes of bank and card transactions and of a parse of their attachments, in our own
words; ``legacy.contract`` binds them to the transaction operations. Open like every legacy shape
(``legacy.contract_shapes``): an unlisted key passes, a listed one must have its published type.
"""

from __future__ import annotations

from typing import Literal, NotRequired

from pydantic import with_config
from typing_extensions import TypedDict  # pydantic needs this one before Python 3.12

from bridge.emulator.legacy.contract_shapes import OPEN, Actual, BudgetLine, Contact, File, Number, Project
from bridge.emulator.wire.formats import DateTime

BankType = Literal[
    "bank.deposit", "bank.withdrawal", "bank.ach", "bank.wire",
    "card.spend", "card.payment", "card.dispute", "card.refund", "card.cashback",
]  # fmt: skip


@with_config(OPEN)
class TransactionSource(TypedDict):
    id: str
    type: str
    name: str
    last4: str


@with_config(OPEN)
class Transaction(TypedDict):
    id: str
    type: BankType
    status: Literal["posted", "pending", "void"]
    subStatus: NotRequired[Literal["settled", "refund", "reverse", "rejected"]]
    description: str
    amount: Number
    date: DateTime
    projectId: NotRequired[str | None]
    hasAccount: bool
    isActualized: bool
    source: NotRequired[TransactionSource]
    attachments: NotRequired[list[File]]
    contact: NotRequired[Contact]
    project: NotRequired[Project]
    account: NotRequired[BudgetLine]
    actual: NotRequired[Actual]


@with_config(OPEN)
class Transactions(TypedDict, total=False):
    transactions: list[Transaction]


@with_config(OPEN)
class ParsedDocument(TypedDict, total=False):
    """Every extracted field is optional; only the document type is typed here beyond an open object."""

    documentType: Literal["invoice", "receipt", "statement", "timesheet", "purchaseOrder", "contract", "other"]


@with_config(OPEN)
class ParsedAttachment(TypedDict):
    id: str
    name: str
    type: str
    size: int
    document: ParsedDocument
    rawText: NotRequired[str | None]


@with_config(OPEN)
class ParsedAttachments(TypedDict, total=False):
    attachments: list[ParsedAttachment]
