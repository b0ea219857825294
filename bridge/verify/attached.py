"""Which files hang on which of the compared projects' records, per kind of attachment: what the documents'
ledger (``verify.documents``) checks on v1."""

from __future__ import annotations

from collections.abc import Sequence

from bridge.clients.legacy import LegacyClient
from bridge.engine.bank_files import BankFeed, carried_with
from bridge.verify.findings import ProjectFindings
from mappings.kinds import Kind
from mappings.records import File

Attached = list[tuple[str, str, tuple[File, ...]]]
"""(state scope, record id, its files)."""


async def attached(legacy: LegacyClient, compared: Sequence[ProjectFindings]) -> dict[Kind, Attached]:
    """The receipts of the projects' actuals, the files of their orders, and those of the bank transactions their
    actuals came from."""
    return {
        Kind.RECEIPT: [(f.report.project_id, actual, files) for f in compared for actual, files in f.attached],
        Kind.PURCHASE_ORDER_FILE: [
            (f.report.project_id, order, files) for f in compared for order, files in f.order_files
        ],
        Kind.BANK_FILE: await _banked(legacy, compared),
    }


async def _banked(legacy: LegacyClient, compared: Sequence[ProjectFindings]) -> Attached:
    """The files of the bank transactions the projects' actuals came from that the actuals do not hold themselves
    (A102); the feed is read only when some actual names a transaction."""
    if not any(f.banked for f in compared):
        return []
    feed = await BankFeed(legacy).files()
    found = [(f.report.project_id, actual.id, carried_with(actual, feed)) for f in compared for actual in f.banked]
    return [(scope, actual, files) for scope, actual, files in found if files]
