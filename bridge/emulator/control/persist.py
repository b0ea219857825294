"""``bridge emulate --state-dir DIR``: the emulator's key, token and data kept across restarts.

A rehearsal is stopped and started again (a laptop sleeps, a terminal closes); without this, every start made
a new key and token and a fresh seed, so the exports had to be copied again and a migration done before was
gone from v1. With it, the folder holds one snapshot (``emulator.snapshot``) of what the emulator serves: the
workspaces on both surfaces (every record a migration wrote on v1 included), the issued tokens, the stored
idempotent answers, the cursor secret and the v1-only rate packs. Counters, the fault plan and webhook
subscriptions are not kept: they describe one session.

The form is Python's pickle of those objects, written as a new file of mode 0600 and renamed over the last
one (``manifest.write_private``: fsynced, so a reader finds the old snapshot or the new one, never half of
one). It is written when the folder is new (so the credentials survive even a start killed at once),
``SAVE_AFTER_S`` seconds after a request that may have changed something (later changes in that window ride
along), and on a clean stop (SIGINT, SIGTERM). A killed emulator loses what changed since the last write: at
most ``SAVE_AFTER_S`` seconds of writes (A126); the bridge's own state knows what it sent, and a resumed run
finds the records it wrote since by their idempotency keys or creates them again.

Unpickling runs code named in the file, so only a folder of this user's, that nobody else may write, is
read: anything else is refused before it is opened. The snapshot also records the seeding options it was made
with; an option given again with another value is refused (exit 2) rather than silently ignored.
"""

from __future__ import annotations

import asyncio
import os
import pickle
import stat
import sys
from collections.abc import Callable
from dataclasses import dataclass, fields
from pathlib import Path
from typing import TypeVar

import click
from click.core import ParameterSource
from starlette.types import ASGIApp, Receive, Scope, Send

from bridge.emulator.control.manifest import write_private
from bridge.emulator.control.state import EmulatorState
from bridge.emulator.control.tenants import Credentials
from bridge.emulator.core.seed import Size
from bridge.emulator.core.store import Service
from bridge.emulator.v1.auth import Grant
from bridge.emulator.v1.cursors import CursorCodec
from bridge.emulator.v1.extras.packs import PackLibrary
from bridge.emulator.v1.idempotency import IdempotencyStore

OPTION = "--state-dir"
SNAPSHOT_NAME = "emulator.snapshot"
SAVE_AFTER_S = 5.0
FORMAT = 1
"""The snapshot's own version: a snapshot of another format is refused, never half read."""
READING_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


@dataclass(frozen=True, slots=True)
class Seeding:
    """The options that decide what a fresh emulator holds; a kept folder holds what they made."""

    seed: int
    size: Size
    dirty: bool
    hostile: bool
    target_library: bool


@dataclass(frozen=True, slots=True)
class Snapshot:
    """What one write of the folder holds."""

    format: int
    seeding: Seeding
    credentials: Credentials
    service: Service
    grants: dict[str, Grant]
    idempotency: IdempotencyStore
    cursor_secret: bytes
    packs: PackLibrary


def _checked_folder(folder: Path) -> Path:
    """``folder``, created mode 0700 if missing; refused unless it is a directory of this user's that no one
    else may write (a snapshot is unpickled: whoever can write it can run code as this user)."""
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = folder.lstat()
    except OSError as exc:
        raise click.UsageError(f"cannot use {OPTION} {folder}: {exc.strerror}") from None
    if not stat.S_ISDIR(info.st_mode):
        raise click.UsageError(f"{OPTION} {folder} is not a directory (a symlink is refused too): name a folder")
    if info.st_uid != os.getuid() or info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        raise click.UsageError(
            f"{OPTION} {folder} is not a folder only you may write (owner uid {info.st_uid}, mode "
            f"{stat.S_IMODE(info.st_mode):o}); the emulator loads code-bearing snapshots from it: "
            f"`chmod 700 {folder}`, or name a folder of your own"
        )
    return folder


def _load(path: Path) -> Snapshot | None:
    try:
        info = path.lstat()
    except FileNotFoundError:
        return None
    if not stat.S_ISREG(info.st_mode) or info.st_uid != os.getuid():
        raise click.UsageError(f"{OPTION}: {path} is not a regular file of yours; move it away to start afresh")
    try:
        loaded = pickle.loads(path.read_bytes())  # noqa: S301 - the folder and file are this user's alone (above)
    except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError) as exc:
        raise click.UsageError(
            f"{OPTION}: cannot read the snapshot {path} ({exc}); move it away to start from a fresh seed"
        ) from None
    if not isinstance(loaded, Snapshot) or loaded.format != FORMAT:
        raise click.UsageError(
            f"{OPTION}: {path} was written by another version of the emulator; move it away to start afresh"
        )
    return loaded


def refuse_changes(saved: Seeding, asked: Seeding, given: frozenset[str]) -> None:
    """A usage error naming each option given on the command line with another value than the kept data's."""
    changed = [
        f"--{f.name.replace('_', '-')} {getattr(asked, f.name)} (kept: {getattr(saved, f.name)})"
        for f in fields(Seeding)
        if f.name in given and getattr(asked, f.name) != getattr(saved, f.name)
    ]
    if changed:
        raise click.UsageError(
            f"{OPTION} holds an emulator seeded otherwise: {'; '.join(changed)}. Leave those options out to serve "
            "what it holds, or name another folder to start afresh"
        )


