"""The attachments of the bank and card transactions actuals were made from, carried as documents of the v1
transactions made from those actuals (A102).

v1 creates only manual transactions, so a legacy bank transaction is not carried; an actual names the one it
came from (``Actual.transactionId``), and the v1 transaction made from that actual is where the bank
transaction's files belong. The feed is read once per run, when the first actual naming a bank transaction is
read (``BankFeed``); each actual then hands its bank transaction's files to the documents step beside its own
receipts, less those it holds itself (``carried_with``): a document has one link per kind, so a file on both
the actual and its bank transaction is one document, the actual's receipt. The files of bank transactions no
actual came from stay behind (``engine.inventory``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping

import structlog

from bridge.clients.legacy import READS, LegacyClient, Read
from bridge.errors import SourceUnreadable
from mappings.inventory import as_files
from mappings.records import Actual, File

log = structlog.get_logger("bridge.engine")


def attachments_by_transaction(rows: list[object]) -> dict[str, tuple[File, ...]]:
    """The bank feed's rows as sent: each transaction's attachments by its id (rows without an id skipped)."""
    found: dict[str, tuple[File, ...]] = {}
    for row in rows:
        if isinstance(row, Mapping) and isinstance(row.get("id"), str):
            listed = row.get("attachments")
            found[str(row["id"])] = tuple(as_files(listed)) if isinstance(listed, list) else ()
    return found


def carried_with(actual: Actual, feed: Mapping[str, tuple[File, ...]]) -> tuple[File, ...]:
    """The files of the bank transaction ``actual`` came from that the actual does not hold itself (A102)."""
    if not actual.transaction_id:
        return ()
    own = {file.id for file in actual.attachments}
    return tuple(file for file in feed.get(actual.transaction_id, ()) if file.id not in own)


class BankFeed:
    """The workspace's bank transactions' attachments, read once (when the first actual asks)."""

    def __init__(self, legacy: LegacyClient) -> None:
        self.legacy = legacy
        self._files: dict[str, tuple[File, ...]] | None = None
        self._lock = asyncio.Lock()
        # The feed's reads: every project whose actuals use the feed depends on them, not only the first one
        # (bridge mode's quiet projects note them for each, ``engine.quiet``).
        self._reads: set[Read] = set()

    async def files(self) -> Mapping[str, tuple[File, ...]]:
        async with self._lock:
            if self._files is None:
                token = READS.set(self._reads)
                try:
                    self._files = attachments_by_transaction(await self.legacy.bank_transactions())
                except SourceUnreadable as error:
                    # The inventory says the feed was unreadable; the actuals and their own receipts still go.
                    log.warning("bridge.bank_feed.unread", status=error.status, code=error.code)
                    self._files = {}
                finally:
                    READS.reset(token)
            if (noted := READS.get()) is not None:
                noted.update(self._reads)
            return self._files
