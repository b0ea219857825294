"""Publishing the report set atomically: a reader sees the previous set or the new one whole, never a mix.

Three files renamed into place one by one can still be seen mixed between two renames (a new
``reconciliation.json`` beside an old ``.md``), so the unit that switches is the whole set. Under the report
directory ``D``::

    D/.reconciliation/set-<time>-<random>/reconciliation.{json,md,html}   one directory per complete set
    D/.reconciliation/current -> set-<time>-<random>                        the set shown
    D/reconciliation.json -> .reconciliation/current/reconciliation.json   (and .md, .html): fixed links

A new set is written into a fresh set directory (each file created 0600 with ``O_EXCL``, written and
fsync'd, then the directory fsync'd); only then is a new symlink renamed over ``current``. rename(2) is atomic,
so every path through ``current`` switches in one step; the fixed links never change once made. Until that
rename ``current`` names the previous, complete set: a kill or a full disk before it leaves the previous set
exactly as it was (a half-written set directory is named by nothing; it is removed at once on an error, or by
the next write after a kill). Afterwards the set before the previous one is removed; the previous one is kept
so a reader that resolved ``current`` a moment ago can still finish reading it.

Why symlinks and not Linux ``renameat2(RENAME_EXCHANGE)`` of two directories: exchanging would need the report
directory itself to be the set, and the directory ``--report-dir`` names may hold other files (an operator's
``reports/`` folder) that an exchange would carry off; a symlink switch also works on every POSIX system.
It needs a filesystem that holds symlinks (every local POSIX one does).

A reader that wants one set across several opens resolves ``current`` once (``readlink``) and reads inside
that set directory. A report directory written by an older bridge (plain files) is adopted first: its files
are hard-linked into a set of their own and replaced one by one by links showing the very same bytes, so no
mix is visible then either. One ``bridge verify`` at a time per report directory (the default directory is
per run, so this holds unless two are started by hand on the same ``--report-dir``).

An observer, when one is given (the crash tests' kill switch, like the engine's write points), is told each
time the writer reaches a point: ``written`` (after each file of the new set), ``switch`` (the set complete,
``current`` not yet renamed) or ``switched`` (renamed, the links and the pruning not yet done).
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Protocol, runtime_checkable

from bridge.errors import ResumableStop
from bridge.files import create_private
from bridge.files import fsync_dir as _fsync_dir

SETS = ".reconciliation"
CURRENT = "current"
POINTS = ("written", "switch", "switched")
DIR_MODE = 0o700


class ReportsNotWritten(ResumableStop):
    """The report set could not be written (full disk, permissions): the previous set is unchanged."""

    remedy = "make room (or fix the permissions) under the report directory, then run the same command again"


@runtime_checkable
class PublishObserver(Protocol):
    """Told each time the writer reaches ``point`` (one of ``POINTS``)."""

    def reached(self, point: str) -> None: ...


def publish(directory: Path, files: Mapping[str, str], observer: PublishObserver | None = None) -> list[Path]:
    """Write ``files`` (name -> text) as one set under ``directory`` and show it atomically; their paths.

    Raises ``ReportsNotWritten`` (the previous set still whole) when the filesystem refuses a write.
    """

    def reach(point: str) -> None:
        if observer is not None:
            observer.reached(point)

    sets = directory / SETS
    try:
        directory.mkdir(mode=DIR_MODE, parents=True, exist_ok=True)
        sets.mkdir(mode=DIR_MODE, exist_ok=True)
        _adopt_plain_files(directory, sets, files)
        fresh = sets / f"set-{time.time_ns():020d}-{secrets.token_hex(4)}"
        fresh.mkdir(mode=DIR_MODE)
        try:
            for name, text in files.items():
                create_private(fresh / name, text.encode("utf-8"))
                reach("written")
            _fsync_dir(fresh)
            reach("switch")
            previous = _point_current(sets, fresh.name)
        except BaseException:
            shutil.rmtree(fresh, ignore_errors=True)
            raise
    except OSError as error:
        raise ReportsNotWritten(
            f"the reports could not be written under {directory} ({_reason(error)}); the reports already there, "
            "if any, are unchanged"
        ) from error
    reach("switched")
    try:
        _fsync_dir(sets)
        for name in files:
            _fixed_link(directory, name)
    except OSError as error:
        raise ReportsNotWritten(
            f"the new reports are in place under {directory} but could not be made durable ({_reason(error)})"
        ) from error
    _prune(sets, keep={CURRENT, fresh.name, previous or ""})
    return [directory / name for name in files]


def _replace_with_link(path: Path, target: str) -> None:
    """Make ``path`` a symlink to ``target`` in one step: a new link renamed over whatever is there."""
    temporary = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    os.symlink(target, temporary)
    try:
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def _point_current(sets: Path, set_name: str) -> str | None:
    """Switch ``current`` to ``set_name``; the set it named before (None the first time)."""
    link = sets / CURRENT
    previous = os.readlink(link) if link.is_symlink() else None
    _replace_with_link(link, set_name)
    return previous


def _fixed_link(directory: Path, name: str) -> None:
    """``directory/name`` -> ``.reconciliation/current/name``, made once and never changed after."""
    target = f"{SETS}/{CURRENT}/{name}"
    path = directory / name
    if path.is_symlink() and os.readlink(path) == target:
        return
    _replace_with_link(path, target)
    _fsync_dir(directory)


def _reason(error: OSError) -> str:
    return error.strerror or type(error).__name__


def _adopt_plain_files(directory: Path, sets: Path, files: Mapping[str, str]) -> None:
    """Reports an older bridge wrote in place become a set of their own, each name still showing its bytes."""
    plain = [name for name in files if (directory / name).is_file() and not (directory / name).is_symlink()]
    if not plain or (sets / CURRENT).is_symlink():
        return
    adopted = sets / f"set-{0:020d}-adopted"
    shutil.rmtree(adopted, ignore_errors=True)
    adopted.mkdir(mode=DIR_MODE)
    for name in plain:
        os.link(directory / name, adopted / name)
    _fsync_dir(adopted)
    _point_current(sets, adopted.name)
    for name in plain:
        _fixed_link(directory, name)
    _fsync_dir(directory)


def _prune(sets: Path, keep: set[str]) -> None:
    """Remove the sets nothing shows any more (and any a killed write left half done)."""
    for entry in sets.iterdir():
        if entry.name in keep:
            continue
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry, ignore_errors=True)
        else:  # a link a killed switch left behind
            with contextlib.suppress(OSError):
                entry.unlink()
