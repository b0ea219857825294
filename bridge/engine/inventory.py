"""Every kind of record the legacy surface lists that no ``KindSpec`` writes, declared once: how it is read
and why it stays behind.

``engine.kinds`` declares what a run writes; this declares the rest of what the source holds, so that
`bridge plan`, `plan.json` and verify's ledger account for every record the workspace holds: each kind
here is counted on every run (with its money per currency and the bytes of its files) and reported as not
carried, with its reason. A kind moves from here to ``engine.kinds`` when the run learns to write it.

What the published legacy surface cannot enumerate at all (files uploaded to project storage that no record
references: there is no list operation for `/files`) is said in ``UNLISTED``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Collection, Iterable, Sequence
from dataclasses import dataclass, replace

from bridge.clients.legacy import LegacyClient
from bridge.engine.kinds import Scope
from bridge.errors import SourceUnreadable
from mappings.inventory import Stock, as_files, files, nested, summed
from mappings.records import Contact

BANK_FILE = "bank_transaction_file"
TAX_DOCUMENT = "tax_document"


@dataclass(frozen=True, slots=True)
class Held:
    """A kind of source record the run does not write: its name, its label, where it lives, the published legacy
    operation that lists it, and why it is not carried."""

    kind: str
    label: str
    scope: Scope
    listed_by: str
    why: str


HELD: tuple[Held, ...] = (
    Held(
        TAX_DOCUMENT,
        "contact tax documents",
        Scope.WORKSPACE,
        "listContacts",
        "they hold tax ids: carried only on the operator's choice, needs --with tax-documents",
    ),
    Held(
        "bank_transaction",
        "bank and card transactions",
        Scope.WORKSPACE,
        "listTransactions",
        "v1 creates only manual transactions: the actualized ones are the actuals, carried as such, and "
        "reconnecting the bank feed on v1 brings the rest (amounts not summed: a legacy transaction names no "
        "currency)",
    ),
    Held(
        BANK_FILE,
        "bank transaction attachments",
        Scope.WORKSPACE,
        "listTransactions",
        "their transaction is not carried (no actual was made from it); those of a transaction an actual came "
        "from are carried with the actual (A102)",
    ),
)

UNLISTED = (
    "files uploaded to a project's storage that no record references: the legacy surface publishes no way to "
    "list them, so they can be neither counted nor carried"
)

# Kinds a run writes that the target's plan may lack (``engine.features``): counted as not carried only then.
UNAVAILABLE: tuple[Held, ...] = (
    Held(
        "rate",
        "workspace rates",
        Scope.WORKSPACE,
        "listWorkspaceRates",
        "the workspace plan has no rate packs (v1 answers 402 feature_not_available, A87)",
    ),
)

BY_KIND: dict[str, Held] = {held.kind: held for held in (*HELD, *UNAVAILABLE)}


def contact_files(contacts: Iterable[Contact], carried: Collection[str]) -> tuple[Stock, ...]:
    """The contacts' tax documents, from the contacts read at preflight, unless the run carries them."""
    if TAX_DOCUMENT in carried:
        return ()
    return (files(TAX_DOCUMENT, (f for c in contacts for f in c.tax_documents)),)


async def workspace_stock(
    legacy: LegacyClient, contacts: Sequence[Contact], *, carried: Collection[str] = ()
) -> tuple[Stock, ...]:
    """What the workspace holds beyond the kinds a run writes (``carried``: the opt-in kinds it writes too)."""
    transactions, bank_unread = await _listed(legacy.bank_transactions())
    return (
        *contact_files(contacts, carried),
        _unread(summed("bank_transaction", transactions), bank_unread),
        _unread(files(BANK_FILE, as_files(nested(_not_actualized(transactions), "attachments"))), bank_unread),
    )


def _not_actualized(transactions: list[object]) -> list[object]:
    """The bank transactions no actual was made from (as sent: one that does not say is one)."""
    return [row for row in transactions if not (isinstance(row, dict) and row.get("isActualized") is True)]


async def _listed(read: Awaitable[list[object]]) -> tuple[list[object], str]:
    """A list's rows, or none and why: the inventory is a report, so a list the source refuses is said, and
    what a run writes still goes."""
    try:
        return await read, ""
    except SourceUnreadable as error:
        return [], f"the legacy list answered {error.status} {error.code or ''}".strip()


def _unread(stock: Stock, why: str) -> Stock:
    return replace(stock, unread=why) if why else stock
