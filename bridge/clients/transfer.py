"""The byte-transfer seam: a legacy file streamed into a spool file, and a v1 upload streamed out of it.

A legacy download (``GET /files/{fileId}/download``, the id percent-encoded: A78) is written as it arrives
into a 0600 file of the spool directory while its SHA-256 and size are computed; past ``max_file_bytes`` the
download stops, the partial file is removed and the file is refused with its size (``FileRefused``): nothing of
it is ever uploaded. The size is compared with the size the legacy record declared.

A v1 upload (``documents_upload``) is ``multipart/form-data`` with two parts, ``file`` and ``metadata`` (JSON
text, ``text/plain``; research A.0). Its boundary is derived from the Idempotency-Key, so a retry under the
same key sends the same bytes (A76), and the body is read from the spool file as it is sent: memory holds a
chunk, whatever the file's size.
"""

from __future__ import annotations

import hashlib
import os
import urllib.parse
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

from bridge.clients.compose import Streamed, json_bytes
from bridge.clients.http import Call, HttpSession
from bridge.errors import RecordError, SourceUnreadable

CHUNK = 256 * 1024
# Settings.max_file_bytes's default (see there).
MAX_FILE_BYTES = 11 * 1024 * 1024


class FileRefused(RecordError):  # noqa: N818 (named for what happened, as bridge.errors names its classes)
    """A legacy file the bridge will not carry (no download, too large, not the size its record declared):
    its document is quarantined with the code, and the other files go on."""

    def __init__(self, message: str, *, code: str, size: int | None = None) -> None:
        super().__init__(message, code=code)
        self.size = size


@dataclass(frozen=True, slots=True)
class Spooled:
    """A file as it was downloaded: where its bytes are, their SHA-256 (hex) and their size."""

    path: Path
    sha256: str
    size: int


class _SpoolSink:
    """Writes a download into its 0600 spool file, hashing and counting, and refuses it past the cap."""

    def __init__(self, path: Path, cap: int, what: str) -> None:
        self.path = path
        self.cap = cap
        self.what = what
        self.size = 0
        self.hash = hashlib.sha256()
        self._fd: int | None = None

    def start(self) -> None:
        self.close()
        self.size = 0
        self.hash = hashlib.sha256()
        # O_EXCL after an unlink: a file another user made at this path is never written through.
        self.path.unlink(missing_ok=True)
        self._fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)

    def write(self, chunk: bytes) -> None:
        assert self._fd is not None  # start() opened it
        self.size += len(chunk)
        if self.size > self.cap:
            self.discard()
            raise FileRefused(
                f"{self.what} is larger than max_file_bytes ({self.cap} bytes; the download stopped at "
                f"{self.size}): it was not kept and will not be uploaded; raise max_file_bytes if v1 should take "
                "it, or carry it by hand",
                code="file.too_large",
                size=self.size,
            )
        self.hash.update(chunk)
        os.write(self._fd, chunk)

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def discard(self) -> None:
        self.close()
        self.path.unlink(missing_ok=True)


def file_path(file_id: str) -> str:
    """The download path of a legacy file id, every reserved character percent-encoded (``/`` as %2F, A78)."""
    return f"/files/{urllib.parse.quote(file_id, safe='')}/download"


async def download(
    session: HttpSession, file_id: str, into: Path, *, cap: int = MAX_FILE_BYTES, declared: int | None = None
) -> Spooled:
    """Stream legacy file ``file_id`` into ``into`` (0600), hashing it; FileRefused when it cannot be carried."""
    what = f"legacy file {file_id!r}"
    if declared is not None and declared > cap:
        raise FileRefused(
            f"{what} declares {declared} bytes, more than max_file_bytes ({cap}): not downloaded; raise "
            "max_file_bytes if v1 should take it, or carry it by hand",
            code="file.too_large",
            size=declared,
        )
    sink = _SpoolSink(into, cap, what)
    try:
        await session.send(Call("GET", file_path(file_id), sink=sink))
    except SourceUnreadable as exc:
        sink.discard()
        if exc.status != 404:  # the legacy surface failing is the run's to stop for, not this file's
            raise
        raise FileRefused(
            f"{what} ({declared if declared is not None else 'unknown'} bytes declared) is listed on its record "
            "but its download answered 404: restore it on the legacy side or attach it on v1 by hand",
            code="file.not_found",
            size=declared,
        ) from exc
    except BaseException:
        sink.discard()
        raise
    sink.close()
    if declared is not None and sink.size != declared:
        into.unlink(missing_ok=True)
        raise FileRefused(
            f"{what} downloaded as {sink.size} bytes but its record declares {declared}: the file changed or "
            "is damaged on the legacy side; check it there and run again",
            code="file.size_mismatch",
            size=sink.size,
        )
    return Spooled(into, sink.hash.hexdigest(), sink.size)


class _HashSink:
    """Hashes and counts a body as it arrives, keeping none of it."""

    def __init__(self) -> None:
        self.start()

    def start(self) -> None:
        self.size = 0
        self.hash = hashlib.sha256()

    def write(self, chunk: bytes) -> None:
        self.size += len(chunk)
        self.hash.update(chunk)


async def digest(session: HttpSession, path: str) -> tuple[str, int]:
    """The SHA-256 (hex) and size of the body ``GET path`` answers, streamed (memory flat whatever its size)."""
    sink = _HashSink()
    await session.send(Call("GET", path, sink=sink))
    return sink.hash.hexdigest(), sink.size


def boundary_of(key: str) -> str:
    """The multipart boundary of the upload sent under Idempotency-Key ``key``: the same on every retry."""
    return "bridge-" + hashlib.sha256(key.encode()).hexdigest()[:40]


def _quoted(text: str) -> str:
    """A form-data parameter value as WHATWG's multipart encoder writes it (``"``, CR and LF escaped)."""
    return text.replace("\\", "\\\\").replace('"', "%22").replace("\r", "%0D").replace("\n", "%0A")


def upload_body(spooled: Spooled, metadata: dict[str, object], name: str, mime_type: str, key: str) -> Streamed:
    """The multipart body of a document upload: ``file`` (the spool file's bytes) then ``metadata`` (JSON
    text), under the boundary derived from ``key``."""
    boundary = boundary_of(key)
    head = (
        f"--{boundary}\r\n"
        f'Content-Disposition: form-data; name="file"; filename="{_quoted(name)}"\r\n'
        f"Content-Type: {mime_type}\r\n\r\n"
    ).encode()
    tail = (
        (
            f'\r\n--{boundary}\r\nContent-Disposition: form-data; name="metadata"\r\nContent-Type: text/plain\r\n\r\n'
        ).encode()
        + json_bytes(metadata)
        + f"\r\n--{boundary}--\r\n".encode()
    )

    async def chunks() -> AsyncIterator[bytes]:
        yield head
        with spooled.path.open("rb") as source:
            while chunk := source.read(CHUNK):
                yield chunk
        yield tail

    return Streamed(f"multipart/form-data; boundary={boundary}", len(head) + spooled.size + len(tail), chunks)


def sha256_of(path: Path) -> str:
    """The SHA-256 (hex) of a file, read a chunk at a time."""
    digest = hashlib.sha256()
    with path.open("rb") as source:
        while chunk := source.read(CHUNK):
            digest.update(chunk)
    return digest.hexdigest()
