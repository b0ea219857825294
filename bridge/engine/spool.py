"""The files of a run's documents between their legacy download and their v1 upload, and what verify keeps of
them.

Each document (a legacy file for one record, ``mappings.documents``) has a spool file named by the digest of
its legacy id, 0600, in the spool directory (``Settings.spool``), and a manifest beside it: the file id, its
name, type, size and SHA-256 as downloaded. The bytes live only from the download to the upload's answer
(``held``): at most ``FILES_HELD`` at once, so the disk holds a few files whatever the number of documents.
The manifest stays: verify compares the bytes v1 serves with its hash, and never downloads legacy twice.

A resumed run replays an upload with the same key and bytes: if the spool file is gone, the file is downloaded
again and its hash must be the manifest's (``file.changed`` otherwise: the same key with other bytes would be
a 409 on v1, and the record changed at source is for a person to look at).
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

from bridge.clients.http import HttpSession
from bridge.clients.transfer import MAX_FILE_BYTES, FileRefused, Spooled, download, sha256_of
from mappings.documents import Attachment
from mappings.keys import digest

# Documents whose bytes are on disk at once (downloaded and waiting for, or in, their upload).
FILES_HELD = 8


@dataclass(frozen=True, slots=True)
class Manifest:
    """What the spool keeps of one document's file: enough to upload it again and to verify it."""

    file_id: str
    name: str
    mime_type: str
    size: int
    sha256: str = ""

    @classmethod
    def of(cls, attachment: Attachment) -> Manifest:
        return cls(attachment.file_id, attachment.name, attachment.mime_type, attachment.size)


class Spool:
    """The spool directory of one run: downloads into it, the manifests, the uploads' bytes."""

    def __init__(self, directory: Path, legacy: HttpSession | None, *, cap: int = MAX_FILE_BYTES) -> None:
        self.directory = directory
        self.legacy = legacy
        self.cap = cap
        self._expected: dict[str, Manifest] = {}
        self._room = asyncio.Semaphore(FILES_HELD)

    def _path(self, legacy_id: str, suffix: str) -> Path:
        return self.directory / f"{digest(legacy_id)[:40]}{suffix}"

    def expect(self, attachment: Attachment, *, keep: bool) -> None:
        """Remember what the record says of a document's file, for its upload; ``keep`` (a live run) writes it
        down before the upload is journalled, so a replay after a crash knows the file even if it was never
        downloaded."""
        self._expected[attachment.legacy_id] = Manifest.of(attachment)
        if keep and self.manifest(attachment.legacy_id) is None:
            self.directory.mkdir(mode=0o700, parents=True, exist_ok=True)
            self._keep(attachment.legacy_id, Manifest.of(attachment))

    def manifest(self, legacy_id: str) -> Manifest | None:
        """The manifest of a document downloaded by this run or an earlier one (None if never downloaded)."""
        try:
            values = json.loads(self._path(legacy_id, ".json").read_text("utf-8"))
        except FileNotFoundError:
            return None
        return Manifest(**values)

    def _keep(self, legacy_id: str, manifest: Manifest) -> None:
        path = self._path(legacy_id, ".json")
        partial = path.with_suffix(".json.part")
        fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump(
                {
                    "file_id": manifest.file_id,
                    "name": manifest.name,
                    "mime_type": manifest.mime_type,
                    "size": manifest.size,
                    "sha256": manifest.sha256,
                },
                out,
            )
        partial.replace(path)

    @asynccontextmanager
    async def held(self, legacy_id: str) -> AsyncIterator[tuple[Spooled, Manifest]]:
        """The document's file on disk (downloaded unless a good copy is there) for the block; the bytes are
        removed after it, the manifest kept. FileRefused when the file cannot be carried."""
        known = self.manifest(legacy_id)
        expected = self._expected.get(legacy_id) or known
        known = known if known is not None and known.sha256 else None  # written before any download
        if expected is None:
            raise FileRefused(
                f"document {legacy_id!r} was journalled but its spool manifest is gone: restore the spool "
                "directory, or quarantine the document by hand",
                code="file.spool_lost",
            )
        path = self._path(legacy_id, ".bin")
        async with self._room:
            self.directory.mkdir(mode=0o700, parents=True, exist_ok=True)
            try:
                spooled = await self._spooled(legacy_id, path, expected, known)
                yield (
                    spooled,
                    Manifest(expected.file_id, expected.name, expected.mime_type, spooled.size, spooled.sha256),
                )
            finally:
                path.unlink(missing_ok=True)

    async def _spooled(self, legacy_id: str, path: Path, expected: Manifest, known: Manifest | None) -> Spooled:
        if known is not None and path.exists() and sha256_of(path) == known.sha256:
            return Spooled(path, known.sha256, known.size)
        if self.legacy is None:
            raise FileRefused(f"document {legacy_id!r} has no legacy session to download with", code="file.unread")
        spooled = await download(self.legacy, expected.file_id, path, cap=self.cap, declared=expected.size)
        if known is not None and known.sha256 != spooled.sha256:
            raise FileRefused(
                f"legacy file {expected.file_id!r} changed since its document was first uploaded (SHA-256 "
                f"{known.sha256[:12]}... then, {spooled.sha256[:12]}... now): check which is right, then carry it "
                "by hand",
                code="file.changed",
                size=spooled.size,
            )
        self._keep(
            legacy_id, Manifest(expected.file_id, expected.name, expected.mime_type, spooled.size, spooled.sha256)
        )
        return spooled
