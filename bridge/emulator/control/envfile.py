"""The file ``bridge emulate --env-file FILE`` writes: the ``BRIDGE_*`` exports that point the bridge at it.

A rehearsal then needs no copying: ``. FILE`` in another shell, and ``bridge plan`` finds the legacy and v1 URLs
of the port actually bound, the legacy key and the v1 token. The file holds two secrets, so it is written like
the fleet manifest's files (``manifest.write_private``): a new file created with mode 0600, renamed over the
old one, never readable by anyone else even for an instant. It is left in place when the emulator stops:
with ``--state-dir`` the same credentials serve again at the next start (which writes the file again, with the
port it then binds).

The variable names are the bridge's settings (``bridge.config``); the emulator shares no code with the
bridge, so they are spelled here and a test sources the file and runs ``bridge plan`` with it.
"""

from __future__ import annotations

import shlex
from pathlib import Path

from bridge.emulator.control.manifest import write_private
from bridge.emulator.control.tenants import Tenant

OPTION = "--env-file"
LEGACY_URL = "BRIDGE_LEGACY_URL"
LEGACY_KEY = "BRIDGE_LEGACY_KEY"
V1_URL = "BRIDGE_V1_URL"
V1_TOKEN = "BRIDGE_V1_TOKEN"  # noqa: S105 - the name of a variable, not a secret


def env_text(tenant: Tenant, base_url: str) -> str:
    """The exports for ``tenant`` served at ``base_url``, each value quoted for a POSIX shell."""
    exports = (
        (LEGACY_URL, base_url + "/api/v1"),
        (LEGACY_KEY, tenant.credentials.legacy_key),
        (V1_URL, base_url + "/v1"),
        (V1_TOKEN, tenant.credentials.token),
    )
    lines = [
        f"# bridge emulate: legacy workspace {tenant.source} -> v1 workspace {tenant.target}; load with: . FILE",
        *(f"export {name}={shlex.quote(value)}" for name, value in exports),
    ]
    return "\n".join(lines) + "\n"


def write_env_file(path: Path, tenant: Tenant, base_url: str) -> None:
    """Write the exports to ``path`` (mode 0600); a usage error (exit 2) names ``--env-file`` when it cannot."""
    write_private(path, env_text(tenant, base_url).encode(), OPTION)
