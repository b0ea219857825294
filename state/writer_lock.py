"""One writer per state file: a second process opening a file that a live process is writing is refused.

SQLite alone would let two runs interleave (each transaction waits for the other), and the idempotency keys
would keep the target safe, but two runs sharing one journal cannot be followed or trusted by the person
running them. So every writer holds an exclusive ``flock`` on a sidecar file, ``<state file>-lock``, for as
long as the store is open. The kernel releases it when the process ends, however it ends: a killed run never
leaves a stale lock behind, and the next run starts without anyone deleting anything.

The sidecar is found by name, so a second name for the same file (a hard link, a bind mount) would find
another sidecar; the writer therefore also holds an ``flock`` on the database file itself, which follows the
file, not the name. That descriptor is opened once and closed only after the database is (``StateStore.close``):
closing any descriptor of the database would drop the POSIX locks SQLite holds on it in this process, and an
``flock`` is not one of them.
"""

from __future__ import annotations

import fcntl
import os
import socket
from dataclasses import dataclass
from pathlib import Path

from state.errors import StateInUseError, StateLocationError
from state.models import utc_now

LOCK_SUFFIX = "-lock"


@dataclass(slots=True)
class WriterLock:
    """The held lock of one open writer; ``release`` (or the process's end) frees it."""

    path: Path
    _fd: int | None
    # The flock on the database file itself: held for as long as the sidecar's (see the module's text).
    _file_fd: int | None = None

    @classmethod
    def acquire(cls, database: Path) -> WriterLock:
        """Take the writer lock of ``database`` or raise StateInUseError naming the process that holds it."""
        path = database.with_name(database.name + LOCK_SUFFIX)
        try:
            # O_NOFOLLOW: the lock's pid line truncates the file, so never through a link someone planted.
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        except OSError as exc:
            raise StateLocationError(
                f"cannot open the writer lock {path} beside the state file ({exc.strerror}); it must be a regular "
                "file the bridge may write (remove it if it is a symlink: the next run makes a new one)"
            ) from exc
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 300, 0).decode("utf-8", "replace").strip() or "another process"
            os.close(fd)
            raise StateInUseError(
                f"the state file {database} is being written by {holder}. Two runs on one state file would "
                "interleave one journal: wait for that run to finish (`bridge status` shows its progress) or "
                "stop it, then run again; a stopped run resumes where it stopped"
            ) from None
        try:
            file_fd = _hold_file(database)
        except BaseException:
            os.close(fd)
            raise
        os.ftruncate(fd, 0)
        started = utc_now().strftime("%Y-%m-%dT%H:%M:%SZ")
        os.pwrite(fd, f"pid {os.getpid()} on {socket.gethostname()} (since {started})\n".encode(), 0)
        return cls(path, fd, file_fd)

    def release(self) -> None:
        """Free the lock (closing the descriptor releases the flock); the sidecar file stays for the next run."""
        for fd in (self._file_fd, self._fd):
            if fd is not None:
                os.close(fd)
        self._fd = self._file_fd = None


def _hold_file(database: Path) -> int:
    """An flock on the database file itself, or StateInUseError: another writer holds the same file under
    another name."""
    try:
        fd = os.open(database, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError as exc:
        raise StateLocationError(f"cannot open the state file {database} ({exc.strerror})") from exc
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise StateInUseError(
            f"the state file {database} is being written by another run that reached it under another name (a "
            "hard link or another mount of the same file). Two runs on one state file would interleave one "
            "journal: wait for that run to finish or stop it, then run again"
        ) from None
    return fd
