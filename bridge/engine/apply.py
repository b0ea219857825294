"""Create, patch or leave alone: how one mapped record becomes at most two writes.

A ``Desired`` record says what the target should hold: the create request, the full state (which a PATCH
sends when it differs from the create body, e.g. an archived space or a project's copy of a fringe patched to
the project's own values), and where to PATCH. The stored source hash is the hash of that full state, so:

- no v1 id in the crosswalk: create (Idempotency-Key from the namespace, kind, scope, legacy id and body),
  then PATCH the state if the create body does not already carry it;
- a v1 id whose stored hash equals the state's hash: unchanged, nothing is sent;
- a v1 id with another hash (the source changed, or a crash fell between create and PATCH): PATCH.

A record the run's replay of the journal has just finished is counted as replayed, not unchanged: every source
record gets one fate, so a resumed run's counts add up to the source.
"""

from __future__ import annotations

from dataclasses import dataclass

from bridge.engine.books import Books
from bridge.engine.executor import Executor, Sent
from bridge.engine.plan import Fate, Tally
from bridge.engine.steps import crosswalk_kind
from bridge.engine.writes import JsonObject, Write
from mappings.keys import source_hash
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


Replayed = frozenset[tuple[str, str, str]]
"""(crosswalk kind, scope, legacy id) of the records the replay of a stopped run's journal finished."""


@dataclass(frozen=True, slots=True)
class Applied:
    """One record brought to its desired state: its v1 id (None if quarantined) and what that took."""

    v1_id: str | None
    tally: Tally


class Applier:
    """Turns ``Desired`` records into writes through the executor; says what became of each."""

    def __init__(self, executor: Executor, books: Books, namespace: str, salt: str, replayed: Replayed) -> None:
        self.executor = executor
        self.books = books
        self.namespace = namespace
        self.salt = salt
        self.replayed = replayed

    def standing(self, kind: Kind, scope: str, legacy_id: str) -> Fate:
        """The fate of a record already on the target that this run leaves as it is."""
        replayed = (crosswalk_kind(kind), scope, legacy_id) in self.replayed
        return Fate.REPLAYED if replayed else Fate.UNCHANGED

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

    async def apply(self, desired: Desired) -> Applied:
        """Bring one record to its desired state."""
        kind = crosswalk_kind(desired.kind)
        v1_id = self.books.lookup(kind, desired.scope, desired.legacy_id)
        if v1_id is not None:
            # Nothing to patch with (e.g. a library copy with no own values): the record stands as is.
            wanted = source_hash(desired.full_state)
            if self.books.unchanged(kind, desired.scope, desired.legacy_id, wanted) or desired.patch_path is None:
                return Applied(
                    v1_id, Tally.of(desired.kind, self.standing(desired.kind, desired.scope, desired.legacy_id))
                )
            return _applied(desired, await self.executor.write(self._patch(desired, v1_id, "update")))
        if desired.adopt_id is not None:
            return _applied(desired, await self.executor.write(self._patch(desired, desired.adopt_id, "create")))
        create = Write(
            desired.kind, desired.scope, "POST", desired.create_path, desired.create_body, (desired.legacy_id,)
        ).keyed(self.namespace, desired.kind.value)
        created = _applied(desired, await self.executor.write(create))
        # The create's own hash is the create body's (computed once, when it was journalled).
        if created.v1_id is None or desired.state is None or create.hashes[0] == source_hash(desired.state):
            return created
        followup = await self.executor.write(self._patch(desired, created.v1_id, "followup"))
        return Applied(created.v1_id, created.tally + followup.tally)


def _applied(desired: Desired, sent: Sent) -> Applied:
    return Applied(sent.ids.get(desired.legacy_id), sent.tally)
