"""Legacy attachments (``File`` {id, name, type, size}) as v1 documents: one per (file, record it hangs on).

A v1 document holds one link of each kind (research A.0), so a legacy file attached to two records becomes
two documents, each linked to its own record: a document's legacy id names both, ``<file id>@<link kind>:<legacy
record id>`` (research A.9), and it is what the crosswalk, the journal and the Idempotency-Key carry.

The upload's ``metadata`` part holds the file's name alone (A93); what the document was on legacy (a tax
document) goes in its description afterwards through the published update.
"""

from __future__ import annotations

from dataclasses import dataclass

from mappings.errors import ErrorCode, MappingError
from mappings.kinds import Kind
from mappings.records import File
from mappings.refs import RecordRef
from mappings.text import NAME_LIMIT, required_text

# research A.3: v1 has no document type; the description says what legacy kept apart.
TAX_DOCUMENT_NOTE = "Tax document (legacy taxDocuments)"
# A102: a bank transaction's file on the v1 transaction made from its actual, told apart from the actual's
# own receipts (both link to that transaction).
BANK_FILE_NOTE = "Attachment of the legacy bank transaction this transaction was actualized from"
# The plan's figure of what a run uploads (v1 bills uploads, V:1020): a ``Stock`` of their count and bytes.
UPLOADS = "billable_uploads"
# The --with choice that carries contact tax documents (they hold tax ids; the CLI's `--with tax-documents`).
TAX_DOCUMENTS = "tax-documents"


@dataclass(frozen=True, slots=True)
class Carried:
    """One kind of legacy attachment and how it is carried: the v1 link kind of its documents, the crosswalk
    kind of the record it hangs on (its documents' scope is that record's), the description its documents
    get (None: none), and the ``--with`` choice it needs ("" when it is carried by default)."""

    kind: Kind
    label: str
    link: str
    target: Kind
    # The legacy record's field that holds the files (a ``mappings.records`` attribute, a tuple of ``File``).
    field: str = "attachments"
    description: str | None = None
    extra: str = ""


# Every kind of attachment a run carries, declared once (``engine.kinds`` makes each a KindSpec).
CARRIED: tuple[Carried, ...] = (
    Carried(Kind.RECEIPT, "receipts", "transaction", Kind.ACTUAL),
    Carried(Kind.CONTACT_FILE, "contact attachments", "contact", Kind.CONTACT),
    Carried(
        Kind.TAX_DOCUMENT,
        "contact tax documents",
        "contact",
        Kind.CONTACT,
        field="tax_documents",
        description=TAX_DOCUMENT_NOTE,
        extra=TAX_DOCUMENTS,
    ),
    Carried(Kind.PURCHASE_ORDER_FILE, "purchase order attachments", "purchaseOrder", Kind.PURCHASE_ORDER),
    # The files of the bank transaction an actual came from, on the transaction made from the actual (A102).
    Carried(
        Kind.BANK_FILE,
        "transaction files from the bank feed",
        "transaction",
        Kind.ACTUAL,
        description=BANK_FILE_NOTE,
    ),
)


def files_of(carried: Carried, record: object) -> tuple[File, ...]:
    """The files of ``carried``'s kind hanging on a legacy record."""
    found = getattr(record, carried.field, ())
    return tuple(f for f in found if isinstance(f, File)) if isinstance(found, tuple) else ()


@dataclass(frozen=True, slots=True)
class Attachment:
    """One legacy file as a document to be: its legacy id (file and record), the file's fields, checked."""

    legacy_id: str
    file_id: str
    name: str
    mime_type: str
    size: int

    @property
    def metadata(self) -> dict[str, object]:
        """The upload's ``metadata`` part."""
        return {"name": self.name}


def document_id(file_id: str, link_kind: str, record_id: str) -> str:
    """The legacy id of the document made of ``file_id`` for the record ``record_id`` (linked as ``link_kind``)."""
    return f"{file_id}@{link_kind}:{record_id}"


def file_of(document: str) -> str:
    """The legacy file id of a document's legacy id (a file id may hold ``@``: the last one separates)."""
    return document.rpartition("@")[0]


def record_of(document: str) -> str:
    """The legacy id of the record a document's legacy id says it hangs on."""
    return document.rpartition("@")[2].partition(":")[2]


def attachment(kind: Kind, scope: str, file: File, link_kind: str, record_id: str) -> Attachment:
    """A legacy ``File`` hanging on ``record_id`` as a document to upload; MappingError names what is unusable."""
    file_id = file.id if isinstance(file.id, str) and file.id else None
    ref = RecordRef(kind, document_id(file_id or "?", link_kind, record_id), scope)
    if file_id is None:
        raise MappingError(ErrorCode.FILE_INVALID, ref, "id", file.id)
    size = file.size
    if not isinstance(size, int) or isinstance(size, bool) or size < 0:
        raise MappingError(ErrorCode.FILE_INVALID, ref, "size", size)
    if not isinstance(file.type, str) or "/" not in file.type:
        raise MappingError(ErrorCode.FILE_INVALID, ref, "type", file.type)
    if not isinstance(file.name, str):
        raise MappingError(ErrorCode.FILE_INVALID, ref, "name", file.name)
    name = required_text(file.name, ref, "name", limit=NAME_LIMIT)
    return Attachment(ref.legacy_id, file_id, name, file.type, size)
