"""Files the bridge writes for the operator (plans, exports, reports, backups): private, and only its own.

What they hold (ids, amounts, names of the workspace's records) is as private as the state file, so each is
a new file of mode 0600, whatever the umask. The bridge never changes the mode of a file it did not create
and never writes through a path it did not expect:

* ``create_private`` makes a new file (``O_CREAT | O_EXCL | O_NOFOLLOW``): it fails on anything already
  there, a symlink included, so it can write nowhere but the new file;
* ``write_private`` is for a path the operator named (``plan --out``, ``crosswalk export --out``): a missing
  file is created; an existing regular file is replaced by a new one (written beside it, then renamed over
  it), so the result is 0600 even if the old one was not, and a reader never sees half of it; a symlink, a
  device node, a FIFO or a directory is refused, since replacing one would not be what the operator meant and
  writing through one could reach a file the bridge did not make.
"""

from __future__ import annotations

import os
import secrets
import stat
from pathlib import Path

from bridge.errors import ConfigError

PRIVATE = 0o600


def create_private(path: Path, data: bytes) -> None:
    """A new file holding ``data``, mode 0600, on disk before this returns (``FileExistsError`` if taken)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, PRIVATE)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.fsync(fd)
    finally:
        os.close(fd)


def not_regular(mode: int) -> str | None:
    """What a path of this ``st_mode`` is, in words, when it is not a regular file (None when it is)."""
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISLNK(mode):
        return "a symlink"
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    return "a device or special file"


def write_private(path: Path, data: bytes, *, option: str) -> None:
    """Write ``data`` to the file the operator named with ``option``, as a file of mode 0600 (see above).

    Raises ConfigError (exit 2) naming the option when the path is not a regular file or cannot be written.
    """
    try:
        kind = not_regular(path.lstat().st_mode)
    except FileNotFoundError:
        kind = None
    except OSError as exc:
        raise ConfigError(f"cannot write {option} {path}: {exc.strerror}") from exc
    if kind is not None:
        raise ConfigError(f"{option} {path} is {kind}; name a regular file (it is written as a new file, mode 0600)")
    temporary = path.with_name(f".{path.name}.{secrets.token_hex(6)}.tmp")
    try:
        create_private(temporary, data)
    except OSError as exc:
        temporary.unlink(missing_ok=True)  # a full disk leaves it half written; nobody else knows its name
        raise ConfigError(f"cannot write {option} {path}: {exc.strerror}") from exc
    try:
        os.replace(temporary, path)
    except OSError as exc:
        temporary.unlink()
        raise ConfigError(f"cannot write {option} {path}: {exc.strerror}") from exc


def fsync_dir(path: Path) -> None:
    """Make the directory's entries (new files, a renamed link) durable."""
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
