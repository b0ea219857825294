"""The sync log: an append-only JSON-lines file whose lines are hash-chained, so an edit anywhere shows.

Each line is RFC 8785 canonical JSON of ``{"seq", "prev", "record", "digest"}``: ``seq`` counts from 1, ``prev``
is the SHA-256 (hex) of the previous line's bytes (its newline excluded), ``GENESIS`` for the first, and
``digest`` the SHA-256 of the canonical ``{"seq", "prev", "record"}``. ``prev`` alone would name the line after
an edited one (and miss an edit of the last line); the line's own digest names the edited line itself. Integers
in the caller's record are written as strings (``bridge/canonical.py``): minor units can pass 2^53.

Crash safety: a line goes out in one ``write`` followed by ``fsync`` (the directory is fsynced when the file is
created, so the file's name survives a power cut too). A process killed mid-write leaves a last line without
its newline; the next ``SyncLog.open`` truncates it away with a warning and chains onto the last whole line.
One writer at a time: the writer holds an exclusive ``flock`` on the file for as long as it is open, as the
state store's writer lock does (``state/writer_lock.py``); a second writer is refused, naming the file.

``python -m bridge.sync.log verify PATH`` prints the first broken seq (or ``ok``) and the head hash.
"""

# Error names state the condition, as in bridge/errors.py; the tree, not a suffix, says they are errors.
# ruff: noqa: N818

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Self

import rfc8785
import structlog

from bridge.canonical import Json, canonical
from bridge.errors import UsageError
from bridge.files import fsync_dir

log = structlog.get_logger("bridge.sync")

GENESIS = "0" * 64
"""``prev`` of the first line: no line hashes to it."""

_NEWLINE = b"\n"


class SyncLogInUse(UsageError):
    """Another process holds the sync log open for writing."""


class SyncLogCorrupt(UsageError):
    """A whole line of the sync log does not chain onto the one before it: refuse to append after it."""


def line_hash(line: bytes) -> str:
    """The SHA-256 (hex) a following line's ``prev`` holds: of the line's bytes without its newline."""
    return hashlib.sha256(line.rstrip(_NEWLINE)).hexdigest()


@dataclass(frozen=True, slots=True)
class ChainCheck:
    """What ``verify_chain`` found: the first seq that does not chain (None when all do) and the head hash."""

    broken: int | None
    head: str
    lines: int


def verify_chain(path: Path) -> ChainCheck:
    """Walk the whole lines of ``path``: each must parse, carry the next ``seq`` and the previous line's hash.

    ``broken`` is the seq the line should have had (its 1-based position), so a line whose own ``seq`` was edited
    is named too; ``head`` is the hash of the last whole line before any break (``GENESIS`` for an empty log).
    A torn last line (no newline) is not counted: ``SyncLog.open`` removes it.
    """
    prev = GENESIS
    whole = _whole_lines(path.read_bytes())
    for position, line in enumerate(whole, start=1):
        if _parse(line, position, prev) is None:
            return ChainCheck(broken=position, head=prev, lines=len(whole))
        prev = line_hash(line)
    return ChainCheck(broken=None, head=prev, lines=len(whole))


def _whole_lines(data: bytes) -> list[bytes]:
    # The bytes after the last newline are a torn line (or nothing): never part of the chain.
    return data.split(_NEWLINE)[:-1]


def _parse(line: bytes, seq: int, prev: str) -> dict[str, Json] | None:
    """The line's object if it is canonical and chains at ``seq`` onto ``prev``, else None."""
    try:
        parsed = json.loads(line)
    except ValueError:
        return None
    if not isinstance(parsed, dict) or parsed.get("seq") != str(seq) or parsed.get("prev") != prev:
        return None
    body = {key: value for key, value in parsed.items() if key != "digest"}
    if parsed.get("digest") != hashlib.sha256(rfc8785.dumps(body)).hexdigest():
        return None
    # Canonical bytes only: a reformatted line would hash differently from what the writer chained on.
    return parsed if rfc8785.dumps(parsed) == line else None


class SyncLog:
    """The open sync log of one writer: ``append`` chains a record on; ``close`` releases the lock."""

    def __init__(self, path: Path, fd: int, seq: int, head: str, last: Json = None) -> None:
        self.path = path
        self._fd = fd
        self.seq = seq
        self.head = head
        # The record of the last line (None in an empty log): what the next cycle carries on from.
        self.last = last

    @classmethod
    def open(cls, path: Path) -> Self:
        """Open (creating) the log at ``path`` for appending, truncating a torn last line away with a warning.

        Raises SyncLogInUse when another writer holds it, SyncLogCorrupt when a whole line does not chain.
        """
        created = not path.exists()
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        except OSError as exc:
            raise UsageError(f"cannot open the sync log {path}: {exc.strerror}") from exc
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise SyncLogInUse(
                f"the sync log {path} is open in another writer: one sync at a time appends to it; wait for it "
                "to finish or stop it, then run again"
            ) from None
        try:
            if created:
                fsync_dir(path.parent)
            seq, head, last = _recover(path, fd)
        except BaseException:
            os.close(fd)
            raise
        return cls(path, fd, seq, head, last)

    def append(self, record: Json) -> bytes:
        """Chain ``record`` on as the next line (one write, then fsync) and return the line's bytes."""
        seq = self.seq + 1
        body: dict[str, Json] = {"seq": seq, "prev": self.head, "record": record}
        line = canonical({**body, "digest": hashlib.sha256(canonical(body)).hexdigest()})
        data = line + _NEWLINE
        written = os.write(self._fd, data)
        if written != len(data):
            # A short write on a regular file means the disk is full: cut the partial line off at once.
            os.ftruncate(self._fd, os.lseek(self._fd, 0, os.SEEK_END) - written)
            raise UsageError(f"the sync log {self.path} could not take a whole line (disk full?): free space")
        os.fsync(self._fd)
        self.seq, self.head, self.last = seq, line_hash(line), record
        return line

    def close(self) -> None:
        """Release the writer's lock (closing the descriptor drops the flock)."""
        os.close(self._fd)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


def _recover(path: Path, fd: int) -> tuple[int, str, Json]:
    """The last seq, head hash and record of the log held open at ``fd``, after cutting a torn last line away."""
    size = os.fstat(fd).st_size
    data = os.pread(fd, size, 0)
    whole_end = data.rfind(_NEWLINE) + 1
    if whole_end < len(data):
        log.warning("bridge.sync.log.torn_tail_removed", path=str(path), bytes=len(data) - whole_end, at=whole_end)
        os.ftruncate(fd, whole_end)
        os.fsync(fd)
    check = verify_chain(path)
    if check.broken is not None:
        raise SyncLogCorrupt(
            f"the sync log {path} is broken at line {check.broken}: it does not chain onto the line before. "
            "Keep the file as evidence, move it aside and start a new log"
        )
    lines = data[:whole_end].splitlines()
    last: Json = json.loads(lines[-1]).get("record") if lines else None
    return check.lines, check.head, last


if __name__ == "__main__" and sys.argv[1:2] == ["verify"]:
    found = verify_chain(Path(sys.argv[2]))
    print(f"{'ok' if found.broken is None else f'broken at seq {found.broken}'} head {found.head}")
    sys.exit(0 if found.broken is None else 1)
