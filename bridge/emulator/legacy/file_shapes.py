"""How the legacy surface writes a file (``File``: id, name, MIME type, size) and which owners' files a read
shows: an actual's always (A-guess: the seed lists ``attachments`` among an actual's fields, not among the
expanded ones, and its ``expands[]=attachments`` then changes nothing), a contact's attachments and tax
documents only with the ``expands`` values that name them (the contact expands the description declares).
"""

from __future__ import annotations

from bridge.emulator.core.files import AttachmentKind, Shelf, StoredFile
from bridge.emulator.core.model import Workspace

Json = dict[str, object]
# expands value on a contact read -> (the contact field it fills, the kind of attachment it lists)
CONTACT_FILES: dict[str, tuple[str, AttachmentKind]] = {
    "attachments": ("attachments", "contact.attachment"),
    "taxDocuments": ("taxDocuments", "contact.taxDocument"),
}


def file_json(stored: StoredFile) -> Json:
    return {"id": stored.id, "name": stored.name, "type": stored.mime_type, "size": stored.size}


def files_json(shelf: Shelf, kind: AttachmentKind, owner_id: str) -> list[Json]:
    """One owner's files as the legacy surface lists them."""
    return [file_json(stored) for stored in shelf.files_of(kind, owner_id)]


def contact_files(workspace: Workspace, contact_id: str, expands: frozenset[str]) -> Json:
    """The file lists a contact read adds for its ``expands``."""
    return {
        field: files_json(workspace.files, kind, contact_id)
        for value, (field, kind) in CONTACT_FILES.items()
        if value in expands
    }
