"""Checks made before any write: who the token is, that the legacy key works, that the state file belongs to
this source and target, and what the target already holds that the crosswalk does not know.

Preflight only reads. It also times its reads, and that latency is what the plan's time estimate uses.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

from bridge.clients.legacy import LegacyClient
from bridge.clients.models import V1Record
from bridge.clients.v1 import V1Client
from bridge.errors import UsageError
from mappings.keys import digest
from state.store import StateStore

# The published WorkspaceRole enum is owner, admin, accountant, edit, comment, view; which of them may write
# budgets is not published (A40): these are taken to write, the others draw a warning.
WRITE_ROLES = frozenset({"owner", "admin", "edit"})


@dataclass(frozen=True, slots=True)
class Preflight:
    """What preflight learnt: both identities, the token's role, latencies and unknown target objects."""

    source: str
    target: str
    workspace_id: str
    role: str
    latency_s: float
    unknown_on_target: dict[str, int] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()

    def namespace(self, chosen: str | None) -> str:
        """The Idempotency-Key namespace: the --migration name, else derived from the two identities."""
        return chosen or "m-" + digest([self.source, self.target])[:16]


def source_identity(legacy_url: str) -> str:
    """A legacy key is bound to one workspace the surface never names: the base URL identifies the source."""
    return f"legacy:{legacy_url.rstrip('/')}"


async def _count_unknown(items: AsyncIterator[V1Record], known: set[str]) -> int:
    return sum([1 async for item in items if getattr(item, "id", None) not in known])


async def preflight(legacy: LegacyClient, v1: V1Client, store: StateStore, legacy_url: str) -> Preflight:
    """Run every check; raises a UsageError (exit 2) or the clients' AuthenticationLost (exit 3) on failure."""
    # The fastest of three identity reads: the first pays for the connection, later ones show the latency.
    samples = []
    for _ in range(3):
        started = time.monotonic()
        identity = await v1.me()
        samples.append(time.monotonic() - started)
    v1_latency = min(samples)
    if not identity.workspaces:
        raise UsageError("GET /me lists no workspace for this token; create the token inside the target workspace")
    workspace = identity.workspaces[0]
    await legacy.spaces()
    source, target = source_identity(legacy_url), f"v1:{workspace.workspace_id}"
    store.runs.check_binding(source, target)
    warnings = []
    if workspace.workspace_role not in WRITE_ROLES:
        warnings.append(
            f"the token's role is {workspace.workspace_role!r}; writes may be refused with permission_revoked"
        )
    known = {row.v1_id for row in store.crosswalk.entries()}
    unknown = {
        "space": await _count_unknown(v1.spaces(), known),
        "project": await _count_unknown(v1.projects(), known),
        "contact": await _count_unknown(v1.contacts(), known),
    }
    return Preflight(
        source,
        target,
        workspace.workspace_id,
        workspace.workspace_role,
        v1_latency,
        {kind: count for kind, count in unknown.items() if count},
        tuple(warnings),
    )
