"""One project's actuals: transactions 500 per bulk, and each bulk's split items right behind it.

Legacy actuals are read in date windows and mapped one by one. New ones go out 500 per transaction bulk
while the next windows are read; as soon as a bulk is booked, the split parts of its actuals go out as
fan-outs (they need the transactions' v1 ids, nothing else), so the items of one bulk travel while the next
bulk is read and sent. At most BULKS_IN_FLIGHT bulks (each with its items) are on their way at once, so
reading never runs ahead of writing and memory holds a few bulks, not a project's actuals.

An actual the crosswalk already knows is patched in place (A40) when its source changed, and its missing
split parts, if any, are sent at the end.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from datetime import date
from typing import Unpack

from bridge.clients.v1_requests import BY_ID
from bridge.engine.apply import Target, refused, removed
from bridge.engine.bank_files import BankFeed, carried_with
from bridge.engine.kinds import spec
from bridge.engine.plan import Fate, Tally, total
from bridge.engine.project_step import ProjectStep, ProjectTools
from bridge.engine.tasks import run_all, task_group
from bridge.engine.wanted import Desired, JsonObject
from bridge.engine.writes import Write
from mappings.actuals import MappedActual, TransactionItem, item_patch, map_actual, part_ids
from mappings.errors import MappingError
from mappings.keys import source_hash
from mappings.kinds import Kind
from mappings.records import Actual, File, Phase
from mappings.results import Mapped

# Legacy actuals are read in date windows over this span around today; the client's open-ended edge reads
# catch anything dated before or after it, so the span only decides how many windows a read takes.
ACTUALS_YEARS_BACK = 6
ACTUALS_YEARS_AHEAD = 2
# A date window of the legacy actuals read holds at most this many rows (the client halves busier windows):
# memory holds one window per project in flight, at the price of a few more reads on a busy project.
ACTUALS_WINDOW_ROWS = 1000
# Rows read while the lines are written: one window at most, so memory still holds one per project in flight.
READ_AHEAD_ROWS = ACTUALS_WINDOW_ROWS
BULKS_IN_FLIGHT = 4
# Mapping is CPU work between awaits: without a pause the loop mapped a whole bulk (500 actuals, 20-70 ms) while
# the answers of the split items in flight waited, and each of them was held that long.
YIELD_EVERY = 50
TRANSACTIONS = spec(Kind.ACTUAL)
ITEMS = spec(Kind.SPLIT)
SplitParts = tuple[str, tuple[Mapped[TransactionItem], ...]]


def actual_currency(phases: Sequence[Phase]) -> str:
    """Actuals are in the first phase's currency (HELP currency article); USD when no phase names one (A09)."""
    for phase in phases:
        if phase.currency is not None and phase.currency.code:
            return phase.currency.code
    return "USD"


class ReadAhead:
    """A project's actuals read: its first rows read early (``fill``), while the project's budget lines are
    written (mapping an actual needs its line's v1 id, reading it does not), then the rest (``rows``).

    Its first transaction bulk then leaves as soon as the lines are booked: reading a window, halved when busy,
    took a project 0.3-0.6 s after its last line bulk, while the run's requests in flight ran low.
    """

    def __init__(self, rows: AsyncIterator[Actual]) -> None:
        self._rows = rows
        self._first: list[Actual] = []

    async def fill(self) -> Tally:
        """Read up to ``READ_AHEAD_ROWS`` rows; nothing is written (an empty tally)."""
        async for actual in self._rows:
            self._first.append(actual)
            if len(self._first) == READ_AHEAD_ROWS:
                break  # the read stays where it stopped: ``rows`` goes on from there
        return Tally()

    async def rows(self) -> AsyncIterator[Actual]:
        """The rows read ahead, then the rest of the read."""
        first, self._first = self._first, []
        for actual in first:
            yield actual
        async for actual in self._rows:
            yield actual


