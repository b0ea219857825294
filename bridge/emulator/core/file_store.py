"""The rules for files (legacy) and documents (v1): uploads, attachments, links and what each may point at.

A legacy upload is refused above ``MAX_LEGACY_FILE_BYTES`` (the legacy description: "PDF or image files up to
10 MB"; we read MB as MiB, A-guess); v1 publishes no limit. A document has at most one link per kind; linking
the same target again changes nothing, another target of a kind already linked needs ``replace`` (else a
``LinkConflict``), and a target must exist (else ``TargetNotFound``). Which targets exist is asked of
``LINK_TARGETS``: a kind without an entry there (payments) has no target that exists.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace

from bridge.emulator.core import validate
from bridge.emulator.core.errors import Conflict, EmulatorError, InvalidInput, NotFound
from bridge.emulator.core.files import (
    LINK_KINDS,
    AttachmentKind,
    Blob,
    Document,
    DocumentLink,
    StoredFile,
)
from bridge.emulator.core.model import Actual, Project, Workspace
from bridge.emulator.core.workspaces import StoreCore

MAX_LEGACY_FILE_BYTES = 10 * 1024 * 1024


class FileTooLarge(EmulatorError):  # noqa: N818 - named for the outcome, as the surfaces' codes are
    """A legacy upload above the published limit; the legacy surface answers 413."""

    code = "payload_too_large"

    def __init__(self, size: int) -> None:
        super().__init__(
            f"the file is {size} bytes; the limit is {MAX_LEGACY_FILE_BYTES} bytes (10 MB); send a smaller one"
        )


class TargetNotFound(NotFound):
    """A link names a target that does not exist (v1 ``document_target_not_found``)."""

    code = "document_target_not_found"


class LinkConflict(Conflict):
    """A link of this kind to another target is already there and ``replace`` was not asked for."""

    code = "already_linked"


# kind -> (workspace, target id) -> the id of the project the target belongs to (None: a workspace record);
# raises NotFound when there is no such target. A store of another kind adds its own entry.
TargetLookup = Callable[[Workspace, str], str | None]


def _project_target(workspace: Workspace, ref: str) -> str | None:
    project = workspace.projects.get(ref)
    if project is None or project.deleted:
        raise NotFound("project", ref)
    return project.id


def _project_id(workspace: Workspace, ref: object) -> str:
    """A project's id from its id or its alias (the legacy surface names projects by alias)."""
    text = str(ref)
    return next((p.id for p in workspace.projects.values() if p.alias == text and not p.deleted), text)


def _contact_target(workspace: Workspace, ref: str) -> str | None:
    if ref not in workspace.contacts:
        raise NotFound("contact", ref)
    return None


def _transaction_target(workspace: Workspace, ref: str) -> str | None:
    return find_actual(workspace, ref)[0].id


def _line_target(workspace: Workspace, ref: str) -> str | None:
    found = next((p for p in _live(workspace) if ref in p.nodes), None)
    if found is None:
        raise NotFound("budget line", ref)
    return found.id


def _purchase_order_target(workspace: Workspace, ref: str) -> str | None:
    order = workspace.purchase_orders.get(ref)
    if order is None or order.deleted:
        raise NotFound("purchase order", ref)
    return order.project_id


LINK_TARGETS: dict[str, TargetLookup] = {
    "project": _project_target,
    "contact": _contact_target,
    "transaction": _transaction_target,
    "budgetLine": _line_target,
    "purchaseOrder": _purchase_order_target,
}
# Links that name the document's project, strongest first (A-guess: v1 does not say how projectId is set).
PROJECT_FROM = ("project", "transaction", "purchaseOrder", "budgetLine")


def _live(workspace: Workspace) -> list[Project]:
    return [p for p in workspace.projects.values() if not p.deleted]


def find_actual(workspace: Workspace, actual_id: str) -> tuple[Project, Actual]:
    """An actual (a v1 transaction) of any live project by id."""
    for project in _live(workspace):
        actual = project.actuals.get(actual_id)
        if actual is not None:
            return project, actual
    raise NotFound("transaction", actual_id)


