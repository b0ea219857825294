"""Checks made before any write: who the token is, that the legacy key works, that the state file belongs to
this source and target workspace, and what the target already holds that the crosswalk does not know.

Preflight reads both surfaces and writes only to the state file: the source's spaces, projects and contacts,
by which the file recognises its legacy workspace (``state.source``). It also times its reads, and that
latency is what the plan's time estimate uses. ``check_workspaces`` is the read-only binding check for
commands that read both sides of a finished migration (verify).
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass, field

from bridge.clients.legacy import LegacyClient
from bridge.clients.models import Identity, V1Record, WorkspaceRole
from bridge.clients.v1 import V1Client
from bridge.engine.kinds import crosswalk_kind
from bridge.engine.source import Listed, read_lists
from bridge.engine.tasks import run_all, task_group
from bridge.errors import UsageError
from mappings.keys import digest
from mappings.kinds import Kind
from mappings.records import Contact, Project, Space
from state import SourceRecord, StateStore

# The published WorkspaceRole enum is owner, admin, accountant, edit, comment, view; which of them may write
# budgets is not published (A40): these are taken to write, the others draw a warning.
WRITE_ROLES = frozenset({"owner", "admin", "edit"})


@dataclass(frozen=True, slots=True)
class Preflight:
    """What preflight learnt: both identities, the token's role, latencies, the source's workspace-wide lists
    and unknown target objects."""

    source: str
    target: str
    workspace_id: str
    role: str
    latency_s: float
    listed: Listed
    unknown_on_target: dict[str, int] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()

    def namespace(self, chosen: str | None) -> str:
        """The Idempotency-Key namespace: the --migration name, else derived from the two identities."""
        return chosen or "m-" + digest([self.source, self.target])[:16]


def source_identity(legacy_url: str) -> str:
    """The source's URL; every workspace of the service shares it, so the state also knows the workspace's records."""
    return f"legacy:{legacy_url.rstrip('/')}"


def target_identity(identity: Identity) -> tuple[str, WorkspaceRole]:
    """The target workspace a token works in (a token works in exactly one), and the token's role there."""
    if not identity.workspaces:
        raise UsageError("GET /me lists no workspace for this token; create the token inside the target workspace")
    workspace = identity.workspaces[0]
    return f"v1:{workspace.workspace_id}", workspace


def _records(kind: Kind, records: Iterable[Project | Space | Contact]) -> list[SourceRecord]:
    return [SourceRecord(kind, record.id) for record in records]


async def _projects(legacy: LegacyClient) -> list[SourceRecord]:
    return _records(Kind.PROJECT, await legacy.projects())


async def _spaces(legacy: LegacyClient) -> list[SourceRecord]:
    return _records(Kind.SPACE, await legacy.spaces())


async def _contacts(legacy: LegacyClient) -> list[SourceRecord]:
    return _records(Kind.CONTACT, await legacy.contacts())


READERS = (_projects, _spaces, _contacts)
"""What recognises the legacy workspace the key opens, whatever ``--project`` picks: its projects (every
status), spaces (archived too) and contacts; projects first, the records a migration is most about."""


def workspace_records(listed: Listed) -> list[SourceRecord]:
    """Every workspace-wide record of the source that recognises its workspace, in READERS' order."""
    return [
        *_records(Kind.PROJECT, listed.projects),
        *_records(Kind.SPACE, listed.spaces),
        *_records(Kind.CONTACT, listed.contacts),
    ]


async def check_workspaces(legacy: LegacyClient, v1: V1Client, store: StateStore, legacy_url: str) -> None:
    """Refuse (StateBindingError, exit 2) credentials that open other workspaces than the state file's.

    Reads only, and no more of the source than it takes: usually its projects are recognised at once.
    """
    target, _ = target_identity(await v1.me())
    bound = store.runs.binding()
    # Only the target part of the binding: verify may reach the same legacy workspace through another URL form
    # (the records below recognise the workspace), while the run keeps the URL in its key namespace.
    if bound is not None:
        store.runs.check_binding(bound[0], target)
    seen: list[SourceRecord] = []
    for read in READERS:
        seen += await read(legacy)
        if store.source.recognises(seen):
            return
    store.source.check(seen, legacy_url.rstrip("/"))


async def _count_unknown(items: AsyncIterator[V1Record], known: set[str]) -> int:
    return sum([1 async for item in items if getattr(item, "id", None) not in known])


async def _timed_identity(v1: V1Client) -> tuple[Identity, float]:
    started = time.monotonic()
    identity = await v1.me()
    return identity, time.monotonic() - started


async def _latency(v1: V1Client, first: float) -> float:
    """The v1 latency: the fastest of the first identity read and two more (the first pays for the
    connection, later ones show the latency)."""
    later = [(await _timed_identity(v1))[1] for _ in range(2)]  # one after another, on the warm connection
    return min(first, *later)


async def preflight(legacy: LegacyClient, v1: V1Client, store: StateStore, legacy_url: str) -> Preflight:
    """Run every check; raises a UsageError (exit 2) or the clients' AuthenticationLost (exit 3) on failure.

    The reads go side by side: the source's lists with the identity reads, and the three v1 lists with the
    two identity reads that only time the latency, once the first has shown that the token and the URL work
    (a certificate or a token refused is one request, not four). One after another they were nine round trips
    before every run (and every step of a fleet's workflow). The checks come after the reads; only the state
    file is written.
    """
    known = store.crosswalk.v1_ids(crosswalk_kind(kind) for kind in (Kind.SPACE, Kind.PROJECT, Kind.CONTACT))

    async def read_target() -> tuple[Identity, float, list[int]]:
        identity, first = await _timed_identity(v1)
        async with task_group() as reads:
            timed = reads.create_task(_latency(v1, first))
            lists = (v1.spaces(), v1.projects(), v1.contacts())
            counted = reads.create_task(run_all(_count_unknown(items, known) for items in lists))
        return identity, timed.result(), counted.result()

    async with task_group() as reads:
        identified = reads.create_task(read_target())
        read = reads.create_task(read_lists(legacy))
    (identity, v1_latency, counted), listed = identified.result(), read.result()
    records = workspace_records(listed)
    target, workspace = target_identity(identity)
    source = source_identity(legacy_url)
    store.runs.check_binding(source, target)
    store.source.recognise(records, legacy_url.rstrip("/"))
    warnings = []
    if workspace.workspace_role not in WRITE_ROLES:
        warnings.append(
            f"the token's role is {workspace.workspace_role!r}; writes may be refused with permission_revoked"
        )
    unknown = dict(zip(("space", "project", "contact"), counted, strict=True))
    return Preflight(
        source,
        target,
        workspace.workspace_id,
        workspace.workspace_role,
        v1_latency,
        listed,
        {kind: count for kind, count in unknown.items() if count},
        tuple(warnings),
    )
