"""The byte-transfer seam: a legacy download spooled 0600 with its hash and size, refused past the cap with
nothing left behind, and a v1 upload whose retry sends the same bytes under a boundary derived from its key."""

from __future__ import annotations

import hashlib
import json
import stat
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
import respx

from bridge.clients.http import RunControls
from bridge.clients.legacy import open_legacy
from bridge.clients.transfer import FileRefused, Spooled, boundary_of, download
from bridge.clients.v1 import open_v1
from bridge.config import Secret

LEGACY = "https://legacy.test/api/v1"
V1 = "https://svc.test/v1"
KEY = Secret("legacy_key_0123456789abcdef")
TOKEN = Secret("tok_wire_0123456789abcdefghij")
IDEMPOTENCY_KEY = "bridge-documents-0123456789abcdef"
PDF = b"%PDF-1.4\n" + bytes(range(256)) * 64


class Dribble(httpx.AsyncByteStream):
    """An answer whose bytes come in chunks, with no Content-Length: the cap must count them as they arrive."""

    def __init__(self, chunk: bytes, times: int) -> None:
        self.chunk = chunk
        self.times = times

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for _ in range(self.times):
            yield self.chunk


@pytest.mark.anyio
async def test_a_download_is_spooled_0600_with_its_sha256_and_size(tmp_path: Path, controls: RunControls) -> None:
    """The file's id is percent-encoded into the path (A78: its '/' as %2F); the bytes land in a file only its
    owner can read, with the SHA-256 and size computed on the way."""
    async with respx.mock(assert_all_called=True, using="bridge") as router:
        route = router.get(f"{LEGACY}/files/files%2F2024%2Fr%C3%A9%20cu.pdf/download").mock(
            return_value=httpx.Response(200, content=PDF, headers={"Content-Type": "application/octet-stream"})
        )
        async with open_legacy(LEGACY, KEY, controls) as legacy:
            spooled = await download(legacy.session, "files/2024/ré cu.pdf", tmp_path / "one.bin", declared=len(PDF))
    assert route.called
    assert spooled == Spooled(tmp_path / "one.bin", hashlib.sha256(PDF).hexdigest(), len(PDF))
    assert (tmp_path / "one.bin").read_bytes() == PDF
    assert stat.S_IMODE((tmp_path / "one.bin").stat().st_mode) == 0o600


@pytest.mark.anyio
async def test_a_download_past_the_cap_stops_and_leaves_nothing(tmp_path: Path, controls: RunControls) -> None:
    """A file that grows past max_file_bytes as it streams (its record claimed less) is refused file.too_large
    with the size it reached, and no partial file stays in the spool."""
    async with respx.mock(using="bridge") as router:
        router.get(f"{LEGACY}/files/big/download").mock(
            return_value=httpx.Response(200, stream=Dribble(b"x" * 4096, 64))
        )
        async with open_legacy(LEGACY, KEY, controls) as legacy:
            with pytest.raises(FileRefused) as refused:
                await download(legacy.session, "big", tmp_path / "big.bin", cap=10_000, declared=2_000)
    assert refused.value.code == "file.too_large"
    assert refused.value.size is not None
    assert 10_000 < refused.value.size <= 10_000 + 4096
    assert list(tmp_path.iterdir()) == []


@dataclass(frozen=True)
class Refusal:
    status: int
    content: bytes
    declared: int
    code: str


@pytest.mark.anyio
@pytest.mark.parametrize(
    "case",
    [Refusal(404, b'{"error": "not found"}', 10, "file.not_found"), Refusal(200, b"12345", 6, "file.size_mismatch")],
    ids=["download 404", "size not as declared"],
)
async def test_a_file_that_cannot_be_carried_is_refused_with_its_code(
    tmp_path: Path, controls: RunControls, case: Refusal
) -> None:
    """A download the legacy surface answers 404, or whose bytes are not the size its record declares, is a
    record refusal with its code (the document is quarantined, the run goes on); nothing is left behind."""
    async with respx.mock(using="bridge") as router:
        router.get(f"{LEGACY}/files/f1/download").mock(return_value=httpx.Response(case.status, content=case.content))
        async with open_legacy(LEGACY, KEY, controls) as legacy:
            with pytest.raises(FileRefused) as refused:
                await download(legacy.session, "f1", tmp_path / "f1.bin", declared=case.declared)
    assert refused.value.code == case.code
    assert list(tmp_path.iterdir()) == []


def _parts(body: bytes, boundary: str) -> list[tuple[bytes, bytes]]:
    """The (headers, content) of each part of a multipart body."""
    pieces = body.split(f"--{boundary}".encode())
    assert pieces[0] == b""
    assert pieces[-1] == b"--\r\n"
    found = []
    for piece in pieces[1:-1]:
        head, _, content = piece.removeprefix(b"\r\n").partition(b"\r\n\r\n")
        found.append((head, content.removesuffix(b"\r\n")))
    return found


@pytest.mark.anyio
async def test_a_retried_upload_sends_the_same_bytes_under_a_boundary_from_its_key(
    tmp_path: Path, controls: RunControls
) -> None:
    """documents_upload is multipart/form-data with the file part then the metadata part (JSON text,
    text/plain); a retry after a 503 sends byte for byte what the first try sent, under the same key, so v1's
    fingerprint (A76) sees one request."""
    spool = tmp_path / "doc.bin"
    spool.write_bytes(PDF)
    spooled = Spooled(spool, hashlib.sha256(PDF).hexdigest(), len(PDF))
    answer = {"id": "doc_1", "name": 'rec"eipt.pdf', "size": len(PDF)}
    async with respx.mock(assert_all_called=True, using="bridge") as router:
        route = router.post(f"{V1}/documents").mock(
            side_effect=[httpx.Response(503, json={"code": "unavailable"}), httpx.Response(201, json=answer)]
        )
        async with open_v1(V1, TOKEN, controls) as v1:
            created = await v1.send_upload(
                "documents_upload", {"name": 'rec"eipt.pdf'}, spooled, "application/pdf", IDEMPOTENCY_KEY
            )
    assert created == answer
    first, second = (call.request for call in route.calls)
    sent = [await request.aread() for request in (first, second)]
    assert sent[0] == sent[1]
    boundary = boundary_of(IDEMPOTENCY_KEY)
    for request in (first, second):
        assert request.headers["Content-Type"] == f"multipart/form-data; boundary={boundary}"
        assert request.headers["Idempotency-Key"] == IDEMPOTENCY_KEY
        assert request.headers["Content-Length"] == str(len(sent[0]))
    (file_head, file_bytes), (meta_head, metadata) = _parts(sent[0], boundary)
    assert file_head == (
        b'Content-Disposition: form-data; name="file"; filename="rec%22eipt.pdf"\r\nContent-Type: application/pdf'
    )
    assert file_bytes == PDF
    assert meta_head == b'Content-Disposition: form-data; name="metadata"\r\nContent-Type: text/plain'
    assert json.loads(metadata) == {"name": 'rec"eipt.pdf'}
