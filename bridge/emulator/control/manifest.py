"""The fleet manifest ``bridge emulate --write-manifest FILE`` writes: where each tenant is and how to reach it.

One TOML ``[[workspace]]`` table per tenant (``name``, ``legacy_url``, ``legacy_key_file``, ``v1_url``,
``token_file``), the two secrets in files of their own beside the manifest (``ws-01.legacy-key``,
``ws-01.token``), named relative to its folder so the folder can be moved whole. Every file is written as a
new file of mode 0600 (``bridge.files.write_private``): an existing regular file is replaced, a symlink or
anything else is refused. The secrets are written first and the manifest last, by a rename, so whoever sees
the manifest finds every file it names and never a half-written manifest. A stopped emulator removes them
(``remove_manifest``): a manifest naming a port nobody listens on would send a fleet nowhere.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from bridge.emulator.control.tenants import Tenant
from bridge.files import write_private

OPTION = "--write-manifest"
KEY_SUFFIX = ".legacy-key"
TOKEN_SUFFIX = ".token"  # noqa: S105 - a file name's ending, not a secret


def _string(text: str) -> str:
    # A JSON string is a TOML basic string: the same quotes and the same escapes (json.dumps never writes \/).
    return json.dumps(text, ensure_ascii=False)


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

    Raises ``bridge.errors.ConfigError`` (exit 2) naming ``--write-manifest`` and the file when one cannot be
    written or is not a regular file (a symlink included).
    """
    folder = path.parent
    for tenant in tenants:
        key_file, token_file = secret_files(tenant)
        write_private(folder / key_file, tenant.credentials.legacy_key.encode() + b"\n", option=OPTION)
        write_private(folder / token_file, tenant.credentials.token.encode() + b"\n", option=OPTION)
    write_private(path, manifest_text(tenants, base_url).encode(), option=OPTION)


def remove_manifest(path: Path, tenants: Sequence[Tenant]) -> None:
    """Remove the manifest, then the secret files ``write_manifest`` wrote beside it (those still there)."""
    path.unlink(missing_ok=True)
    for tenant in tenants:
        for name in secret_files(tenant):
            path.parent.joinpath(name).unlink(missing_ok=True)
