"""Bank and card transactions: the legacy service's feed of what a production's bank accounts and cards did.

A ``BankTransaction`` is what the feed saw (a card spend, an ACH, a refund...) from one ``FundingSource``; it
may be coded to a project, a budget line and a contact, and once it is *actualized* it names the actual it
became (``actual_id``; the legacy actual shows it back as ``transactionId``). These are not the v1
transactions: those are the actuals (``model.Actual``). Amounts are ``Decimal`` in major units, always
positive: the type says which way the money went (A-guess, the description's only example is a positive spend).

Each workspace keeps its feed in a ``BankFeed`` (``Workspace.bank``); the rules that read and change it are the
store's (``core.bank_store``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import Literal, get_args

BankType = Literal[
    "bank.deposit", "bank.withdrawal", "bank.ach", "bank.wire",
    "card.spend", "card.payment", "card.dispute", "card.refund", "card.cashback",
]  # fmt: skip
BankStatus = Literal["posted", "pending", "void"]
BankSubStatus = Literal["settled", "refund", "reverse", "rejected"]
BANK_TYPES: tuple[BankType, ...] = get_args(BankType)
BANK_STATUSES: tuple[BankStatus, ...] = get_args(BankStatus)
BANK_SUB_STATUSES: tuple[BankSubStatus, ...] = get_args(BankSubStatus)


@dataclass(frozen=True, slots=True)
class FundingSource:
    """The account or card a transaction came through (legacy ``TransactionSource``); ``kind`` is bank or card."""

    id: str
    kind: str
    name: str
    last4: str


@dataclass(slots=True)
class BankTransaction:
    """One transaction of the feed. ``project_id``, ``line_id`` and ``contact_id`` are its coding (store ids);
    ``merchant`` is the counterparty's name as the feed gave it; ``actual_id`` the actual it became."""

    id: str
    type: BankType
    status: BankStatus
    description: str
    amount: Decimal
    date: datetime
    source: FundingSource
    sub_status: BankSubStatus | None = None
    merchant: str | None = None
    project_id: str | None = None
    line_id: str | None = None
    contact_id: str | None = None
    actual_id: str | None = None

    @property
    def has_account(self) -> bool:
        return self.line_id is not None

    @property
    def is_actualized(self) -> bool:
        return self.actual_id is not None


@dataclass(slots=True)
class BankFeed:
    """One workspace's bank and card transactions by id, in the order the feed delivered them, and which
    transaction each actualized actual came from (``actual id -> transaction id``)."""

    transactions: dict[str, BankTransaction] = field(default_factory=dict)
    actualized: dict[str, str] = field(default_factory=dict)

    def add(self, transaction: BankTransaction) -> None:
        self.transactions[transaction.id] = transaction
        if transaction.actual_id is not None:
            self.actualized[transaction.actual_id] = transaction.id

    def source_of(self, actual_id: str) -> str | None:
        """The id of the transaction an actual was made from, if it was made from one."""
        return self.actualized.get(actual_id)
