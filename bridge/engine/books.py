"""The engine's view of the state file: journal transitions, crosswalk lookups and quarantine, with a cache.

The crosswalk is read once when a run starts and kept in memory (kind, scope, legacy id -> v1 id and source
hash), so the mappings' lookups and the change detection never touch SQLite on the hot path; every completion
writes through to the file first and to the cache after the commit. A dry run uses the same books without
writing: records it would create get placeholder ids in the cache only.

Scopes: the mappings say ``"workspace"`` for workspace-wide records, the state file says ``""``; this module is
the one place that converts.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor

from bridge.engine.groupcommit import GroupCommit
from bridge.engine.kinds import KindSpec, crosswalk_kind
from bridge.engine.plan import QuarantinedRecord
from bridge.engine.writes import Write
from mappings.refs import WORKSPACE
from state.crosswalk import Crosswalk, CrosswalkEntry
from state.db import Database
from state.journal import IntentSpec, Journal
from state.quarantine import Quarantine, QuarantineEntry


def compact(digest: str) -> bytes:
    """A source hash as kept in memory: its first 128 bits as bytes (a third of the hex text's size; a large
    workspace keeps a quarter of a million of them)."""
    return bytes.fromhex(digest[:32]) if digest else b""


def state_scope(scope: str) -> str:
    """The state file's scope for a mappings scope."""
    return "" if scope == WORKSPACE else scope


def engine_scope(scope: str) -> str:
    """The mappings' scope for a state file scope."""
    return WORKSPACE if scope == "" else scope


