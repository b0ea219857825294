"""Create, patch or leave alone: how one mapped record becomes at most two writes.

A ``Desired`` record says what the target should hold: the create request, the full state (which a PATCH
sends when it differs from the create body, e.g. an archived space or a project's copy of a fringe patched to
the project's own values), and where to PATCH. The stored source hash is the hash of that full state, so:

- no v1 id in the crosswalk: create (Idempotency-Key from the namespace, kind, scope, legacy id and body),
  then PATCH the state if the create body does not already carry it;
- a v1 id whose stored hash equals the state's hash: unchanged, nothing is sent;
- a v1 id with another hash (the source changed, or a crash fell between create and PATCH): PATCH.
"""

from __future__ import annotations

from dataclasses import dataclass

from bridge.engine.books import Books
from bridge.engine.executor import Executor
from bridge.engine.plan import Plan
from bridge.engine.steps import crosswalk_kind
from bridge.engine.writes import JsonObject, Write
from mappings.keys import idempotency_key, source_hash
from mappings.kinds import Kind


@dataclass(frozen=True, slots=True)
class Desired:
    """One record as the target should hold it."""

    kind: Kind
    scope: str
    legacy_id: str
    create_path: str
    create_body: JsonObject
    patch_path: str | None = None
    state: JsonObject | None = None
    # The record is created by patching an object the service made for us (a project's default phase).
    adopt_id: str | None = None

    @property
    def full_state(self) -> JsonObject:
        return self.state if self.state is not None else self.create_body


class Applier:
    """Turns ``Desired`` records into writes through the executor, counting unchanged ones."""

    def __init__(self, executor: Executor, books: Books, ledger: Plan, namespace: str, salt: str) -> None:
        self.executor = executor
        self.books = books
        self.ledger = ledger
        self.namespace = namespace
        self.salt = salt

    def _patch(self, desired: Desired, v1_id: str, counts_as: str) -> Write:
        if desired.patch_path is None:
            raise ValueError(f"{desired.kind} has no PATCH route; it cannot be updated in place")
        return Write(
            desired.kind,
            desired.scope,
            "PATCH",
            desired.patch_path.format(id=v1_id),
            desired.full_state,
            (desired.legacy_id,),
            counts_as=counts_as,
            salt=self.salt,
        )

    async def apply(self, desired: Desired) -> str | None:
        """Bring one record to its desired state; returns its v1 id (None if it was quarantined)."""
        kind = crosswalk_kind(desired.kind)
        v1_id = self.books.lookup(kind, desired.scope, desired.legacy_id)
        wanted = source_hash(desired.full_state)
        if v1_id is not None:
            if self.books.unchanged(kind, desired.scope, desired.legacy_id, wanted):
                self.ledger.of(desired.kind).unchanged += 1
                return v1_id
            if desired.patch_path is None:
                # Nothing to patch with (e.g. a library copy with no own values): the record stands as is.
                self.ledger.of(desired.kind).unchanged += 1
                return v1_id
            done = await self.executor.submit(self._patch(desired, v1_id, "update"))
            return done.get(desired.legacy_id)
        if desired.adopt_id is not None:
            done = await self.executor.submit(self._patch(desired, desired.adopt_id, "create"))
            return done.get(desired.legacy_id)
        key = idempotency_key(
            self.namespace, desired.kind.value, desired.scope, (desired.legacy_id,), desired.create_body
        )
        create = Write(
            desired.kind, desired.scope, "POST", desired.create_path, desired.create_body, (desired.legacy_id,), key
        )
        created = (await self.executor.submit(create)).get(desired.legacy_id)
        if created is None or desired.state is None or source_hash(desired.create_body) == wanted:
            return created
        await self.executor.submit(self._patch(desired, created, "followup"))
        return created
