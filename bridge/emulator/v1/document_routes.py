"""v1 documents: ``documents_upload`` (multipart ``file`` + ``metadata``, billable, under an Idempotency-Key),
``documents_list``, ``documents_get``, ``documents_update``, ``documents_delete``, ``documents_getContent``,
``documents_link``, ``documents_unlink`` and ``documents_getExtraction``.

The upload's Idempotency-Key fingerprint is the request's raw bytes, boundary included (A-guess: the
description says only that reuse "with different content" is a 409): a retry must send the same bytes, so a
client must derive its multipart boundary from the key rather than draw a random one.
"""

from __future__ import annotations

import json
import re

import pydantic
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

from bridge.emulator.core.file_store import LinkConflict, TargetNotFound
from bridge.emulator.core.files import DOCUMENT_STATUSES, LINK_KINDS, Document, DocumentLink, LinkKind
from bridge.emulator.core.model import Workspace
from bridge.emulator.v1.auth import Grant
from bridge.emulator.v1.context import context_of
from bridge.emulator.v1.document_requests import DocumentCreateMetadata, DocumentLinkRequest, DocumentUpdate
from bridge.emulator.v1.document_shapes import document
from bridge.emulator.v1.errors import NotFoundError, V1Error, ValidationError
from bridge.emulator.v1.requests import field_errors
from bridge.emulator.v1.routing import (
    V1Router,
    can,
    created,
    domain_errors,
    flag,
    idempotent,
    ok,
    page_response,
    parsed_body,
    workspace_of,
)
from bridge.emulator.wire.multipart import MultipartError, parse

router = V1Router()
LINKED_TO = re.compile(r"^(project|contact|transaction|payment|purchaseOrder|budgetLine|paymentRequest):(.+)$")
SORTS = {
    "createdAt": lambda d: (d.created_at, d.id),
    "updatedAt": lambda d: (d.updated_at, d.id),
    "name": lambda d: (d.name, d.id),
}
COARSE_TYPES = ("financial", "tax", "legal", "insurance", "production", "other")


class DocumentTargetNotFoundError(V1Error):
    status = 404
    code = "document_target_not_found"


class AlreadyLinkedError(V1Error):
    status = 409
    code = "already_linked"


class _LinkErrors:
    """The store's link refusals as their v1 codes (inside ``domain_errors``, which maps every other one)."""

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: object, exc: BaseException | None, traceback: object) -> None:
        if isinstance(exc, TargetNotFound):
            raise DocumentTargetNotFoundError(f"The {exc.kind} {exc.ref!r} to link does not exist.") from exc
        if isinstance(exc, LinkConflict):
            raise AlreadyLinkedError(exc.message) from exc


def _view(request: Request, workspace: Workspace, item: Document) -> Response:
    return ok(document(context_of(request).service, workspace.id, item))


def _metadata(text: str | None) -> DocumentCreateMetadata:
    if text is None:
        return DocumentCreateMetadata()
    try:
        decoded = json.loads(text)
    except ValueError:
        raise ValidationError("metadata is not JSON text.", fieldErrors={"metadata": ["is not valid JSON"]}) from None
    try:
        return DocumentCreateMetadata.model_validate(decoded)
    except pydantic.ValidationError as exc:
        fields = field_errors(exc)
        named = {f"metadata.{path}": messages for path, messages in fields.items()}
        raise ValidationError(f"metadata does not fit its shape: {next(iter(named))}.", fieldErrors=named) from None


@router.post("/documents", status_code=201)
async def upload(request: Request, grant: Grant) -> Response:
    can(grant, "create", "Document")
    context = context_of(request)
    workspace = workspace_of(request, grant)
    try:
        parts = parse(await request.body(), request.headers.get("content-type"))
        metadata = _metadata(parts["metadata"].text() if "metadata" in parts else None)
    except MultipartError as exc:
        raise ValidationError(f"{exc}.", fieldErrors={"body": [str(exc)]}) from None
    file = parts.get("file")
    if file is None:
        raise ValidationError("Send the file as the form part named file.", fieldErrors={"file": ["is required"]})
    refs = metadata.links if isinstance(metadata.links, list) else [metadata.links]
    links = [DocumentLink(kind=ref.kind, target_id=ref.id, phase_id=ref.phase_id) for ref in refs]

    async def produce() -> Response:
        with domain_errors(), _LinkErrors():
            item = context.service.upload_document(
                workspace,
                name=metadata.name or file.filename or "document",
                mime_type=file.content_type or "application/octet-stream",
                data=file.data,
                description=metadata.description,
                links=links,
            )
        return created(document(context.service, workspace.id, item))

    return await idempotent(request, grant, produce)