def refuse_other_credentials(saved: Credentials, legacy_key: str | None, token: str | None) -> None:
    """A chosen key or token must be the kept one: two keys for one kept workspace would be a new rehearsal."""
    for chosen, kept, what in ((legacy_key, saved.legacy_key, "legacy key"), (token, saved.token, "v1 token")):
        if chosen is not None and chosen != kept:
            raise click.UsageError(
                f"the {what} you chose is not the one {OPTION} keeps: leave it out to use the kept one, or name "
                "another folder to start afresh"
            )


F = TypeVar("F", bound=Callable[..., object])


def rehearsal_options(command: F) -> F:
    """``--env-file`` and ``--state-dir`` of ``bridge emulate``: a rehearsal that needs no copying."""
    command = click.option(
        "--state-dir",
        type=click.Path(path_type=Path, file_okay=False),
        help=f"Keep the key, token and data here across restarts (written within {SAVE_AFTER_S:g} s of a change "
        "and at stop; a killed emulator loses at most those seconds).",
    )(command)
    return click.option(
        "--env-file",
        type=click.Path(path_type=Path, dir_okay=False),
        help="Once listening, write the BRIDGE_* exports (URLs, key, token) here, mode 0600: `. FILE`, then run "
        "the bridge.",
    )(command)


def rehearsal_notes(keeper: Keeper | None, env_file: Path | None) -> tuple[str, ...]:
    """The banner's lines for ``--state-dir`` and ``--env-file``: where the data is kept, where the exports are."""
    notes: list[str] = []
    if keeper is not None:
        how = "restored from" if keeper.saved is not None else "new; kept in"
        notes.append(f"state    {how} {keeper.path} (written {SAVE_AFTER_S:g} s after changes and at stop)")
    if env_file is not None:
        notes.append(f"exports  {env_file} (mode 0600): `. {env_file}`, then run the bridge")
    return tuple(notes)


class Keeper:
    """The folder of one serving emulator: what it held at start, and the writes of what it holds now."""

    def __init__(self, folder: Path) -> None:
        self.folder = _checked_folder(folder)
        self.path = self.folder / SNAPSHOT_NAME
        self.saved = _load(self.path)
        self._state: EmulatorState | None = None
        self._seeding: Seeding | None = None
        self._pending: asyncio.TimerHandle | None = None

    def kept_or(
        self, wanted: Seeding, legacy_key: str | None, token: str | None
    ) -> tuple[Seeding, str | None, str | None]:
        """The seeding and credentials to serve: the kept ones if the folder holds a snapshot (refusing any option
        given with another value), else those ``wanted``."""
        if self.saved is None:
            return wanted, legacy_key, token
        context = click.get_current_context()
        given = frozenset(n for n in context.params if context.get_parameter_source(n) != ParameterSource.DEFAULT)
        refuse_changes(self.saved.seeding, wanted, given)
        kept = self.saved.credentials
        refuse_other_credentials(kept, legacy_key, token)
        return self.saved.seeding, kept.legacy_key, kept.token

    def attach(self, state: EmulatorState, seeding: Seeding) -> None:
        """Serve the kept data (if any) from ``state`` of an app made with its service, and write it now."""
        if self.saved is not None:
            # The app issued the kept token afresh; the kept grants are the same and any the control API added.
            state.tokens.grants.clear()
            state.tokens.grants.update(self.saved.grants)
            state.idempotency = self.saved.idempotency
            state.cursors = CursorCodec(self.saved.cursor_secret)
            state.packs = self.saved.packs
        self._state, self._seeding = state, seeding
        self.save()

    def save(self) -> None:
        """Write what the emulator holds now (a no-op before ``attach``)."""
        state, seeding = self._state, self._seeding
        if state is None or seeding is None:
            return
        snapshot = Snapshot(
            format=FORMAT,
            seeding=seeding,
            credentials=state.tenants[0].credentials,
            service=state.service,
            grants=state.tokens.grants,
            idempotency=state.idempotency,
            cursor_secret=state.cursors.secret,
            packs=state.packs,
        )
        write_private(self.path, pickle.dumps(snapshot, protocol=pickle.HIGHEST_PROTOCOL), OPTION)

    def changed(self) -> None:
        """A request may have changed something: write within ``SAVE_AFTER_S`` (one write for a burst)."""
        if self._pending is None:
            self._pending = asyncio.get_running_loop().call_later(SAVE_AFTER_S, self._flush)

    def _flush(self) -> None:
        # On the event loop, between two requests' steps: no handler changes the service while it is pickled.
        self._pending = None
        try:
            self.save()
        except click.ClickException as exc:  # a full disk must not stop the emulator serving: said, tried again
            print(f"emulator: {exc.format_message()}", file=sys.stderr)
            self.changed()

    def close(self) -> None:
        """The last write, at a clean stop (the event loop has ended: nothing changes any more)."""
        if self._pending is not None:
            self._pending.cancel()
            self._pending = None
        self.save()


class SaveAfterWrites:
    """ASGI middleware: after each request that is not a read, tell the keeper (whatever it answered: a
    failed bulk write may still have changed records before it failed)."""

    def __init__(self, app: ASGIApp, keeper: Keeper) -> None:
        self.app = app
        self.keeper = keeper

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await self.app(scope, receive, send)
        finally:
            if scope["type"] == "http" and scope["method"] not in READING_METHODS:
                self.keeper.changed()
