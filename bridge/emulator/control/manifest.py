"""The fleet manifest ``bridge emulate --write-manifest FILE`` writes: where each tenant is and how to reach it.

One TOML ``[[workspace]]`` table per tenant (``name``, ``legacy_url``, ``legacy_key_file``, ``v1_url``,
``token_file``), the two secrets in files of their own beside the manifest (``ws-01.legacy-key``,
``ws-01.token``), named relative to its folder so the folder can be moved whole. Every file is written as a
new file of mode 0600 (``write_private``): an existing regular file is replaced, a symlink or anything else is
refused. The emulator writes them itself: it shares no code with the bridge (``bridge.files`` does the same
for the bridge's own files). The secrets are written first and the manifest last, by a rename, so whoever sees
the manifest finds every file it names and never a half-written manifest. A stopped emulator removes them
(``remove_manifest``): a manifest naming a port nobody listens on would send a fleet nowhere.
"""

from __future__ import annotations

import json
import os
import secrets
import stat
from collections.abc import Sequence
from pathlib import Path

import click

from bridge.emulator.control.tenants import Tenant

OPTION = "--write-manifest"
KEY_SUFFIX = ".legacy-key"
TOKEN_SUFFIX = ".token"  # noqa: S105 - a file name's ending, not a secret


def _string(text: str) -> str:
    # A JSON string is a TOML basic string: the same quotes and the same escapes (json.dumps never writes \/).
    return json.dumps(text, ensure_ascii=False)


def _kind(mode: int) -> str:
    """What a path that is not a regular file is, in words."""
    if stat.S_ISLNK(mode):
        return "a symlink"
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    return "a device or special file"


def write_private(path: Path, data: bytes, option: str = OPTION) -> None:
    """Write ``data`` to ``path`` as a new file of mode 0600, whatever the umask: written beside it and renamed
    over it, so a reader never sees half of it. A symlink, a directory or any other file that is not a regular
    one is refused (a usage error, exit 2): replacing it would not be what was meant, and writing through a
    symlink could reach a file the emulator did not make."""
    try:
        mode: int | None = path.lstat().st_mode
    except FileNotFoundError:
        mode = None
    except OSError as exc:
        raise click.UsageError(f"cannot write {option} {path}: {exc.strerror}") from None
    if mode is not None and not stat.S_ISREG(mode):
        raise click.UsageError(
            f"{option} {path} is {_kind(mode)}; name a regular file (it is written as a new file, mode 0600)"
        )
    temporary = path.with_name(f".{path.name}.{secrets.token_hex(6)}.tmp")
    try:
        # O_EXCL and O_NOFOLLOW: the new file is the one written, never something already there.
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
        with os.fdopen(os.open(temporary, flags, 0o600), "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, path)
    except OSError as exc:
        temporary.unlink(missing_ok=True)  # a full disk leaves it half written; nobody else knows its name
        raise click.UsageError(f"cannot write {option} {path}: {exc.strerror}") from None


def secret_files(tenant: Tenant) -> tuple[str, str]:
    """The names of a tenant's legacy-key file and token file, relative to the manifest's folder."""
    return tenant.name + KEY_SUFFIX, tenant.name + TOKEN_SUFFIX


def manifest_text(tenants: Sequence[Tenant], base_url: str) -> str:
    """The manifest of ``tenants`` served at ``base_url`` (no secret in it, only the files that hold them)."""
    tables = []
    for tenant in tenants:
        key_file, token_file = secret_files(tenant)
        tables.append(
            "\n".join(
                [
                    "[[workspace]]",
                    f"name = {_string(tenant.name)}",
                    f"legacy_url = {_string(base_url + '/api/v1')}",
                    f"legacy_key_file = {_string(key_file)}",
                    f"v1_url = {_string(base_url + '/v1')}",
                    f"token_file = {_string(token_file)}",
                    f"# legacy workspace {tenant.source} (seed {tenant.seed}), v1 workspace {tenant.target}",
                ]
            )
        )
    return "\n\n".join(tables) + "\n"


def write_manifest(path: Path, tenants: Sequence[Tenant], base_url: str) -> None:
    """Write each tenant's key and token beside ``path``, then the manifest at ``path``, all mode 0600.

    Raises a usage error (exit 2) naming ``--write-manifest`` and the file when one cannot be written or is not
    a regular file (a symlink included).
    """
    folder = path.parent
    for tenant in tenants:
        key_file, token_file = secret_files(tenant)
        write_private(folder / key_file, tenant.credentials.legacy_key.encode() + b"\n")
        write_private(folder / token_file, tenant.credentials.token.encode() + b"\n")
    write_private(path, manifest_text(tenants, base_url).encode())


def remove_manifest(path: Path, tenants: Sequence[Tenant]) -> None:
    """Remove the manifest, then the secret files ``write_manifest`` wrote beside it (those still there)."""
    path.unlink(missing_ok=True)
    for tenant in tenants:
        for name in secret_files(tenant):
            path.parent.joinpath(name).unlink(missing_ok=True)


def fleet_only(manifest: Path | None, chosen: list[str], one_workspace: Path | None) -> None:
    """What ``--workspaces`` beyond 1 needs: a manifest to write the generated credentials beside, no chosen key
    or token (``chosen`` names where each came from: one secret cannot be N tenants'; the emulator's own test
    secrets are generated), and neither ``--env-file`` nor ``--state-dir`` (``one_workspace``), which keep one
    workspace's exports and data."""
    if one_workspace is not None:
        raise click.UsageError(
            f"{one_workspace} is for one workspace (--env-file, --state-dir): with --workspaces, use the manifest"
        )
    if manifest is None:
        raise click.UsageError(
            f"--workspaces beyond 1 needs {OPTION} FILE: each workspace's key and token are written beside it (they "
            "are not printed)"
        )
    if chosen:
        raise click.UsageError(
            f"{chosen[0]} chooses one workspace's secret, and --workspaces serves several: leave it out (each "
            f"workspace's key and token are generated and written beside {OPTION})"
        )
