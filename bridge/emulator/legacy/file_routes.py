"""Legacy files: download (``downloadFile``, the id percent-encoded, ``%2F`` for ``/``), upload to project storage
(``uploadFile``, 413 above 10 MB), delete (``deleteFile``), and the attachment uploads of actuals
(``uploadActualAttachment``) and contacts (``uploadContactAttachment``, ``uploadContactTaxDocument``).

Every upload is ``multipart/form-data`` with a ``file`` part; the legacy description accepts "PDF or image
files", so another content type is a 400. Only ``uploadFile`` publishes a 413; the attachment uploads publish
none, so a file above the limit is a 400 there.
"""

from __future__ import annotations

from collections.abc import Callable

from fastapi import APIRouter
from starlette.responses import Response, StreamingResponse

from bridge.emulator.core.errors import InvalidInput
from bridge.emulator.core.file_store import FileTooLarge
from bridge.emulator.core.files import AttachmentKind, StoredFile
from bridge.emulator.core.model import Workspace
from bridge.emulator.legacy.errors import TooLarge
from bridge.emulator.legacy.file_shapes import CONTACT_FILES, file_json
from bridge.emulator.legacy.routing import Ctx, LegacyRoute, no_content, ok
from bridge.emulator.wire.multipart import MultipartError, Part, parse

router = APIRouter(route_class=LegacyRoute)
CONTACT_FILTERS: tuple[tuple[str, AttachmentKind], ...] = (
    ("hasAttachments", "contact.attachment"),
    ("hasTaxDocuments", "contact.taxDocument"),
)
# What "PDF or image files" admits.
ACCEPTED = ("application/pdf", "image/")


def presence(ctx: Ctx, name: str) -> bool | None:
    """A ``has...`` filter: True or False when sent, None when not."""
    return ctx.flag(name) if ctx.param(name) is not None else None


def contact_file_filter(ctx: Ctx, workspace: Workspace) -> Callable[[str], bool]:
    """``listContacts``' ``hasAttachments`` and ``hasTaxDocuments``, as a test of a contact id."""
    asked = [(value, kind) for name, kind in CONTACT_FILTERS if (value := presence(ctx, name)) is not None]

    def keep(contact_id: str) -> bool:
        return all(value == bool(workspace.files.files_of(kind, contact_id)) for value, kind in asked)

    return keep


async def _file_part(ctx: Ctx) -> tuple[Part, dict[str, Part]]:
    """The form's ``file`` part (a PDF or an image) and all its parts; anything else is a 400."""
    try:
        parts = parse(await ctx.request.body(), ctx.request.headers.get("content-type"))
    except MultipartError as exc:
        raise InvalidInput("body", str(exc)) from exc
    part = parts.get("file")
    if part is None:
        raise InvalidInput("file", "is required; send the file as the form part named file")
    mime = (part.content_type or "").lower()
    if not mime.startswith(ACCEPTED):
        raise InvalidInput("file", f"is {mime or 'of no type'}; send a PDF or an image")
    return part, parts


async def attach_upload(ctx: Ctx, kind: AttachmentKind, owner_id: str) -> Response:
    """An attachment upload of any owner: the form's file kept and attached to it (201 with its File)."""
    part, _ = await _file_part(ctx)
    try:
        stored = ctx.service.upload_file(
            ctx.workspace, name=part.filename, mime_type=part.content_type, data=part.data, attach_to=(kind, owner_id)
        )
    except FileTooLarge as exc:  # these operations publish no 413
        raise InvalidInput("file", exc.message) from exc
    return ok(file_json(stored), 201)


def _text(parts: dict[str, Part], name: str) -> str | None:
    part = parts.get(name)
    if part is None:
        return None
    try:
        return part.text()
    except MultipartError as exc:
        raise InvalidInput(name, str(exc)) from exc


@router.post("/files/upload")
async def upload_file(ctx: Ctx) -> Response:
    part, parts = await _file_part(ctx)
    try:
        stored: StoredFile = ctx.service.upload_file(
            ctx.workspace,
            name=part.filename,
            mime_type=part.content_type,
            data=part.data,
            project_ref=_text(parts, "projectId"),
            category=_text(parts, "type"),
        )
    except FileTooLarge as exc:
        raise TooLarge(exc.message) from exc
    return ok(file_json(stored), 201)


@router.get("/files/{file_id:path}/download")
async def download_file(ctx: Ctx, file_id: str) -> Response:
    stored = ctx.service.get_file(ctx.workspace, file_id)
    blob = ctx.service.file_bytes(ctx.workspace, file_id)
    headers = {"Content-Length": str(blob.size), "Content-Disposition": f'attachment; filename="{stored.name}"'}
    return StreamingResponse(blob.chunks(), media_type="application/octet-stream", headers=headers)


@router.delete("/files/{file_id:path}")
async def delete_file(ctx: Ctx, file_id: str) -> Response:
    ctx.service.delete_file(ctx.workspace, file_id)
    return no_content()


@router.post("/projects/{project_id}/actuals/{actual_id}/attachment")
async def upload_actual_attachment(ctx: Ctx, project_id: str, actual_id: str) -> Response:
    actual = ctx.service.get_actual(ctx.project(project_id), actual_id)
    return await attach_upload(ctx, "actual", actual.id)


@router.post("/contacts/{contact_id}/attachment")
async def upload_contact_attachment(ctx: Ctx, contact_id: str) -> Response:
    contact = ctx.service.get_contact(ctx.workspace, contact_id)
    return await attach_upload(ctx, CONTACT_FILES["attachments"][1], contact.id)


@router.post("/contacts/{contact_id}/tax-document")
async def upload_contact_tax_document(ctx: Ctx, contact_id: str) -> Response:
    contact = ctx.service.get_contact(ctx.workspace, contact_id)
    return await attach_upload(ctx, CONTACT_FILES["taxDocuments"][1], contact.id)
