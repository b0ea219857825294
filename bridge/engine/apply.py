"""The one record step: a kind's wanted records become creates, patches, or nothing, and a tally of each.

Every kind declared with ``records`` goes through ``Applier.write``, group after group (``engine.wanted``):

1. map each record of the group (a refusal is quarantined with the mappings' code and field);
2. known to the crosswalk: unchanged when the stored source hash is the full state's (nothing sent; a record
   the journal replay has just finished counts as replayed), else PATCHed through the kind's update;
3. new: cut into chunks of the create operation's bulk limit, at most ``RECORDS_BUILT`` records' bodies built
   at once; a chunk is one request (a bulk, or one record's create, Idempotency-Key from the namespace, key
   kind, scope, legacy ids and body), and a record whose full state differs from its create body is PATCHed
   to it right after (an archived space, a copy with the project's own values);
4. records the crosswalk knows that the source no longer holds are counted as removed at source and left on
   the target (deleting target data is for a person to decide).

A run that reads only some projects sees a kind drawn from the projects' libraries only in part: it counts no
removal of it, and leaves the records it knows of a kind merged from several projects (a library item) as
they are, since the projects it did not read may set their values (``KindSpec.merged``).

A record created by patching an object the service made (a new project's default phase) is adopted: the
PATCH counts as its create. Nothing here keeps a count: each call returns its ``Tally``.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from bridge.clients.v1_requests import BY_ID
from bridge.engine.books import Books
from bridge.engine.executor import Executor
from bridge.engine.guard import Guard
from bridge.engine.kinds import KindSpec, crosswalk_kind
from bridge.engine.plan import Fate, QuarantinedRecord, Refusal, Tally, not_carried, total
from bridge.engine.tasks import run_all
from bridge.engine.wanted import Desired, JsonObject, Want, Wanted
from bridge.engine.writes import Write
from mappings.budget import chunks
from mappings.errors import MappingError
from mappings.keys import source_hash
from mappings.kinds import Kind
from mappings.notes import Note
from mappings.refs import Lookup

# Records whose bodies exist at once while one kind is written (a budget level of a large tree is thousands
# of lines; memory holds a few bulks' bodies, not the level as JSON): 8 line bulks, or 800 single records.
RECORDS_BUILT = 800

Listing = Callable[[Kind, int], None]
"""Told how many source records of a kind a step has just read, before it writes them (the progress totals)."""

Replayed = frozenset[tuple[str, str, str]]
"""(crosswalk kind, scope, legacy id) of the records the replay of a stopped run's journal finished."""


def refused(kind: Kind, errors: Iterable[MappingError]) -> Tally:
    """The mappings' refusals of ``kind`` (never journalled: no request was built for them)."""
    records = [
        QuarantinedRecord(e.ref.kind, e.ref.scope, e.ref.legacy_id, e.code.value, e.field, e.message) for e in errors
    ]
    return Tally(quarantine=tuple(Refusal(kind, record) for record in records))


def carried(notes: Iterable[Note]) -> Tally:
    """The values a mapping could not carry, as a tally's listing."""
    return Tally(not_carried=tuple(not_carried(notes)))


def removed(books: Books, kind: Kind, scope: str, seen: Iterable[str]) -> Tally:
    """Records of ``kind`` in ``scope`` an earlier run wrote that the source no longer holds: reported and left
    on the target (deleting target data is for a person to decide)."""
    gone = books.legacy_ids(crosswalk_kind(kind), scope) - set(seen)
    return Tally.of(kind, Fate.REMOVED, len(gone)) if gone else Tally()


def left_out(kind: Kind, wanted: Wanted) -> Tally:
    """A kind the operator left behind: every source record of it counted, nothing mapped or sent."""
    return Tally.of(kind, Fate.LEFT_OUT, wanted.records)


