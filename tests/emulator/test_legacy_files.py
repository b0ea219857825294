"""Legacy files: receipts on actuals, contact attachments and tax documents, downloads by an id holding ``/``,
uploads within the 10 MB limit, deletes, and the dirty seed's oversized and lost files."""

from __future__ import annotations

import hashlib
from typing import Any
from urllib.parse import quote

import httpx
import pytest
from fastapi import FastAPI

from bridge.emulator.app import create_app
from bridge.emulator.core.file_store import MAX_LEGACY_FILE_BYTES
from bridge.emulator.core.seed import seeded_service
from bridge.emulator.core.seed_files import OVERSIZED_BYTES
from tests.legacy_contract_hook import HeldTransport
from tests.support.emulator import LEGACY_KEY

pytestmark = pytest.mark.anyio
PROJECT = "/projects/night-harbor"


def encoded(file_id: str) -> str:
    """A file id as the official legacy client puts it in a path: percent-encoded, ``/`` as ``%2F``."""
    return quote(file_id, safe="")


async def actuals_with_files(client: httpx.AsyncClient) -> list[dict[str, Any]]:
    actuals: list[dict[str, Any]] = (await client.get(f"{PROJECT}/actuals")).json()["actuals"]
    return [a for a in actuals if a["attachments"]]


async def test_receipts_come_with_actuals_and_download_byte_for_byte(legacy_client: httpx.AsyncClient) -> None:
    """Some seeded actuals carry PDF and PNG receipts; each downloads by its percent-encoded id as the bytes its
    File record announces, as application/octet-stream."""
    attached = await actuals_with_files(legacy_client)
    files = {f["id"]: f for a in attached for f in a["attachments"]}
    assert {f["type"] for f in files.values()} == {"application/pdf", "image/png"}
    for file in files.values():
        assert "/" in file["id"]
        answer = await legacy_client.get(f"/files/{encoded(file['id'])}/download")
        assert answer.status_code == 200
        assert answer.headers["content-type"] == "application/octet-stream"
        assert len(answer.content) == file["size"]
        assert answer.content.startswith(b"%PDF-" if file["type"] == "application/pdf" else b"\x89PNG")


async def test_one_receipt_is_attached_to_two_actuals(legacy_client: httpx.AsyncClient) -> None:
    """One invoice covers two purchases: its file id appears on two actuals."""
    owners: dict[str, list[str]] = {}
    for actual in await actuals_with_files(legacy_client):
        for file in actual["attachments"]:
            owners.setdefault(file["id"], []).append(actual["id"])
    assert sorted(len(ids) for ids in owners.values())[-1] == 2


async def test_has_attachments_filters_actuals_both_ways(legacy_client: httpx.AsyncClient) -> None:
    """hasAttachments=true lists exactly the actuals with attachments, false exactly the others."""
    every = (await legacy_client.get(f"{PROJECT}/actuals")).json()["actuals"]
    with_files = (await legacy_client.get(f"{PROJECT}/actuals", params={"hasAttachments": "true"})).json()["actuals"]
    without = (await legacy_client.get(f"{PROJECT}/actuals", params={"hasAttachments": "false"})).json()["actuals"]
    assert {a["id"] for a in with_files} == {a["id"] for a in every if a["attachments"]}
    assert with_files
    assert {a["id"] for a in without} == {a["id"] for a in every if not a["attachments"]}


async def test_contact_files_come_by_their_expands(legacy_client: httpx.AsyncClient) -> None:
    """Attachments and tax documents are shown with expands naming them; hasTaxDocuments finds the one W-9."""
    plain = (await legacy_client.get("/contacts")).json()["contacts"]
    assert all("attachments" not in c and "taxDocuments" not in c for c in plain)
    params = {"expands[]": ["attachments", "taxDocuments"]}
    expanded = (await legacy_client.get("/contacts", params=params)).json()["contacts"]
    assert sum(len(c["attachments"]) for c in expanded) == 2
    (w9,) = [f for c in expanded for f in c["taxDocuments"]]
    taxed = (await legacy_client.get("/contacts", params={"hasTaxDocuments": "true"})).json()["contacts"]
    assert len(taxed) == 1
    one = (await legacy_client.get(f"/contacts/{taxed[0]['id']}", params={"expands": "taxDocuments"})).json()
    assert one["taxDocuments"] == [w9]
    download = await legacy_client.get(f"/files/{encoded(w9['id'])}/download")
    assert download.content.startswith(b"%PDF-")


def pdf(size: int) -> dict[str, tuple[str, bytes, str]]:
    return {"file": ("scan.pdf", b"%PDF-1.4\n" + b"x" * (size - 9), "application/pdf")}


