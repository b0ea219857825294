"""Files and documents: the bytes both surfaces serve, and who they are attached or linked to.

The legacy surface keeps *files* (``File``: id, name, MIME type, size) attached to actuals, contacts (as
attachments or tax documents), bank transactions and purchase orders; a file's id may hold ``/``
(``files/2024/03/report.pdf``). The v1 surface keeps *documents*, each with at most one link per kind of target.
Both are kept per workspace in a ``Shelf`` (``Workspace.files``); the rules that change them are the store's
(``core.file_store``).

Bytes are a ``Blob``: a pattern repeated up to a size. A seeded or uploaded file is its own pattern once; the
dirty seed's oversized file is a short pattern repeated past 10 MB, so it costs its pattern in memory and is
produced chunk by chunk when it is read.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

CHUNK = 64 * 1024
AttachmentKind = Literal["actual", "contact.attachment", "contact.taxDocument", "transaction", "purchaseOrder"]
DocumentStatus = Literal["pending", "processing", "ready", "failed"]
DOCUMENT_STATUSES: tuple[DocumentStatus, ...] = ("pending", "processing", "ready", "failed")
# The kinds a caller may link a document to; payment-request links are the approval flow's (V-SPEC).
LinkKind = Literal["project", "contact", "transaction", "payment", "purchaseOrder", "budgetLine"]
LINK_KINDS: tuple[LinkKind, ...] = ("project", "contact", "transaction", "payment", "purchaseOrder", "budgetLine")


@dataclass(frozen=True, slots=True)
class Blob:
    """``size`` bytes made of ``pattern`` repeated (and cut at ``size``)."""

    pattern: bytes
    size: int

    @classmethod
    def of(cls, data: bytes) -> Blob:
        return cls(data, len(data))

    def chunks(self) -> Iterator[bytes]:
        """The bytes in pieces of at most ``CHUNK``, never all at once."""
        if not self.pattern:
            return
        # One piece is whole patterns (at least one), so each chunk starts at a pattern boundary.
        piece = self.pattern * max(1, CHUNK // len(self.pattern))
        left = self.size
        while left > 0:
            part = piece[:left]
            left -= len(part)
            yield part

    def read(self) -> bytes:
        """Every byte; for the small files a test or a replay compares."""
        return b"".join(self.chunks())

    def sha256(self) -> str:
        digest = hashlib.sha256()
        for part in self.chunks():
            digest.update(part)
        return digest.hexdigest()


@dataclass(slots=True)
class StoredFile:
    """A legacy file. ``blob`` None: the record names it but its bytes are gone (the download is a 404)."""

    id: str
    name: str
    mime_type: str
    size: int
    blob: Blob | None
    project_id: str | None = None
    category: str | None = None


@dataclass(frozen=True, slots=True)
class DocumentLink:
    """One link; ``project_id`` is the project of the target, found when the link is made."""

    kind: LinkKind
    target_id: str
    phase_id: str | None = None
    project_id: str | None = None


@dataclass(slots=True)
class Document:
    """A v1 document: its bytes, its links (one per kind, in the order they were made) and what the service
    sets itself (status, hash, source, times)."""

    id: str
    name: str
    mime_type: str
    blob: Blob
    created_at: datetime
    updated_at: datetime
    status: DocumentStatus = "pending"
    source: str = "api"
    description: str | None = None
    folder_id: str | None = None
    links: dict[str, DocumentLink] = field(default_factory=dict)
    deleted: bool = False

    @property
    def size(self) -> int:
        return self.blob.size


@dataclass(slots=True)
class Shelf:
    """One workspace's files and documents.

    ``attached`` maps ``kind:owner id`` to the owner's file ids in attachment order (text keys, as the
    workspace's canonical dump needs): one file may be attached to several owners. ``uploads`` and
    ``uploaded_bytes`` count the billable v1 uploads (not their replays).
    ``dirty`` names the dirty seed's files (name -> file id), apart from the store's ``dirty_catalogue`` of bad
    records the bridge quarantines.
    """

    files: dict[str, StoredFile] = field(default_factory=dict)
    attached: dict[str, list[str]] = field(default_factory=dict)
    documents: dict[str, Document] = field(default_factory=dict)
    uploads: int = 0
    uploaded_bytes: int = 0
    dirty: dict[str, str] = field(default_factory=dict)

    def files_of(self, kind: AttachmentKind, owner_id: str) -> list[StoredFile]:
        """The files attached to one owner, in attachment order (a file that was deleted since is left out)."""
        ids = self.attached.get(f"{kind}:{owner_id}", ())
        return [self.files[file_id] for file_id in ids if file_id in self.files]

    def attach(self, kind: AttachmentKind, owner_id: str, stored: StoredFile) -> None:
        """Keep ``stored`` and attach it to one owner (once: attaching it again changes nothing)."""
        self.files[stored.id] = stored
        ids = self.attached.setdefault(f"{kind}:{owner_id}", [])
        if stored.id not in ids:
            ids.append(stored.id)

    def live_documents(self) -> list[Document]:
        return [d for d in self.documents.values() if not d.deleted]

    def linked_documents(self, kind: str, target_id: str) -> list[Document]:
        """The live documents linked to one target, in upload order."""
        found = []
        for document in self.live_documents():
            link = document.links.get(kind)
            if link is not None and link.target_id == target_id:
                found.append(document)
        return found