@dataclass(frozen=True, slots=True)
class Target:
    """Where one kind's records go: the kind, its scope (the workspace or a legacy project) and the path
    parameters its operations take before the record's own id (a project kind's v1 project)."""

    spec: KindSpec
    scope: str
    params: tuple[str, ...] = ()

    @property
    def kind(self) -> Kind:
        return self.spec.kind


def _mapped(kind: Kind, wants: Sequence[Want], lookup: Lookup) -> tuple[list[Desired], Tally]:
    """Map each record; the refusals and the values not carried as a tally."""
    found: list[Desired] = []
    errors: list[MappingError] = []
    for want in wants:
        try:
            found.append(want.mapped(lookup))
        except MappingError as error:
            errors.append(error)
    return found, refused(kind, errors) + carried(note for desired in found for note in desired.notes)


class Applier:
    """Turns wanted records into writes through the executor; says what became of each."""

    def __init__(
        self,
        executor: Executor,
        books: Books,
        namespace: str,
        salt: str,
        replayed: Replayed,
        *,
        guard: Guard | None = None,
        listing: Listing | None = None,
    ) -> None:
        self.executor = executor
        self._listing = listing
        self.books = books
        self.namespace = namespace
        self.salt = salt
        self.replayed = replayed
        # Bridge mode (`bridge sync`): updates and deletes only of records nobody changed on v1 (``engine.guard``).
        self.guard = guard

    def listed(self, kind: Kind, records: int) -> None:
        """Say that ``records`` more source records of ``kind`` were read (a step writing them comes next)."""
        if self._listing is not None:
            self._listing(kind, records)

    async def write(self, target: Target, wanted: Wanted, *, whole: bool = True) -> Tally:
        """Write one kind's records in one scope (see the module docstring); ``whole`` when the source read
        holds every record of the kind (removals are only counted then)."""
        self.listed(target.kind, wanted.records)
        done = refused(target.kind, wanted.refused)
        if wanted.held:
            done += Tally.of(target.kind, Fate.HELD_BACK, wanted.held)
        for group in wanted.groups:
            done += await self._group(target, group, settled=not whole and target.spec.merged)
        if whole or not target.spec.from_projects:
            done += await self.removed(target, wanted.seen)
        return done

    async def removed(self, target: Target, seen: Iterable[str]) -> Tally:
        """Records gone from the source: counted and left on the target by a run; deleted from v1 by a sync when
        nobody changed them there (``Guard.delete``)."""
        if self.guard is None or target.spec.delete is None:
            return removed(self.books, target.kind, target.scope, seen)
        gone = self.books.legacy_ids(crosswalk_kind(target.kind), target.scope) - set(seen)
        left = Tally()
        if target.spec.cascade:
            kept = {legacy_id for legacy_id in gone if self.books.parent(target.spec, target.scope, legacy_id)}
            gone -= kept
            left = Tally.of(target.kind, Fate.REMOVED, len(kept)) if kept else left
        guard = self.guard
        deleted = [
            await guard.delete(target.kind, target.scope, target.params, legacy_id) for legacy_id in sorted(gone)
        ]
        return left + total(deleted)

    async def _group(self, target: Target, group: Sequence[Want], *, settled: bool) -> Tally:
        """``settled``: the records the crosswalk knows stand as they are, whatever their source now says."""
        stored = target.spec.stored
        lookup = self.books.lookup
        known = [want for want in group if lookup(stored, target.scope, want.legacy_id) is not None]
        fresh = [want for want in group if lookup(stored, target.scope, want.legacy_id) is None]
        done = Tally()
        if settled:
            standing = Counter(self.standing(target.kind, target.scope, want.legacy_id) for want in known)
            done += total(Tally.of(target.kind, fate, n) for fate, n in standing.items())
            known = []
        for part in chunks(known, RECORDS_BUILT):
            mapped, tally = _mapped(target.kind, part, lookup)
            done += tally + total(await run_all(self.update(target, desired) for desired in mapped))
        limit = BY_ID[target.spec.create].bulk_limit
        room = asyncio.Semaphore(max(1, RECORDS_BUILT // limit))

        async def create(part: Sequence[Want]) -> Tally:
            async with room:
                mapped, tally = _mapped(target.kind, part, lookup)
                return tally + await self._create(target, mapped) if mapped else tally

        return done + total(await run_all(create(part) for part in chunks(fresh, limit)))

    def standing(self, kind: Kind, scope: str, legacy_id: str) -> Fate:
        """The fate of a record already on the target that this run leaves as it is."""
        replayed = (crosswalk_kind(kind), scope, legacy_id) in self.replayed
        return Fate.REPLAYED if replayed else Fate.UNCHANGED

    async def update(self, target: Target, desired: Desired) -> Tally:
        """A record the crosswalk knows: left as it is when its source is unchanged (or the kind has no update
        to send it with), else PATCHed to its full state."""
        kind = target.spec.stored
        v1_id = self.books.lookup(kind, target.scope, desired.legacy_id)
        if v1_id is None:
            raise ValueError(f"{target.kind} {desired.legacy_id} is not in the crosswalk; it cannot be updated")
        wanted = source_hash(desired.full_state)
        # A record whose create gave it its state is unchanged while booked as created, whichever run made it.
        held = desired.holds and self.books.unchanged(kind, target.scope, desired.legacy_id, source_hash(desired.body))
        if target.spec.update is None or held or self.books.unchanged(kind, target.scope, desired.legacy_id, wanted):
            return Tally.of(target.kind, self.standing(target.kind, target.scope, desired.legacy_id))
        if self.guard is not None:
            verdict = await self.guard.check(
                target.kind,
                target.scope,
                desired.legacy_id,
                v1_id,
                change="update",
                body=desired.full_state,
                digest=wanted,
            )
            if not verdict.clear:
                return Tally.of(target.kind, Fate.CONFLICTED)
        return (await self.executor.write(self._patch(target, desired, v1_id, "update"))).tally

    def _patch(self, target: Target, desired: Desired, v1_id: str, counts_as: str) -> Write:
        if target.spec.update is None:
            raise ValueError(f"{target.kind} has no update operation; it cannot be patched")
        return Write(
            target.kind,
            target.scope,
            target.spec.update,
            (*target.params, v1_id),
            desired.full_state,
            (desired.legacy_id,),
            counts_as=counts_as,
            salt=self.salt,
        )

    async def _create(self, target: Target, records: Sequence[Desired]) -> Tally:
        """One create request for ``records`` (a bulk, or one record), then each one's follow-up PATCH."""
        # Made by the service already (a new project's default phase): the PATCH that makes it ours is its create.
        adopted = [self._patch(target, d, d.adopt_id, "create") for d in records if d.adopt_id is not None]
        done = total(await run_all(self._sent(write) for write in adopted))
        records = [d for d in records if d.adopt_id is None]
        if not records:
            return done
        list_field = BY_ID[target.spec.create].list_field
        body: JsonObject = records[0].body if list_field is None else {list_field: [d.body for d in records]}
        members = tuple(d.legacy_id for d in records)
        create = Write(target.kind, target.scope, target.spec.create, target.params, body, members)
        create = create.keyed(self.namespace, target.spec.keyed_as)
        sent = await self.executor.write(create)
        # A create's own hash is its entry's (computed once, when it was journalled). A record adopted from the
        # target with other values than the create's is brought to its full state the same way.
        followups = [
            self._patch(target, d, sent.ids[d.legacy_id], "followup")
            for d, created in zip(records, create.hashes, strict=True)
            if d.legacy_id in sent.ids
            and (
                (d.state is not None and not d.holds and created != source_hash(d.state))
                or (d.legacy_id in sent.differs and target.spec.update is not None)
            )
        ]
        return done + sent.tally + total(await run_all(self._sent(w) for w in followups))

    async def _sent(self, write: Write) -> Tally:
        return (await self.executor.write(write)).tally