@router.get("/documents")
async def list_documents(request: Request, grant: Grant) -> Response:
    context = context_of(request)
    workspace = workspace_of(request, grant)
    query = request.query_params
    linked = query.get("linkedTo")
    found = LINKED_TO.match(linked) if linked is not None else None
    if linked is not None and found is None:
        raise ValidationError(
            "linkedTo must be kind:id, such as transaction:txn_8f2a1c9e.",
            fieldErrors={"linkedTo": ["does not match kind:id"]},
        )
    status, coarse = query.get("status"), query.get("coarseType")
    for name, value, allowed in (("status", status, DOCUMENT_STATUSES), ("coarseType", coarse, COARSE_TYPES)):
        if value is not None and value not in allowed:
            raise ValidationError(
                f"{name} {value!r} is not one of {', '.join(allowed)}.", fieldErrors={name: ["is not allowed"]}
            )
    sort, order = query.get("sort", "createdAt"), query.get("order", "asc")
    if sort not in SORTS or order not in ("asc", "desc"):
        raise ValidationError(
            f"Sort documents by {', '.join(SORTS)}, in asc or desc order.", fieldErrors={"sort": ["is not allowed"]}
        )
    items = context.service.list_documents(
        workspace,
        linked_to=(found.group(1), found.group(2)) if found else None,
        unassigned=flag(request, "unassigned"),
        project_id=query.get("project"),
        status=status,
        folder_id=query.get("folder"),
        search=query.get("q"),
    )
    # The emulator classifies nothing, so a classification or coarseType filter matches no document.
    if query.get("classification") is not None or coarse is not None:
        items = []
    items.sort(key=SORTS[sort], reverse=order == "desc")
    names = (
        "linkedTo",
        "unassigned",
        "project",
        "status",
        "folder",
        "q",
        "classification",
        "coarseType",
        "sort",
        "order",
    )
    return page_response(
        request, items, lambda d: document(context.service, workspace.id, d), filters={n: query.get(n) for n in names}
    )


def _document(request: Request, grant: Grant, document_id: str) -> tuple[Workspace, Document]:
    """The grant's workspace and its document (404 ``not_found`` when it has none by that id)."""
    workspace = workspace_of(request, grant)
    with domain_errors():
        return workspace, context_of(request).service.get_document(workspace, document_id)


@router.get("/documents/{document_id}")
async def get_document(request: Request, grant: Grant, document_id: str) -> Response:
    return _view(request, *_document(request, grant, document_id))


@router.patch("/documents/{document_id}")
async def update_document(request: Request, grant: Grant, document_id: str) -> Response:
    can(grant, "update", "Document")
    workspace = workspace_of(request, grant)
    body = await parsed_body(request, DocumentUpdate)
    changes = {{"folderId": "folder_id"}.get(key, key): value for key, value in body.items()}
    with domain_errors():
        item = context_of(request).service.update_document(workspace, document_id, changes)
    return _view(request, workspace, item)


@router.delete("/documents/{document_id}", status_code=204)
async def delete_document(request: Request, grant: Grant, document_id: str) -> Response:
    can(grant, "delete", "Document")
    workspace = workspace_of(request, grant)
    with domain_errors():
        context_of(request).service.delete_document(workspace, document_id)
    return Response(status_code=204)


@router.get("/documents/{document_id}/content")
async def get_content(request: Request, grant: Grant, document_id: str) -> Response:
    _, item = _document(request, grant, document_id)
    return StreamingResponse(item.blob.chunks(), media_type=item.mime_type, headers={"Content-Length": str(item.size)})


@router.get("/documents/{document_id}/extraction")
async def get_extraction(request: Request, grant: Grant, document_id: str) -> Response:
    """Never ready: the emulator runs no extraction, and the description answers 404 until a document is."""
    _, item = _document(request, grant, document_id)
    raise NotFoundError(f"Document {item.id!r} has no extraction: it is {item.status}.")


def _kind(kind: str) -> LinkKind:
    for allowed in LINK_KINDS:
        if kind == allowed:
            return allowed
    raise ValidationError(
        f"kind {kind!r} is not one of {', '.join(LINK_KINDS)}.", fieldErrors={"kind": ["is not allowed"]}
    )


@router.put("/documents/{document_id}/links/{kind}")
async def link(request: Request, grant: Grant, document_id: str, kind: str) -> Response:
    can(grant, "update", "Document")
    workspace = workspace_of(request, grant)
    target = _kind(kind)
    body = await parsed_body(request, DocumentLinkRequest)
    # The phase only means something on a budget-line link.
    phase = body.get("phaseId") if target == "budgetLine" else None
    wanted = DocumentLink(
        kind=target, target_id=str(body["targetId"]), phase_id=phase if isinstance(phase, str) else None
    )
    with domain_errors(), _LinkErrors():
        item = context_of(request).service.link_document(
            workspace, document_id, wanted, replace=body.get("replace") is True
        )
    return _view(request, workspace, item)


@router.delete("/documents/{document_id}/links/{kind}")
async def unlink(request: Request, grant: Grant, document_id: str, kind: str) -> Response:
    can(grant, "update", "Document")
    workspace = workspace_of(request, grant)
    target = _kind(kind)
    with domain_errors():
        item = context_of(request).service.unlink_document(workspace, document_id, target)
    return _view(request, workspace, item)
