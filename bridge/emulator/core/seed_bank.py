"""The seeded workspaces' bank and card transactions (``core.bank``), made after every other record.

About four in ten are actualized: each mirrors an actual paid by card, ACH or wire (its project, line, contact,
amount and date) and names it; an actual that already holds a receipt shares that file with its transaction,
as a receipt carried from the feed to the actual would. The others are the feed's uncoded or partly coded
rest: deposits, refunds, card payments, a dispute, pending and void ones. About one in four of those gets a
receipt of its own. Each actualized one also holds the statement line it was matched on, and every project
with an actual paid so has at least one actualized transaction (as many as the feed's size allows). They come
from a ``Random`` of their own and take no ids from the store and no time from its clock, so every record made
before them stays byte-identical.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from decimal import Decimal

from bridge.emulator.core.bank import BankStatus, BankSubStatus, BankTransaction, BankType, FundingSource
from bridge.emulator.core.files import Blob, StoredFile
from bridge.emulator.core.model import Actual, Project, Workspace
from bridge.emulator.core.seed_files import pdf_bytes

# Transactions in a seeded source workspace, per seed size.
BANK_FEED: dict[str, int] = {"small": 10, "medium": 100, "large": 1_000}
ACTUALIZED_SHARE = 0.4
RECEIPT_EVERY = 4
SOURCES = (
    FundingSource("src-card-001", "card", "Production Company Card", "4242"),
    FundingSource("src-card-002", "card", "Amex 001", "1005"),
    FundingSource("src-bank-001", "bank", "Operating Account", "6789"),
)
# How an actual was paid -> the feed's type for it and the source it came through.
PAID_BY: dict[str, tuple[BankType, FundingSource]] = {
    "CreditCard": ("card.spend", SOURCES[0]),
    "SaturationPCard": ("card.spend", SOURCES[1]),
    "ACH": ("bank.ach", SOURCES[2]),
    "Wire": ("bank.wire", SOURCES[2]),
}
# The rest of the feed: (type, status, sub-status, source), drawn in turn.
UNCODED: tuple[tuple[BankType, BankStatus, BankSubStatus | None, FundingSource], ...] = (
    ("card.spend", "posted", "settled", SOURCES[0]),
    ("card.spend", "pending", None, SOURCES[1]),
    ("bank.deposit", "posted", "settled", SOURCES[2]),
    ("card.refund", "posted", "refund", SOURCES[0]),
    ("bank.withdrawal", "posted", "settled", SOURCES[2]),
    ("card.payment", "posted", "settled", SOURCES[1]),
    ("card.spend", "void", "rejected", SOURCES[0]),
    ("card.cashback", "posted", "settled", SOURCES[1]),
    ("card.dispute", "posted", "reverse", SOURCES[0]),
    ("bank.wire", "pending", None, SOURCES[2]),
)
MERCHANTS = (
    "ARRI Rental House", "B&H Photo", "Home Depot", "Delta Air Lines", "Craft Services Co",
    "Location Permits Office", "Enterprise Truck Rental", "Staples", "Hertz", "Costco",
)  # fmt: skip
FEED_START = datetime(2026, 1, 5, tzinfo=UTC)


class _FeedBuilder:
    def __init__(self, workspace: Workspace, rng: random.Random) -> None:
        self.ws = workspace
        self.rng = rng
        self.taken: set[str] = set()

    def new_id(self) -> str:
        while True:
            found = f"btx-{self.rng.getrandbits(40):010x}"
            if found not in self.taken:
                self.taken.add(found)
                return found

    def actualized(self, project: Project, actual: Actual) -> BankTransaction:
        kind, source = PAID_BY[actual.type or ""]
        merchant = self.rng.choice(MERCHANTS)
        txn = BankTransaction(
            id=self.new_id(),
            type=kind,
            status="posted",
            sub_status="settled",
            description=f"{merchant.upper()} {actual.number or ''}".strip(),
            amount=Decimal(str(actual.amount)),
            date=actual.date,
            source=source,
            merchant=merchant,
            project_id=project.id,
            line_id=actual.line_id,
            contact_id=actual.contact_id,
            actual_id=actual.id,
        )
        shelf = self.ws.files
        receipts = shelf.files_of("actual", actual.id)
        if receipts:
            shelf.attach("transaction", txn.id, receipts[0])
        return txn

    def uncoded(self, index: int, projects: list[Project]) -> BankTransaction:
        rng = self.rng
        kind, status, sub_status, source = UNCODED[index % len(UNCODED)]
        merchant = rng.choice(MERCHANTS)
        project = rng.choice(projects) if projects and rng.random() < 0.6 else None
        lines = [n.id for n in project.nodes.values() if n.type == "line"] if project else []
        contacts = list(self.ws.contacts)
        txn = BankTransaction(
            id=self.new_id(),
            type=kind,
            status=status,
            sub_status=sub_status,
            description=f"{merchant.upper()} {rng.randrange(10**4):04d}",
            amount=Decimal(rng.randrange(500, 250_000)) / 100,
            date=FEED_START + timedelta(days=rng.randrange(365), hours=rng.randrange(24)),
            source=source,
            merchant=merchant,
            project_id=project.id if project else None,
            line_id=rng.choice(lines) if lines and rng.random() < 0.5 else None,
            contact_id=rng.choice(contacts) if contacts and rng.random() < 0.3 else None,
        )
        if index % RECEIPT_EVERY == 0:
            data = pdf_bytes(f"Receipt: {txn.description} {txn.amount}")
            name = f"receipt-{txn.id}.pdf"
            path = f"files/bank/{txn.date:%Y/%m}/{name}"
            stored = StoredFile(path, name, "application/pdf", len(data), Blob.of(data))
            self.ws.files.attach("transaction", txn.id, stored)
        return txn


def seed_bank(workspace: Workspace, rng: random.Random, count: int) -> None:
    """``count`` transactions: about 40% actualized (from actuals paid by card, ACH or wire, spread over the
    live projects, one of them at least with a receipt), the rest the feed's uncoded remainder; added to the
    workspace's feed in date order."""
    builder = _FeedBuilder(workspace, rng)
    projects = [p for p in workspace.projects.values() if not p.deleted]
    payable = [(p, a) for p in projects for a in p.actuals.values() if a.type in PAID_BY]
    linked = rng.sample(payable, k=min(len(payable), round(count * ACTUALIZED_SHARE)))
    receipted = [pair for pair in payable if workspace.files.files_of("actual", pair[1].id)]
    _spread(linked, payable)
    if linked and receipted and not any(workspace.files.files_of("actual", a.id) for _, a in linked):
        # At least one receipt shared by an actual and its transaction, whatever the size (of the same project
        # when it has one, so every project keeps its actualized transaction).
        same = [pair for pair in receipted if pair[0].id == linked[0][0].id]
        linked[0] = rng.choice(same or receipted)
    feed = [builder.actualized(p, a) for p, a in linked]
    _statements(workspace, feed)
    feed += [builder.uncoded(i, projects) for i in range(count - len(feed))]
    for txn in sorted(feed, key=lambda t: (t.date, t.id)):
        workspace.bank.add(txn)


def _spread(linked: list[tuple[Project, Actual]], payable: list[tuple[Project, Actual]]) -> None:
    """Make every project with an actual paid by card, ACH or wire hold an actualized transaction, in place: a
    project without one takes the place of one of a project holding several (its first payable actual)."""
    for project_id in dict.fromkeys(p.id for p, _ in payable):
        held = [p.id for p, _ in linked]
        if project_id in held:
            continue
        crowded = next((n for n, (p, _) in enumerate(linked) if held.count(p.id) > 1), None)
        if crowded is None:
            return  # fewer actualized transactions than projects: as many projects as there are
        linked[crowded] = next(pair for pair in payable if pair[0].id == project_id)


def _statements(workspace: Workspace, feed: list[BankTransaction]) -> None:
    """A statement (PDF) on every actualized transaction: a file the actual made from it does not hold."""
    for txn in feed:
        if txn.actual_id is None:
            continue
        data = pdf_bytes(f"Statement line: {txn.description} {txn.amount} ({txn.source.name})")
        name = f"statement-{txn.id}.pdf"
        stored = StoredFile(f"files/bank/statements/{name}", name, "application/pdf", len(data), Blob.of(data))
        workspace.files.attach("transaction", txn.id, stored)
