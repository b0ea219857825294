"""The seeded workspaces' files: receipts on some actuals, contacts' attachments and a tax document, quotes on
some purchase orders (``add_order_files``, once the orders are made), and with
``--dirty`` a file above the legacy 10 MB limit and a file whose bytes are gone.

They are drawn from a ``Random`` of their own (derived from the seed) and take no ids from the store and no time
from its clock, so every record the seed made before them stays byte-identical. File ids are storage paths
with a ``/`` in them, as the published example is. Bytes are generated: a minimal valid PDF naming its record,
or a one-pixel PNG of a colour drawn from the seed.
"""

from __future__ import annotations

import random
import struct
import zlib

from bridge.emulator.core.files import Blob, Shelf, StoredFile
from bridge.emulator.core.model import Actual, Workspace
from bridge.emulator.core.purchase_orders import LegacyPurchaseOrder

# One actual in this many gets a receipt (at least two a project).
RECEIPT_EVERY = 25
OVERSIZED_BYTES = 12 * 1024 * 1024
OVERSIZED_PATTERN = b"%PDF-1.4\n% oversized scan, repeated to size\n"


def pdf_bytes(text: str) -> bytes:
    """A minimal one-page PDF showing ``text``, with a correct cross-reference table."""
    safe = text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
    stream = f"BT /F1 12 Tf 72 720 Td ({safe}) Tj ET".encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


def png_bytes(red: int, green: int, blue: int) -> bytes:
    """A valid one-pixel RGB PNG."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    pixels = zlib.compress(bytes((0, red, green, blue)))
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")


def _file(file_id: str, name: str, data: bytes, mime: str, project_id: str | None = None) -> StoredFile:
    return StoredFile(id=file_id, name=name, mime_type=mime, size=len(data), blob=Blob.of(data), project_id=project_id)


def _scan(rng: random.Random, index: int, photo: tuple[str, str], paper: tuple[str, str], text: str) -> StoredFile:
    """A photo (a PNG of a drawn colour) at the odd ``index``es, a PDF showing ``text`` at the even ones; each
    (file id, name)."""
    if index % 2:
        colour = (rng.randrange(256), rng.randrange(256), rng.randrange(256))
        return _file(*photo, png_bytes(*colour), "image/png")
    return _file(*paper, pdf_bytes(text), "application/pdf")


def _receipt(rng: random.Random, project_id: str, actual: Actual, index: int) -> StoredFile:
    folder = f"files/{actual.date:%Y/%m}"
    photo = (f"{folder}/{actual.id}-photo.png", f"receipt-{actual.id}.png")
    paper = (f"{folder}/{actual.id}-receipt.pdf", f"receipt-{actual.id}.pdf")
    return _scan(rng, index, photo, paper, f"Receipt for actual {actual.id}: {actual.description}")


def seed_files(workspace: Workspace, rng: random.Random) -> None:
    """Receipts on about one actual in 25 of every project (PDFs and PNGs in turn), the first project's first
    receipt attached to a second actual too, two contacts with an attachment and one with a tax document."""
    shelf = workspace.files
    for number, project in enumerate(p for p in workspace.projects.values() if not p.deleted):
        actuals = list(project.actuals.values())
        chosen = rng.sample(actuals, k=min(len(actuals), max(2, len(actuals) // RECEIPT_EVERY)))
        for index, actual in enumerate(chosen):
            shelf.attach("actual", actual.id, _receipt(rng, project.id, actual, index))
        others = [a for a in actuals if a not in chosen]
        if number == 0 and chosen and others:
            # One invoice covering two purchases: the same file on both actuals.
            shelf.attach("actual", rng.choice(others).id, shelf.files_of("actual", chosen[0].id)[0])
    contacts = list(workspace.contacts.values())[:2]
    for index, contact in enumerate(contacts):
        name = f"contract-{contact.id}.pdf" if index == 0 else f"headshot-{contact.id}.png"
        data = pdf_bytes(f"Contract with {contact.name}") if index == 0 else png_bytes(*rng.randbytes(3))
        mime = "application/pdf" if index == 0 else "image/png"
        shelf.attach("contact.attachment", contact.id, _file(f"files/contacts/{contact.id}/{name}", name, data, mime))
    if contacts:
        first = contacts[0]
        w9 = pdf_bytes(f"Form W-9 for {first.name} (TIN ***-**-{rng.randrange(10_000):04d})")
        stored = _file(f"files/contacts/{first.id}/w9.pdf", "w9.pdf", w9, "application/pdf")
        shelf.attach("contact.taxDocument", first.id, stored)


def _quote(rng: random.Random, order: LegacyPurchaseOrder, index: int) -> StoredFile:
    folder, number = f"files/purchase-orders/{order.id}", order.number or order.id
    photo = (f"{folder}/signed.png", f"signed-{number}.png")
    paper = (f"{folder}/quote.pdf", f"quote-{number}.pdf")
    return _scan(rng, index, photo, paper, f"Quote for purchase order {number}: {order.title or ''}")


def add_order_files(workspace: Workspace, rng: random.Random) -> None:
    """A quote (PDF) or a signed copy (PNG) on every other purchase order of every project, and the first
    project's first quote on its second order too (one quote covering two orders: two documents on v1).
    Drawn from ``rng`` alone after the orders are made, so every record seeded before stays as it was."""
    shelf = workspace.files
    for number, project in enumerate(p for p in workspace.projects.values() if not p.deleted):
        orders = list(project.purchase_orders.values())
        for index, order in enumerate(orders[::2]):
            shelf.attach("purchaseOrder", order.id, _quote(rng, order, index))
        if number == 0 and len(orders) > 1:
            shelf.attach("purchaseOrder", orders[1].id, shelf.files_of("purchaseOrder", orders[0].id)[0])


def add_dirty_files(workspace: Workspace, shelf: Shelf) -> None:
    """On two actuals of the first project without receipts: a 12 MiB scan (above the legacy 10 MB limit, made
    of a repeated pattern so it costs its pattern in memory) and a receipt whose bytes are gone (its download is
    a 404). ``Shelf.dirty`` names them."""
    project = next(p for p in workspace.projects.values() if not p.deleted)
    bare = [a for a in project.actuals.values() if not shelf.files_of("actual", a.id)]
    big, lost = bare[0], bare[1]
    oversized = StoredFile(
        id=f"files/scans/{big.id}-scan.pdf",
        name=f"scan-{big.id}.pdf",
        mime_type="application/pdf",
        size=OVERSIZED_BYTES,
        blob=Blob(OVERSIZED_PATTERN, OVERSIZED_BYTES),
    )
    shelf.attach("actual", big.id, oversized)
    missing = StoredFile(
        id=f"files/lost/{lost.id}-receipt.pdf",
        name=f"receipt-{lost.id}.pdf",
        mime_type="application/pdf",
        size=2048,
        blob=None,
    )
    shelf.attach("actual", lost.id, missing)
    shelf.dirty.update({"file_oversized": oversized.id, "file_bytes_missing": missing.id})
