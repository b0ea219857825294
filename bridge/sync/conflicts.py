"""Resolving a conflict: a person takes one side, and the bridge writes that side's value once (or nothing).

- ``legacy``: the body legacy wanted is PATCHed onto the v1 record (a delete at the source deletes it), and
  the record's source hash and v1 mark are booked as the bridge's own write: the next cycle sees nothing to do.
  A record someone deleted on v1 is forgotten instead, and the next cycle creates it again.
- ``v1``: nothing is sent. An update: the legacy change is booked as seen and the v1 row becomes the record's
  mark, so v1's value stands until legacy changes the record again. A delete at the source: the v1 record is
  no longer the bridge's (its crosswalk entry and mark are forgotten), so no later cycle deletes it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import StrEnum

from bridge.clients.v1 import V1Client
from bridge.clients.v1_requests import BY_ID
from bridge.engine.books import Books, engine_scope
from bridge.engine.guard import Guard
from bridge.engine.kinds import KINDS, KindSpec, Scope
from bridge.errors import RecordError, UsageError
from mappings.kinds import Kind
from mappings.refs import WORKSPACE
from state.crosswalk import CrosswalkEntry
from state.models import ConflictRow
from state.store import StateStore


class Side(StrEnum):
    LEGACY = "legacy"
    V1 = "v1"


@dataclass(frozen=True, slots=True)
class Resolved:
    """What resolving did: the conflict, the side taken and the requests sent."""

    conflict: ConflictRow
    side: Side
    writes: int


def _declared(stored: str, scope: str) -> KindSpec:
    """The kind a conflict's record is (its crosswalk kind, in its scope: a project's copy is stored as its item)."""
    in_workspace = scope == ""
    for kind in KINDS:
        if kind.stored == stored and (kind.scope is Scope.WORKSPACE) == in_workspace:
            return kind
    raise UsageError(f"no kind is stored as {stored!r}: this state was written by another bridge version")


def open_conflict(store: StateStore, conflict_id: int) -> ConflictRow:
    """The open conflict ``conflict_id``, or a UsageError naming what there is instead."""
    row = store.conflicts.get(conflict_id)
    if row is None:
        raise UsageError(f"no conflict {conflict_id}: `bridge conflicts list` shows the open ones")
    if row.resolved_at is not None:
        raise UsageError(f"conflict {conflict_id} was resolved already (took {row.taken}); nothing to do")
    return row


async def resolve(store: StateStore, v1: V1Client, conflict: ConflictRow, side: Side) -> Resolved:
    """Take ``side`` for ``conflict`` (see the module docstring); the conflict is closed last, so a resolve
    stopped half-way is run again."""
    declared = _declared(conflict.kind, conflict.scope)
    scope = engine_scope(conflict.scope)
    books = Books(store.database, None)
    writes = 0
    try:
        if side is Side.LEGACY:
            writes = await _write_legacy(store, v1, books, declared, conflict)
        elif conflict.change == "delete":
            store.crosswalk.remove(conflict.kind, conflict.legacy_id, conflict.scope)
            store.marks.remove(conflict.kind, conflict.scope, conflict.legacy_id)
        else:
            entry = CrosswalkEntry(
                conflict.kind, conflict.legacy_id, conflict.v1_id, conflict.scope, conflict.legacy_hash
            )
            store.crosswalk.put([entry])
            await Guard(v1, books, store, live=True).remark([(scope, conflict.kind, conflict.v1_id)], ())
    finally:
        await books.aclose()
    store.conflicts.resolve(int(conflict.id or 0), side.value)
    return Resolved(conflict, side, writes)


def _params(declared: KindSpec, operation: str, books: Books, conflict: ConflictRow) -> tuple[str, ...]:
    """The path parameters of ``operation`` on the conflict's record: its parent's v1 id (a split item's
    transaction) or else its v1 project first, where it takes one."""
    if BY_ID[operation].parameters < 2:
        return (conflict.v1_id,)
    if declared.parent_of is not None:
        held_by = books.parent(declared, engine_scope(conflict.scope), conflict.legacy_id)
        if held_by is None:
            raise UsageError(f"the record holding conflict {conflict.id}'s {declared.label} is not in the crosswalk")
        return (held_by, conflict.v1_id)
    project = books.lookup(Kind.PROJECT.value, WORKSPACE, conflict.scope)
    if project is None:
        raise UsageError(f"the project {conflict.scope} of conflict {conflict.id} is not in the crosswalk")
    return (project, conflict.v1_id)


async def _write_legacy(
    store: StateStore, v1: V1Client, books: Books, declared: KindSpec, conflict: ConflictRow
) -> int:
    if conflict.change == "delete":
        if declared.delete is None:
            raise UsageError(f"v1 publishes no delete of {declared.label}: delete it in the app, then close it")
        try:
            await v1.send_write(declared.delete, _params(declared, declared.delete, books, conflict), {}, None)
        except RecordError as error:
            if error.status != 404:  # gone already: what taking legacy's delete asks for
                raise
        store.crosswalk.remove(conflict.kind, conflict.legacy_id, conflict.scope)
        store.marks.remove(conflict.kind, conflict.scope, conflict.legacy_id)
        return 1
    if json.loads(conflict.v1_json) is None:
        # Deleted on v1: legacy's record comes back as a new one, created by the next cycle.
        store.crosswalk.remove(conflict.kind, conflict.legacy_id, conflict.scope)
        store.marks.remove(conflict.kind, conflict.scope, conflict.legacy_id)
        return 0
    if declared.update is None:
        raise UsageError(f"v1 publishes no update of {declared.label}: change it in the app, then take v1")
    body = json.loads(conflict.legacy_json)
    await v1.send_write(declared.update, _params(declared, declared.update, books, conflict), body, None)
    entry = CrosswalkEntry(conflict.kind, conflict.legacy_id, conflict.v1_id, conflict.scope, conflict.legacy_hash)
    store.crosswalk.put([entry])
    written = [(engine_scope(conflict.scope), conflict.kind, conflict.v1_id)]
    await Guard(v1, books, store, live=True).remark(written, ())
    return 1
