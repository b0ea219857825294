"""Sends one ``Write`` through the journal's state machine, or (dry run) only counts it.

For every write, live: journal the intent (``pending``), send it with its Idempotency-Key,
read the v1 ids, then write the ids into the crosswalk and complete the intent in one transaction. A bulk
the service rejects as a record-level error (400/422/413/404/409 other than idempotency_conflict) is split
in halves with keys derived from the parent's, recursively, until the bad entry stands alone; that entry is
quarantined with the service's reason and every other entry goes through. A fan-out (split items: one
intent, many single-item requests under derived keys) is never split: each refused entry is quarantined on
its own and the others are booked. Resumable stops (auth lost,
retry budget) and fatal errors propagate untouched: the journal already says what was in flight.

Every write returns what it did (``Sent``: the v1 ids of its members and a ``Tally`` of records and requests);
the executor keeps no count of its own.

An observer (``points.WriteObserver``), when one is given, is told of each state transition: the crash tests
stop the process at every one of them.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import structlog

from bridge.clients.transfer import FileRefused
from bridge.clients.v1 import V1Client
from bridge.clients.v1_requests import UnpublishedBody, checked_write
from bridge.engine.adopt import Adoption, Found
from bridge.engine.books import Books
from bridge.engine.kinds import derived_from
from bridge.engine.plan import Fate, QuarantinedRecord, Refusal, Tally
from bridge.engine.points import WriteObserver
from bridge.engine.spool import Spool
from bridge.engine.tasks import run_all
from bridge.engine.wanted import PLACEHOLDER
from bridge.engine.writes import Write, id_of
from bridge.errors import FatalError, RecordError, UnexpectedResponse

log = structlog.get_logger("bridge.engine")


def placeholder_id(write: Write, legacy_id: str) -> str:
    """The id a dry run pretends a created record received, so later kinds can still be mapped."""
    return f"{PLACEHOLDER}{write.kind.value}:{legacy_id}"


def _as_sent(write: Write) -> dict[str, object]:
    """A dry run's body with each placeholder id shaped like a real id (``planned:phase:p1`` is no valid
    reference in a rollup formula, the v1 id the run will put there is), for the published-shape check."""
    body: dict[str, object] = json.loads(re.sub(rf"{PLACEHOLDER}[\w:.-]*", "planned_id", write.body_text))
    return body


def rejection_code(error: RecordError) -> str:
    """The quarantine code of a record the target refused: the service's own ``code`` (target_<code>); an
    answer without one is named by its status, and a body refused before sending by its error's code."""
    if isinstance(error, FileRefused):  # refused at the source, before v1 saw it: the code is ours
        return error.code or "file.refused"
    if error.code:
        return f"target_{error.code}"
    return f"target_http_{error.status}" if error.status is not None else "target_refused"


# What a booked write did to its records, by how it counts (a follow-up PATCH finishes a create: no record).
FATES = {"create": Fate.CREATED, "update": Fate.UPDATED}


@dataclass(frozen=True, slots=True)
class Sent:
    """What one write did: legacy id -> v1 id of the members that reached the target, and its tally."""

    ids: dict[str, str]
    tally: Tally
    # Members adopted from the target whose v1 values differ from the create's (``engine.adopt``): a kind with
    # an update brings them to the source's values.
    differs: frozenset[str] = frozenset()

    def __add__(self, other: Sent) -> Sent:
        return Sent({**self.ids, **other.ids}, self.tally + other.tally, self.differs | other.differs)


def derived_ids(write: Write, answer: object) -> list[tuple[str, str]]:
    """(crosswalk kind, v1 id) of the second entries a create's single-object answer names (``Derived``)."""
    return derived_from(write.kind, answer) if write.method == "POST" else []


def _refused(write: Write, members: Sequence[str], code: str, message: str, *, filed: bool) -> Tally:
    records = [QuarantinedRecord(write.kind.value, write.scope, member, code, None, message) for member in members]
    return Tally(quarantine=tuple(Refusal(write.kind, record, filed) for record in records))