async def test_an_uploaded_file_downloads_as_sent_and_deletes(legacy_client: httpx.AsyncClient) -> None:
    """uploadFile answers 201 with a File whose id downloads the same bytes; after deleteFile it is a 404."""
    made = await legacy_client.post(
        "/files/upload", files=pdf(2048), data={"projectId": "night-harbor", "type": "call-sheet"}
    )
    assert made.status_code == 201, made.text
    file = made.json()
    assert (file["name"], file["type"], file["size"]) == ("scan.pdf", "application/pdf", 2048)
    path = f"/files/{encoded(file['id'])}"
    assert (await legacy_client.get(f"{path}/download")).content == pdf(2048)["file"][1]
    assert (await legacy_client.delete(path)).status_code == 204
    assert (await legacy_client.get(f"{path}/download")).status_code == 404
    assert (await legacy_client.delete(path)).status_code == 404


@pytest.mark.parametrize(("size", "status"), [(MAX_LEGACY_FILE_BYTES, 201), (MAX_LEGACY_FILE_BYTES + 1, 413)])
async def test_upload_is_refused_above_10_mb(legacy_client: httpx.AsyncClient, size: int, status: int) -> None:
    """A file of exactly 10 MiB is taken; one byte more is 413 in the legacy error body."""
    answer = await legacy_client.post("/files/upload", files=pdf(size))
    assert answer.status_code == status
    if status == 413:
        assert answer.json()["code"] == "payload_too_large"


@pytest.mark.parametrize(
    ("files", "field"),
    [
        ({"file": ("notes.txt", b"hello", "text/plain")}, "file"),
        ({"other": ("scan.pdf", b"%PDF-", "application/pdf")}, "file"),
    ],
)
async def test_upload_needs_a_pdf_or_image_file_part(
    legacy_client: httpx.AsyncClient, files: dict[str, tuple[str, bytes, str]], field: str
) -> None:
    """A text file, or no part named file, is a 400 naming the file."""
    answer = await legacy_client.post("/files/upload", files=files)
    assert (answer.status_code, answer.json()["details"]["field"]) == (400, field)


async def test_a_body_that_is_not_multipart_is_400(legacy_client: httpx.AsyncClient) -> None:
    answer = await legacy_client.post("/files/upload", json={"file": "x"})
    assert answer.status_code == 400


async def test_attachment_uploads_attach_to_their_record(legacy_client: httpx.AsyncClient) -> None:
    """uploadActualAttachment, uploadContactAttachment and uploadContactTaxDocument each add the file to their
    record's list; an unknown record is a 404; a file above 10 MB is a 400 there (they publish no 413)."""
    actual = (await legacy_client.get(f"{PROJECT}/actuals", params={"hasAttachments": "false"})).json()["actuals"][0]
    made = await legacy_client.post(f"{PROJECT}/actuals/{actual['id']}/attachment", files=pdf(100))
    assert made.status_code == 201
    again = (await legacy_client.get(f"{PROJECT}/actuals/{actual['id']}")).json()
    assert again["attachments"] == [made.json()]
    contact = (await legacy_client.get("/contacts")).json()["contacts"][-1]
    for route, field in (("attachment", "attachments"), ("tax-document", "taxDocuments")):
        sent = await legacy_client.post(f"/contacts/{contact['id']}/{route}", files=pdf(100))
        assert sent.status_code == 201
        shown = (await legacy_client.get(f"/contacts/{contact['id']}", params={"expands[]": field})).json()
        assert shown[field][-1] == sent.json()
    assert (await legacy_client.post("/contacts/nobody/attachment", files=pdf(100))).status_code == 404
    too_big = await legacy_client.post(f"/contacts/{contact['id']}/attachment", files=pdf(MAX_LEGACY_FILE_BYTES + 1))
    assert too_big.status_code == 400


@pytest.fixture
def dirty_app() -> FastAPI:
    return create_app(seeded_service(42, "small", dirty=True), legacy_key=LEGACY_KEY)


async def test_the_dirty_seed_serves_an_oversized_file_and_loses_one(dirty_app: FastAPI) -> None:
    """--dirty: a 12 MiB scan streams whole (its size as announced, its hash that of its bytes) and a
    referenced receipt answers 404; both are listed on their actuals."""
    shelf = dirty_app.state.emulator.service.workspace("source").files
    big, lost = shelf.dirty["file_oversized"], shelf.dirty["file_bytes_missing"]
    transport = HeldTransport(dirty_app)
    headers = {"X-API-Key": LEGACY_KEY}
    async with httpx.AsyncClient(transport=transport, base_url="http://e/api/v1", headers=headers) as client:
        listed = {f["id"]: f for a in await actuals_with_files(client) for f in a["attachments"]}
        assert listed[big]["size"] == OVERSIZED_BYTES > MAX_LEGACY_FILE_BYTES
        assert lost in listed
        async with client.stream("GET", f"/files/{encoded(big)}/download") as answer:
            digest, count = hashlib.sha256(), 0
            async for chunk in answer.aiter_bytes():
                digest.update(chunk)
                count += len(chunk)
        assert count == OVERSIZED_BYTES
        assert digest.hexdigest() == shelf.files[big].blob.sha256()
        missing = await client.get(f"/files/{encoded(lost)}/download")
        assert (missing.status_code, missing.json()["code"]) == (404, "not_found")