class ActualsStep(ProjectStep):
    """Writes one project's actuals and their split parts, after its budget lines, and keeps the files that
    hang on them (their receipts, ``attached``; their bank transactions' files, ``banked``) for the documents
    step."""

    def __init__(self, *, feed: BankFeed, **tools: Unpack[ProjectTools]) -> None:
        super().__init__(**tools)
        self.feed = feed
        # Per project: (legacy actual id, its receipts) of each actual read that has any: a few bytes per file.
        self.attached: dict[str, list[tuple[str, tuple[File, ...]]]] = {}
        # Per project: (legacy actual id, the files of its bank transaction it does not hold itself, A102).
        self.banked: dict[str, list[tuple[str, tuple[File, ...]]]] = {}

    def read_ahead(self, project_id: str) -> ReadAhead:
        """The project's actuals read, to be started early (``ReadAhead.fill``) and handed to ``run``."""
        return ReadAhead(self._rows(project_id))

    def _rows(self, project_id: str) -> AsyncIterator[Actual]:
        today = date.today()
        start = today.replace(year=today.year - ACTUALS_YEARS_BACK, day=1)
        end = today.replace(year=today.year + ACTUALS_YEARS_AHEAD, day=28)
        _reader, rows = self.legacy.actuals(project_id, start, end, max_rows=ACTUALS_WINDOW_ROWS)
        return rows

    async def count(self, project_id: str, fate: Fate = Fate.HELD_BACK) -> Tally:
        """The actuals, split parts and receipts the project holds, as ``fate`` (read, not mapped: for a
        held-back project, or actuals left out by the operator)."""
        actuals = splits = receipts = banked = 0
        async for actual in self._rows(project_id):
            actuals += 1
            splits += len(actual.subactuals)
            receipts += len(actual.attachments)
            banked += len(carried_with(actual, await self.feed.files()))
        held = Tally.of(Kind.ACTUAL, fate, actuals) + Tally.of(Kind.SPLIT, fate, splits)
        return held + Tally.of(Kind.RECEIPT, fate, receipts) + Tally.of(Kind.BANK_FILE, fate, banked)

    async def run(self, project_id: str, v1_project: str, currency: str, read: ReadAhead) -> Tally:
        fresh: list[MappedActual] = []
        # Split parts of actuals the crosswalk already knows: only their ids and parts, sent at the end.
        known_splits: list[SplitParts] = []
        seen_actuals: set[str] = set()
        seen_splits: set[str] = set()
        room = asyncio.Semaphore(BULKS_IN_FLIGHT)
        done = Tally()
        attached = self.attached.setdefault(project_id, [])
        banked = self.banked.setdefault(project_id, [])

        async def send(part: list[MappedActual]) -> Tally:
            try:
                sent = await self._transactions(project_id, part)
                splits = [(m.transaction.ref.legacy_id, m.items) for m in part if m.items]
                return sent + await self._split_items(project_id, splits)
            finally:
                room.release()

        sends: list[asyncio.Task[Tally]] = []
        async with task_group() as group:
            async for actual in read.rows():
                if len(seen_actuals) % YIELD_EVERY == 0:
                    await asyncio.sleep(0)
                seen_actuals.add(actual.id)
                self.applier.listed(Kind.ACTUAL, 1)
                self.applier.listed(Kind.SPLIT, len(actual.subactuals))
                if actual.attachments:
                    attached.append((actual.id, actual.attachments))
                if bank_files := carried_with(actual, await self.feed.files()):
                    banked.append((actual.id, bank_files))
                try:
                    mapped = map_actual(project_id, v1_project, actual, currency, self.books.lookup)
                except MappingError as error:
                    seen_splits.update(part_ids(actual))  # held back with their actual, not removed
                    held = Tally.of(Kind.SPLIT, Fate.HELD_BACK, len(actual.subactuals))
                    done += refused(Kind.ACTUAL, [error]) + held
                    continue
                seen_splits.update(item.ref.legacy_id for item in mapped.items)
                if self.books.lookup(Kind.ACTUAL, project_id, actual.id) is not None:
                    done += await self._existing_actual(project_id, mapped)
                    if mapped.items:
                        known_splits.append((mapped.transaction.ref.legacy_id, mapped.items))
                    continue
                fresh.append(mapped)
                if len(fresh) == BY_ID[TRANSACTIONS.create].bulk_limit:
                    await room.acquire()
                    sends.append(group.create_task(send(fresh)))
                    fresh = []
            if fresh:
                await room.acquire()
                sends.append(group.create_task(send(fresh)))
        done += total(task.result() for task in sends)
        done += await self._split_items(project_id, known_splits)
        done += await self.applier.removed(Target(TRANSACTIONS, project_id), seen_actuals)
        return done + removed(self.books, Kind.SPLIT, project_id, seen_splits)

    async def _existing_actual(self, project_id: str, mapped: MappedActual) -> Tally:
        # A40: a manual transaction's fields are patched in place (transactions_update).
        desired = Desired(mapped.transaction.ref.legacy_id, dict(mapped.transaction.body))
        return await self.applier.update(Target(TRANSACTIONS, project_id), desired)

    async def _transactions(self, project_id: str, part: Sequence[MappedActual]) -> Tally:
        members = tuple(m.transaction.ref.legacy_id for m in part)
        body: JsonObject = {"transactions": [dict(m.transaction.body) for m in part]}
        write = Write(Kind.ACTUAL, project_id, TRANSACTIONS.create, (), body, members)
        write = write.keyed(self.namespace, TRANSACTIONS.keyed_as)
        return (await self.executor.write(write)).tally

    async def _split_items(self, project_id: str, splits: Sequence[SplitParts]) -> Tally:
        """Split parts as fan-outs of whole actuals (a transaction's items stay in one fan-out, in order)."""
        fan_out = BY_ID[ITEMS.create].fan_out
        assert fan_out is not None  # split items have no bulk: they go out as one intent of many requests
        groups: list[list[tuple[str, JsonObject]]] = [[]]
        standing = Tally()
        known: list[tuple[str, Desired]] = []
        for actual_id, items in splits:
            transaction = self.books.lookup(Kind.ACTUAL, project_id, actual_id)
            if transaction is None:
                # The transaction was quarantined: its parts stay with it.
                standing += Tally.of(Kind.SPLIT, Fate.HELD_BACK, len(items))
                continue
            missing: list[tuple[str, JsonObject]] = []
            for item in items:
                if self.books.lookup(Kind.SPLIT, project_id, item.ref.legacy_id) is None:
                    entry: JsonObject = {fan_out.param: transaction, fan_out.body: dict(item.body)}
                    missing.append((item.ref.legacy_id, entry))
                else:
                    # A part already on v1 is patched in place when its source changed (transactions_updateItem).
                    known.append((transaction, self._known_part(project_id, item)))
            if missing and len(groups[-1]) + len(missing) > fan_out.limit:
                groups.append([])
            groups[-1].extend(missing)
        updates = (self.applier.update(Target(ITEMS, project_id, (t,)), desired) for t, desired in known)
        standing += total(await run_all(updates))
        return standing + total(await run_all(self._fan_out(project_id, group) for group in groups if group))

    def _known_part(self, project_id: str, item: Mapped[TransactionItem]) -> Desired:
        """A part on v1 as it should stay: as created when its create body is unchanged, else the full state
        a PATCH brings it to, a detail the source dropped cleared (its hash is then the one the PATCH keeps)."""
        body = dict(item.body)
        if self.books.unchanged(ITEMS.stored, project_id, item.ref.legacy_id, source_hash(body)):
            return Desired(item.ref.legacy_id, body)
        return Desired(item.ref.legacy_id, body, state=item_patch(item.body))

    async def _fan_out(self, project_id: str, group: Sequence[tuple[str, JsonObject]]) -> Tally:
        members = tuple(legacy_id for legacy_id, _ in group)
        fan_out = BY_ID[ITEMS.create].fan_out
        assert fan_out is not None
        body: JsonObject = {fan_out.list_field: [entry for _, entry in group]}
        write = Write(Kind.SPLIT, project_id, ITEMS.create, (), body, members)
        write = write.keyed(self.namespace, ITEMS.keyed_as)
        return (await self.executor.write(write)).tally
