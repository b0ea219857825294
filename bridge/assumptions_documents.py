"""Guesses about the documents of purchase orders and bank transactions, and about finding a document again
(issue 30's last document pieces); part of the registry in ``bridge.assumptions``."""

from __future__ import annotations

from bridge.assumption import Assumption

DOCUMENT_LINKS: tuple[Assumption, ...] = (
    Assumption(
        "A102",
        "the attachments of the bank transactions actuals came from",
        "The files of a legacy bank or card transaction an actual names (Actual.transactionId, read with "
        "expands[]=attachments) are carried as documents linked (kind transaction) to the v1 transaction made "
        "from that actual, described 'Attachment of the legacy bank transaction this transaction was actualized "
        "from' so they are told apart from its receipts. A file the actual holds too (same legacy file id) is "
        "carried once, as the actual's receipt: a document has one link per kind, and one upload per file and "
        "transaction is enough, so the bank transaction's copy is counted with the receipt, not as a record of "
        "its own. The files of bank transactions no actual came from (isActualized not true) are not carried: "
        "counted, with their bytes.",
        "L-SPEC: Transaction.attachments (L:6106) via expands[]=attachments (L:2703), Actual.transactionId "
        "(L:4934); V-SPEC: 'A document can have one link of each kind' (V:8654); v1 creates only manual "
        "transactions, so the bank transaction itself has no v1 record to link to.",
        ("engine.bank_files", "engine.inventory", "mappings.documents", "verify.verifier", "emulator.core"),
    ),
    Assumption(
        "A103",
        "a document's content hash",
        "A document's contentHash, when v1 lists one, is the SHA-256 of its bytes in hex (perhaps after "
        "'sha256:'): the stale lookup of an upload past key retention takes an unlinked document of the file's "
        "name only if its size is the spooled file's and its contentHash, when it has that shape, is the "
        "spooled file's SHA-256. A contentHash of another shape is ignored (name and size decide), so a hash "
        "of another algorithm never makes the bridge upload a file twice.",
        "V-SPEC: Document.contentHash is 'A hash of the file contents' (V:8805) with no algorithm; the upload's "
        "metadata holds the name alone, so name and size are all else a listing shows of the file.",
        ("engine.stale", "engine.replay", "engine.kinds", "emulator.v1"),
    ),
    Assumption(
        "A104",
        "the project of a purchase order's document",
        "A document linked only to a purchase order (a legacy order's attachment) belongs to the order's project: "
        "v1 sets its projectId from the order as from a transaction, so verify counts it with that project's "
        "documents.",
        "V-SPEC: Document.projectId (V:8795) is read-only and the description does not say how it is set for a "
        "document without a project link; a purchase order has one project (PurchaseOrder.projectId).",
        ("emulator.core.file_store", "verify.documents"),
    ),
)