class Books:
    """Journal, crosswalk and quarantine of one run, behind the few calls the executor makes."""

    def __init__(self, database: Database, run_id: int | None, *, track: bool = False) -> None:
        self.database = database
        # (scope, crosswalk kind, v1 id) of every record the run wrote or booked, when ``track`` (bridge mode
        # reads them back).
        self.written: set[tuple[str, str, str]] | None = set() if track else None
        self.run_id = run_id
        self.journal = Journal(database)
        self.crosswalk = Crosswalk(database)
        self.quarantine_file = Quarantine(database)
        # One writer thread for every state write of the run: SQLite has one write lock, and two threads of
        # this process waiting on each other would only add busy-timeout stalls.
        self._writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="state-writer")
        self._pending: list[Future[None]] = []
        self._records: GroupCommit[IntentSpec, str] = GroupCommit(self.journal.record_many, self._writer)
        self._completions: GroupCommit[tuple[str, Sequence[CrosswalkEntry]], str] = GroupCommit(
            self.journal.complete_many, self._writer
        )
        # Per scope (the workspace, or one legacy project): (kind, legacy id) -> (v1 id, compact source hash).
        # A project's entries are loaded when its pipeline first looks one up and dropped when it is done
        # (``forget``): nothing outside a project refers to its lines or transactions, and a `large` workspace
        # would otherwise keep a quarter of a million entries in memory.
        self._scopes: dict[str, dict[tuple[str, str], tuple[str, bytes]]] = {}

    def _scope(self, scope: str) -> dict[tuple[str, str], tuple[str, bytes]]:
        entries = self._scopes.get(scope)
        if entries is None:
            rows = self.crosswalk.mappings(state_scope(scope))
            entries = {(sys.intern(kind), legacy): (v1_id, compact(digest)) for kind, legacy, v1_id, digest in rows}
            self._scopes[scope] = entries
        return entries

    def forget(self, scope: str) -> None:
        """Drop a finished project's entries from memory (they stay in the state file)."""
        self._scopes.pop(scope, None)

    def _put(self, kind: str, scope: str, legacy_id: str, v1_id: str, digest: str) -> None:
        self._scope(scope)[(kind, legacy_id)] = (v1_id, compact(digest))
        if self.written is not None:
            self.written.add((scope, kind, v1_id))

    # Lookups (the mappings' Lookup signature) and change detection.

    def lookup(self, kind: str, scope: str, legacy_id: str) -> str | None:
        # The mappings' hot path (a hundred thousand calls in a medium run): a loaded scope without the call.
        entries = self._scopes.get(scope)
        found = (self._scope(scope) if entries is None else entries).get((kind, legacy_id))
        return found[0] if found else None

    def unchanged(self, kind: str, scope: str, legacy_id: str, digest: str) -> bool:
        """Whether the record was last written with this source hash."""
        found = self._scope(scope).get((kind, legacy_id))
        return found is not None and found[1] == compact(digest)

    def stamp(self, scope: str) -> str:
        """``scope``'s crosswalk stamp in the state file: another one means its entries changed in between (by
        this process or another), without reading them."""
        return self.crosswalk.stamp(state_scope(scope))

    def parent(self, declared: KindSpec, scope: str, legacy_id: str) -> str | None:
        """The v1 id of the record a record of ``declared`` hangs on (``KindSpec.parent_of``: a split item's
        transaction, a document's record); None when the kind hangs on none or the crosswalk knows it not."""
        if declared.parent_of is None:
            return None
        return self.lookup(crosswalk_kind(declared.needs[0]), scope, declared.parent_of(legacy_id))

    def legacy_ids(self, kind: str, scope: str) -> set[str]:
        """The legacy ids of ``kind`` in ``scope`` that have a v1 id (from this run or an earlier one)."""
        return {legacy_id for (known, legacy_id) in self._scope(scope) if known == kind}

    def v1_ids(self, kind: str, scope: str) -> set[str]:
        """The v1 ids the crosswalk names for ``kind`` in ``scope``."""
        return {v1_id for (known, _), (v1_id, _) in self._scope(scope).items() if known == kind}

    def known(self, write: Write) -> dict[str, str]:
        """Members of ``write`` that already have v1 ids."""
        found = {m: self.lookup(crosswalk_kind(write.kind), write.scope, m) for m in write.members}
        return {m: v for m, v in found.items() if v is not None}

    def remember(self, write: Write, ids: Sequence[str], derived: Sequence[tuple[str, str]] = ()) -> None:
        """Put ids in the cache only (the dry run's placeholders), with the derived entries of its one member."""
        for member, digest, v1_id in zip(write.members, write.hashes, ids, strict=True):
            self._put(crosswalk_kind(write.kind), write.scope, member, v1_id, digest)
        for kind, v1_id in derived:
            self._put(kind, write.scope, write.members[0], v1_id, "")

    async def adopt(
        self,
        write: Write,
        ids: Mapping[str, str],
        hashes: Mapping[str, str],
        derived: Sequence[tuple[str, str]],
        *,
        durable: bool,
    ) -> None:
        """Book records of ``write`` found on the target (``engine.adopt``): no intent, as nothing is sent, only
        crosswalk entries; ``durable`` False (a dry run) keeps them in the cache alone."""
        kind, scope = crosswalk_kind(write.kind), state_scope(write.scope)
        entries = [CrosswalkEntry(kind, member, v1_id, scope, hashes[member]) for member, v1_id in ids.items()]
        entries += [CrosswalkEntry(other, write.members[0], v1_id, scope) for other, v1_id in derived]
        if durable:
            await asyncio.get_running_loop().run_in_executor(
                self._writer, lambda: self.crosswalk.put(entries, run_id=self.run_id)
            )
        for entry in entries:
            self._put(entry.kind, write.scope, entry.legacy_id, entry.v1_id, entry.source_hash)

    async def rebook(self, kind: str, scope: str, legacy_id: str, v1_id: str, digest: str) -> None:
        """A record brought up to date by requests of its own (a purchase order's header and items: no one of
        them is the record's state): its entry now holds ``digest``, the source hash the next run compares."""
        entry = CrosswalkEntry(kind, legacy_id, v1_id, state_scope(scope), digest)
        await asyncio.get_running_loop().run_in_executor(
            self._writer, lambda: self.crosswalk.put([entry], run_id=self.run_id)
        )
        self._put(kind, scope, legacy_id, v1_id, digest)

    async def drop(self, kind: str, scope: str, legacy_id: str) -> None:
        """Forget a record whose v1 object the run deleted, in the file and the cache."""
        self._scope(scope).pop((kind, legacy_id), None)
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(self._writer, self.crosswalk.remove, kind, legacy_id, state_scope(scope))

    # Journal transitions.

    def _spec(self, write: Write) -> IntentSpec:
        return IntentSpec(
            step_key=write.step_key,
            kind=write.kind.value,
            method=write.method,
            path=write.path,
            operation=write.operation,
            # Keyless writes (PATCH, project-library adds) are naturally idempotent; the step key stands in.
            idempotency_key=write.key or write.step_key,
            body=write.body_text,
            members=write.members,
            scope=state_scope(write.scope),
            run_id=self.run_id,
        )

    # Each transition waits for its own commit, but concurrent ones share a transaction (``GroupCommit``):
    # one fsync per batch, in a worker thread, so requests keep flowing while the disk syncs.

    async def record(self, write: Write) -> str:
        """Journal ``write`` as pending (or find it journalled); returns its status.

        There is no separate ``sent`` mark: a pending intent is replayed on resume whether or not it left,
        which the Idempotency-Key makes safe, and one fsync fewer per write is a third of the journal's cost.
        """
        return await self._records.submit(self._spec(write))

    async def complete(self, write: Write, ids: Sequence[str], derived: Sequence[tuple[str, str]]) -> None:
        """Crosswalk entries and the intent's completion in one transaction (shared with others), then the cache."""
        scope = state_scope(write.scope)
        entries = [
            CrosswalkEntry(crosswalk_kind(write.kind), member, v1_id, scope, digest)
            for member, digest, v1_id in zip(write.members, write.hashes, ids, strict=True)
        ]
        entries += [CrosswalkEntry(kind, write.members[0], v1_id, scope) for kind, v1_id in derived]
        await self._completions.submit((write.step_key, entries))
        self.remember(write, ids, derived)

    async def aclose(self) -> None:
        """Let the batches and the quarantine entries in flight commit, then stop the writer thread."""
        await self._records.aclose()
        await self._completions.aclose()
        for pending in self._pending:
            await asyncio.wrap_future(pending)
        self._writer.shutdown(wait=True)

    async def complete_partly(self, write: Write, ids: dict[str, str], refused: Sequence[QuarantinedRecord]) -> None:
        """A fan-out's outcome: ids of the entries that went through, quarantine for the refused ones."""
        scope = state_scope(write.scope)
        kind = crosswalk_kind(write.kind)
        hashes = dict(zip(write.members, write.hashes, strict=True))
        entries = [CrosswalkEntry(kind, member, v1_id, scope, hashes[member]) for member, v1_id in ids.items()]
        if refused:
            await asyncio.get_running_loop().run_in_executor(
                self._writer, lambda: self.quarantine_file.add([_entry(r) for r in refused], run_id=self.run_id)
            )
        await self._completions.submit((write.step_key, entries))
        for member, v1_id in ids.items():
            self._put(kind, write.scope, member, v1_id, hashes[member])

    async def fail(self, write: Write, code: str, request_id: str | None) -> None:
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(self._writer, self.journal.fail, write.step_key, code, request_id)

    async def quarantine(self, write: Write, records: Sequence[QuarantinedRecord], request_id: str | None) -> None:
        """File the refused records and close the intent as quarantined, in one transaction."""
        entries = [_entry(r) for r in records]
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(self._writer, self.journal.quarantine, write.step_key, entries, request_id)

    def quarantine_unsent(self, records: Sequence[QuarantinedRecord]) -> None:
        """File records the mappings refused before any request was built (never journalled).

        Queued on the writer thread without waiting: nothing depends on it before the run ends (a resumed
        run maps the same records again), and ``aclose`` waits for it.
        """
        if records:
            entries = [_entry(r) for r in records]
            self._pending.append(self._writer.submit(self.quarantine_file.add, entries, run_id=self.run_id))


def _entry(record: QuarantinedRecord) -> QuarantineEntry:
    return QuarantineEntry(
        kind=record.kind,
        legacy_id=record.legacy_id,
        code=record.code,
        message=record.message,
        scope=state_scope(record.scope),
        field=record.field,
    )
