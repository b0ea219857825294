"""Guesses about the documents of purchase orders and bank transactions, and about finding a document again
(issue 30's last document pieces); part of the registry in ``bridge.assumptions``."""

from __future__ import annotations

from bridge.assumption import Assumption

DOCUMENT_LINKS: tuple[Assumption, ...] = (
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
