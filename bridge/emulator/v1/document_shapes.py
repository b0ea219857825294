"""How the v1 surface writes a document, and the published shapes its document answers are held to.

``contentHash`` is the SHA-256 of the bytes in hex (the description names no algorithm). ``status`` stays
``pending``: the emulator runs no extraction, so ``classification``, ``coarseType``, ``pageCount`` and
``hasSensitiveInfo`` stay null. ``projectId`` is the project of the document's project, transaction or budget-line
link (A-guess: the description does not say how it is set).
"""

from __future__ import annotations

from typing import Any, Literal, NotRequired

from pydantic import with_config
from typing_extensions import TypedDict  # pydantic needs this one before Python 3.12

from bridge.emulator.core.files import Document
from bridge.emulator.core.store import Service
from bridge.emulator.v1.contract_shapes import CLOSED, page
from bridge.emulator.v1.shapes import Json, timestamp
from bridge.emulator.wire.formats import DateTime

# -- the view -------------------------------------------------------------------------------------------------


def document(service: Service, workspace_id: str, item: Document) -> Json:
    return {
        "id": item.id,
        "name": item.name,
        "mimeType": item.mime_type,
        "size": item.size,
        "status": item.status,
        "workspaceId": workspace_id,
        "pageCount": None,
        "classification": None,
        "coarseType": None,
        "hasSensitiveInfo": None,
        "description": item.description,
        "source": item.source,
        "folderId": item.folder_id,
        "projectId": service.document_project(item),
        "contentHash": item.blob.sha256(),
        "links": [
            {"kind": link.kind, "id": link.target_id} | ({"phaseId": link.phase_id} if link.phase_id else {})
            for link in item.links.values()
        ],
        "createdAt": timestamp(item.created_at),
        "updatedAt": timestamp(item.updated_at),
    }


def transaction_ref(item: Document) -> Json:
    """A document as a transaction's ``expand=documents`` lists it."""
    return {"id": item.id, "name": item.name}


def contact_ref(item: Document) -> Json:
    """A document as a contact's ``expand=documents`` lists it."""
    return {
        "id": item.id,
        "name": item.name,
        "size": item.size,
        "mimeType": item.mime_type,
        "status": item.status,
        "description": item.description,
        "classification": None,
    }


# -- the published shapes (the oracle the tests hold the answers to) --------------------------------------------

TargetKind = Literal["project", "contact", "transaction", "payment", "purchaseOrder", "budgetLine", "paymentRequest"]
Status = Literal["pending", "processing", "ready", "failed"]
CoarseType = Literal["financial", "tax", "legal", "insurance", "production", "other"]


@with_config(CLOSED)
class TargetRef(TypedDict):
    kind: TargetKind
    id: str
    phaseId: NotRequired[str | None]


@with_config(CLOSED)
class DocumentShape(TypedDict):
    id: str
    name: str
    mimeType: str
    size: int
    status: Status
    workspaceId: str
    pageCount: NotRequired[int | None]
    classification: NotRequired[str | None]
    coarseType: NotRequired[CoarseType | None]
    hasSensitiveInfo: NotRequired[bool | None]
    description: NotRequired[str | None]
    source: NotRequired[str | None]
    folderId: NotRequired[str | None]
    projectId: NotRequired[str | None]
    contentHash: NotRequired[str | None]
    links: list[TargetRef]
    createdAt: DateTime
    updatedAt: DateTime


BYTES: Any = "bytes"  # an answer that is the file itself, not JSON
D = "/documents/{documentId}"
OPERATIONS: dict[tuple[str, str], dict[int, Any]] = {
    ("POST", "/documents"): {201: DocumentShape},
    ("GET", "/documents"): {200: page(DocumentShape)},
    ("GET", D): {200: DocumentShape},
    ("PATCH", D): {200: DocumentShape},
    ("DELETE", D): {204: None},
    ("GET", D + "/content"): {200: BYTES},
    ("GET", D + "/extraction"): {},
    ("PUT", D + "/links/{kind}"): {200: DocumentShape},
    ("DELETE", D + "/links/{kind}"): {200: DocumentShape},
}