class FilesStore(StoreCore):
    """Legacy files and attachments, v1 documents and their links."""

    # -- legacy files ---------------------------------------------------------------------------------------

    def get_file(self, workspace: Workspace, file_id: str) -> StoredFile:
        stored = workspace.files.files.get(file_id)
        if stored is None:
            raise NotFound("file", file_id)
        return stored

    def file_bytes(self, workspace: Workspace, file_id: str) -> Blob:
        """A file's bytes; a file whose record stands but whose bytes are gone is not found either."""
        blob = self.get_file(workspace, file_id).blob
        if blob is None:
            raise NotFound("file", file_id)
        return blob

    def upload_file(
        self,
        workspace: Workspace,
        *,
        name: str | None,
        mime_type: str | None,
        data: bytes,
        project_ref: object = None,
        category: object = None,
        attach_to: tuple[AttachmentKind, str] | None = None,
    ) -> StoredFile:
        """Keep an uploaded file (and attach it to one owner); its id is a storage path, as the published ones are."""
        if len(data) > MAX_LEGACY_FILE_BYTES:
            raise FileTooLarge(len(data))
        project_id = _project_target(workspace, _project_id(workspace, project_ref)) if project_ref else None
        clean_name = validate.text("file.name", name, max_len=255) or "file"
        stamp = self.clock()
        file_id = f"files/{stamp:%Y/%m}/{self.ids.new('fil')}-{clean_name.replace('/', '-')}"
        stored = StoredFile(
            id=file_id,
            name=clean_name,
            mime_type=mime_type or "application/octet-stream",
            size=len(data),
            blob=Blob.of(data),
            project_id=project_id,
            category=validate.text("type", category, max_len=100),
        )
        if attach_to is None:
            workspace.files.files[file_id] = stored
        else:
            workspace.files.attach(*attach_to, stored)
        return stored

    def delete_file(self, workspace: Workspace, file_id: str) -> None:
        """Remove a file; the records it was attached to no longer list it."""
        self.get_file(workspace, file_id)
        del workspace.files.files[file_id]

    # -- v1 documents ---------------------------------------------------------------------------------------

    def list_documents(
        self,
        workspace: Workspace,
        *,
        linked_to: tuple[str, str] | None = None,
        unassigned: bool = False,
        project_id: str | None = None,
        status: str | None = None,
        folder_id: str | None = None,
        search: str | None = None,
    ) -> list[Document]:
        """Live documents in upload order, narrowed by every filter given."""
        needle = search.casefold() if search else None
        shelf = workspace.files
        candidates = shelf.linked_documents(*linked_to) if linked_to else shelf.live_documents()
        return [
            document
            for document in candidates
            if (not unassigned or not document.links)
            and (project_id is None or self.document_project(document) == project_id)
            and (status is None or document.status == status)
            and (folder_id is None or document.folder_id == folder_id)
            and (needle is None or needle in f"{document.name}\n{document.description or ''}".casefold())
        ]

    def get_document(self, workspace: Workspace, document_id: str) -> Document:
        document = workspace.files.documents.get(document_id)
        if document is None or document.deleted:
            raise NotFound("document", document_id)
        return document

    def upload_document(
        self,
        workspace: Workspace,
        *,
        name: str,
        mime_type: str,
        data: bytes,
        description: str | None = None,
        links: Sequence[DocumentLink] = (),
    ) -> Document:
        """A new document from uploaded bytes, linked to every target of ``links`` or not made at all."""
        kinds = [link.kind for link in links]
        duplicate = next((kind for kind in kinds if kinds.count(kind) > 1), None)
        if duplicate is not None:
            raise Conflict(f"metadata.links names kind {duplicate!r} twice; a document has one link of each kind")
        found = [self._target(workspace, link) for link in links]
        stamp = self.clock()
        document = Document(
            id=self.ids.new("doc"),
            name=validate.required_text("name", name, max_len=255),
            mime_type=mime_type,
            blob=Blob.of(data),
            created_at=stamp,
            updated_at=stamp,
            description=validate.text("description", description, max_len=5000),
            links={link.kind: link for link in found},
        )
        shelf = workspace.files
        shelf.documents[document.id] = document
        shelf.uploads += 1
        shelf.uploaded_bytes += document.size
        return document

    def update_document(self, workspace: Workspace, document_id: str, changes: Mapping[str, object]) -> Document:
        """Apply ``changes`` (name, description, folder_id); links change only through ``link_document``."""
        document = self.get_document(workspace, document_id)
        for key, value in changes.items():
            if key == "name":
                document.name = validate.required_text("name", value, max_len=255)
            elif key == "description":
                document.description = validate.text("description", value, max_len=5000)
            elif key == "folder_id":
                # No folder operation is published, so no folder can be checked: the id is kept as sent.
                document.folder_id = validate.text("folderId", value)
            else:
                raise InvalidInput(key, "is not a field of a document")
        document.updated_at = self.clock()
        return document

    def delete_document(self, workspace: Workspace, document_id: str) -> None:
        """Delete a document; deleting it again is no error (the operation is safe to retry)."""
        document = workspace.files.documents.get(document_id)
        if document is None:
            raise NotFound("document", document_id)
        document.deleted = True

    def link_document(
        self, workspace: Workspace, document_id: str, link: DocumentLink, *, replace: bool = False
    ) -> Document:
        """Link a document to one target of ``link.kind``: the same target again changes nothing; another one
        needs ``replace``."""
        document = self.get_document(workspace, document_id)
        link = self._target(workspace, link)
        current = document.links.get(link.kind)
        if current == link:
            return document
        if current is not None and current.target_id != link.target_id and not replace:
            raise LinkConflict(
                f"document {document.id!r} is already linked to {link.kind} {current.target_id!r}; "
                "send replace: true to link it to another"
            )
        document.links[link.kind] = link
        document.updated_at = self.clock()
        return document

    def unlink_document(self, workspace: Workspace, document_id: str, kind: str) -> Document:
        """Remove the link of this kind, if there is one (safe to retry)."""
        document = self.get_document(workspace, document_id)
        if document.links.pop(kind, None) is not None:
            document.updated_at = self.clock()
        return document

    def document_project(self, document: Document) -> str | None:
        """The project a document belongs to: the one its project link names, else that of its transaction,
        purchase order or budget line (looked up when the link was made; A104)."""
        for kind in PROJECT_FROM:
            link = document.links.get(kind)
            if link is not None and link.project_id is not None:
                return link.project_id
        return None

    def _target(self, workspace: Workspace, link: DocumentLink) -> DocumentLink:
        """The link with its target's project, once the target is found (else ``TargetNotFound``)."""
        if link.kind not in LINK_KINDS:
            raise InvalidInput("kind", f"{link.kind!r} is not one of {', '.join(LINK_KINDS)}")
        lookup = LINK_TARGETS.get(link.kind)
        try:
            if lookup is None:
                raise NotFound(link.kind, link.target_id)
            return replace(link, project_id=lookup(workspace, link.target_id))
        except NotFound as exc:
            raise TargetNotFound(link.kind, link.target_id) from exc