class Executor:
    """Writes one request at a time through the journal; shared by every task of a run."""

    def __init__(
        self,
        *,
        books: Books,
        v1: V1Client | None,
        observer: WriteObserver | None = None,
        spool: Spool | None = None,
        adoption: Adoption | None = None,
    ) -> None:
        self.books = books
        self.v1 = v1
        self.observer = observer
        # Where an upload's bytes come from (``engine.spool``); a run that uploads nothing needs none.
        self.spool = spool
        # Where creates first look for their records on the target (``engine.adopt``).
        self.adoption = adoption

    def _reach(self, write: Write, point: str) -> None:
        if self.observer is not None:
            self.observer.reached(write, point)

    def forget(self, scope: str) -> None:
        """A project is done: drop what the run kept in memory of it."""
        self.books.forget(scope)
        if self.adoption is not None:
            self.adoption.forget(scope)

    @property
    def dry_run(self) -> bool:
        return self.v1 is None

    async def write(self, write: Write, *, landed: Mapping[int, str] | None = None, new: bool = True) -> Sent:
        """Apply ``write``; returns the v1 ids of the members that reached the target and what it did.

        ``landed`` (a fan-out replayed past key retention): the entries whose items are already on the target,
        by index, with the target's ids; they are booked, not sent again. ``new`` False: a journalled intent
        replayed (its own lookups decide what landed; adopting would leave the intent open).
        """
        if new and self.adoption is not None and self.adoption.adopts(write):
            found = await self.adoption.find(write)
            if found:
                adopted = await self.adopt(write, found)
                rest = [index for index in range(len(write.members)) if index not in found]
                # The others as a subset keyed from the write's key: a resumed run finding the same records
                # derives the same key.
                return adopted + await self._write(write.subset(rest)) if rest else adopted
        return await self._write(write, landed=landed)

    async def adopt(self, write: Write, found: Mapping[int, Found]) -> Sent:
        """Book the entries of ``write`` the target already holds (``engine.adopt``): nothing is sent."""
        durable = not self.dry_run or (self.adoption is not None and self.adoption.keep)
        ids = {write.members[index]: hit.v1_id for index, hit in found.items()}
        hashes = {write.members[index]: hit.digest for index, hit in found.items()}
        derived = [entry for hit in found.values() for entry in hit.derived]
        await self.books.adopt(write, ids, hashes, derived, durable=durable)
        differs = frozenset(member for member, digest in hashes.items() if not digest)
        return Sent(ids, Tally.of(write.kind, Fate.ADOPTED, len(found)), differs)

    async def _write(self, write: Write, *, landed: Mapping[int, str] | None = None) -> Sent:
        if self.dry_run:
            try:
                # What the typed client would refuse to send, the plan shows as quarantined.
                checked_write(write.op, _as_sent(write))
            except UnpublishedBody as error:
                return self._refused_in_plan(write, error)
            return self._count(write, len(landed or {}))
        self._reach(write, "journal")
        status = await self.books.record(write)
        if status == "done":
            return Sent(self.books.known(write), Tally())
        if status == "quarantined":
            return Sent({}, Tally())
        if status == "failed" and write.splittable:
            # A bisection interrupted by a crash: its halves are journalled under derived keys; resume them.
            return await self._halves(write)
        self._reach(write, "sent")
        if write.fanout:
            return await self._fan_out(write, landed or {})
        try:
            answer = await self._send(write)
        except RecordError as error:
            return await self._rejected(write, error)
        self._reach(write, "service")
        try:
            ids = write.v1_ids(answer)
        except ValueError as exc:
            raise UnexpectedResponse(f"{write.method} {write.path}: {exc}") from exc
        self._reach(write, "response")
        await self.books.complete(write, ids, derived_ids(write, answer))
        if self.adoption is not None:
            self.adoption.made(write, ids)
        self._reach(write, "done")
        return Sent(dict(zip(write.members, ids, strict=True)), self._booked(write))

    async def _send(self, write: Write) -> object:
        assert self.v1 is not None
        if write.op.multipart:
            return await self._upload(write)
        return await self.v1.send_write(write.operation, write.params, write.body, write.key)

    async def _upload(self, write: Write) -> object:
        """A document upload: its file downloaded (or found) in the spool, streamed out beside its metadata."""
        assert self.v1 is not None
        if self.spool is None or write.key is None:
            raise FatalError(f"upload {write.step_key} needs a spool and an Idempotency-Key; the run gave none")
        async with self.spool.held(write.members[0]) as (spooled, manifest):
            return await self.v1.send_upload(write.operation, write.body, spooled, manifest.mime_type, write.key)

    async def _fan_out(self, write: Write, landed: Mapping[int, str]) -> Sent:
        """Send a fan-out's requests (a transaction's items in order, transactions side by side) but for the
        ``landed`` ones, then book the ids of those that went through (and of the landed ones) and quarantine
        those the target refused, in one transaction."""
        assert self.v1 is not None
        assert write.fan_out is not None
        param, field_name = write.fan_out.param, write.fan_out.body
        entries = write.entries()
        by_transaction: dict[str, list[int]] = {}
        for index, entry in enumerate(entries):
            assert isinstance(entry, dict)
            if index not in landed:
                by_transaction.setdefault(str(entry[param]), []).append(index)
        ids: dict[int, str] = dict(landed)
        refused: dict[int, RecordError] = {}

        async def items_of(transaction: str, indexes: list[int]) -> None:
            for index in indexes:
                entry = entries[index]
                assert isinstance(entry, dict)
                try:
                    # A split item is a leaf: nothing is written from its id, so the bulks waiting go first.
                    answer = await self.v1.send_write(  # type: ignore[union-attr]
                        write.operation, (transaction,), entry[field_name], write.entry_key(index), leaf=True
                    )
                except RecordError as error:
                    refused[index] = error
                    continue
                ids[index] = id_of(answer, write.kind)

        await run_all(items_of(t, indexes) for t, indexes in by_transaction.items())
        self._reach(write, "service")
        self._reach(write, "response")
        records = [
            QuarantinedRecord(write.kind.value, write.scope, write.members[i], rejection_code(e), None, e.message)
            for i, e in sorted(refused.items())
        ]
        await self.books.complete_partly(write, {write.members[i]: v for i, v in ids.items()}, records)
        self._reach(write, "done")
        tally = Tally.of(write.kind, Fate.CREATED, len(ids) - len(landed), requests=len(entries) - len(landed))
        tally += Tally(quarantine=tuple(Refusal(write.kind, record, filed=True) for record in records))
        return Sent({write.members[i]: v for i, v in ids.items()}, tally)

    async def _rejected(self, write: Write, error: RecordError) -> Sent:
        code = rejection_code(error)
        sent = Tally(requests=Counter({write.kind: 1}))
        if write.splittable:
            await self.books.fail(write, code, error.request_id)
            log.info("bridge.step.split", kind=write.kind.value, size=len(write.members), code=code)
            halves = await self._halves(write)
            return Sent(halves.ids, sent + halves.tally)
        refused = _refused(write, write.members, code, error.message, filed=True)
        await self.books.quarantine(write, [r.record for r in refused.quarantine], error.request_id)
        log.warning("bridge.step.quarantined", kind=write.kind.value, members=list(write.members), code=code)
        return Sent({}, sent + refused)

    def _refused_in_plan(self, write: Write, error: UnpublishedBody) -> Sent:
        return Sent({}, _refused(write, write.members, rejection_code(error), error.message, filed=False))

    async def _halves(self, write: Write) -> Sent:
        first, second = write.split()
        return await self._write(first) + await self._write(second)

    def _booked(self, write: Write, landed: int = 0) -> Tally:
        log.info("bridge.step.committed", kind=write.kind.value, scope=write.scope, records=len(write.members))
        requests = Tally(requests=Counter({write.kind: len(write.members) - landed if write.fanout else 1}))
        fate = FATES.get(write.counts_as)
        return requests if fate is None else requests + Tally.of(write.kind, fate, len(write.members))

    def _count(self, write: Write, landed: int) -> Sent:
        # A PATCH keeps the id it patches: a placeholder there would change every body that refers to it (a
        # renamed project's transactions would all look changed) and the plan would predict updates the run
        # never makes.
        ids = list(write.known_ids) or [placeholder_id(write, member) for member in write.members]
        self.books.remember(write, ids)
        # A fan-out's entries found on the target past key retention are booked, not sent (as in a run).
        return Sent(dict(zip(write.members, ids, strict=True)), self._booked(write, landed))
