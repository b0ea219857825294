"""One project's actuals, compared a window at a time: sums, differences and the ledger's counts, not records.

The v1 transactions of the project are listed page by page first; each becomes a row of a ``TargetIndex``
(its id, natural key, amount, currency and line as one number), its split items rows of another, its amount
goes into a sum per currency and its day into a count per day. Then the legacy actuals are read in date
windows planned from those days, each to hold about ``ACTUALS_WINDOW_ROWS`` of them (the days v1 holds
nothing for, before and after, in two open-ended reads); each window's ids are looked up in the crosswalk
at once, compared with the index, counted in the ledger and let go. What stays is what the report shows: the
sums, the transactions that differ, the quarantined actuals (what they add explains totals) and, per kind,
the ledger's counts and lists.

The windows are planned, not grown as a run's read grows them (``legacy_actuals``, what a project with no v1
transactions is read with): that read finds a dense month by reading it whole, then again in parts, and one
such answer held a third of a project's actuals at once. The windows only cut the legacy list where v1's
days say it is even: every legacy actual falls in exactly one of them whatever v1 holds, so a legacy side
unlike v1 makes a window larger, never an actual lost. Like any read of a source being edited, an actual
whose date changes between two windows' reads may be seen twice or not at all.

A v1 object no source record claimed is found again by reading the transactions a second time, only when
there is one: the index keeps no id text, and the crosswalk says whether such an object is a stray, and which
migrated object it duplicates.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import AsyncIterator, Mapping
from contextlib import suppress
from dataclasses import dataclass, field
from datetime import date, timedelta
from decimal import Decimal

from bridge.clients.legacy import LegacyClient
from bridge.clients.legacy_actuals import ActualsReader, day_end, day_start, total_amount
from bridge.clients.v1 import V1Client
from bridge.engine.actuals import ACTUALS_WINDOW_ROWS, ACTUALS_YEARS_AHEAD, ACTUALS_YEARS_BACK
from bridge.errors import UnexpectedResponse
from bridge.verify.convert import as_counted
from bridge.verify.drill import Presence
from bridge.verify.findings import Ledgers
from bridge.verify.heldback import HeldCount, RecordKey, held_back
from bridge.verify.index import Held, TargetIndex, key_of
from bridge.verify.ledger import KindTally, TargetObject, source_label
from bridge.verify.schema import Duplicate, LibraryDifference, TransactionDifference
from bridge.verify.split_parts import ItemDetails
from bridge.verify.targets import item_targets, transaction_target
from bridge.verify.transactions import LineLookup, transaction_difference, unclaimed_transaction
from mappings.actuals import part_ids
from mappings.inventory import Stock
from mappings.kinds import Kind
from mappings.records import Actual, File
from mappings.shapes import parse_row, without_duplicates
from state.crosswalk import Crosswalk

CHUNK = 500
"""Legacy actuals looked up in the crosswalk at once: one query per kind, and at most this many held."""
STREAMED = (Kind.ACTUAL, Kind.SPLIT)
"""The kinds compared a window at a time: never held in memory whole, the crosswalk's entries included."""


@dataclass(frozen=True, slots=True)
class Context:
    """What one project's actuals are compared in: the state file's identities and what stands above them."""

    project_id: str
    crosswalk: Crosswalk
    quarantine: Mapping[RecordKey, str]
    chain: Mapping[RecordKey, RecordKey]
    """The project's own parent links upward (the project's space): what may hold its actuals back."""
    migrated_above: frozenset[RecordKey]
    """Those of the project and its ancestors that reached v1."""
    line_copy: LineLookup
    currency: str
    """The legacy actuals' currency (the first phase's)."""
    latest_run: str | None


@dataclass(slots=True)
class Target:
    """A project's transactions and their split items as v1 lists them, and the sums per currency."""

    transactions: TargetIndex = field(default_factory=TargetIndex)
    items: TargetIndex = field(default_factory=TargetIndex)
    sums: dict[str, tuple[int, int]] = field(default_factory=dict)
    """currency -> (transactions, total in minor units)."""
    days: Counter[date] = field(default_factory=Counter)
    """Transactions per day of their timestamp: where the legacy list is cut into windows."""
    details: ItemDetails = field(default_factory=ItemDetails)
    """The split items' line labels, quantities, units and rates (``split_parts``)."""

    def index(self, kind: Kind) -> TargetIndex:
        return self.transactions if kind is Kind.ACTUAL else self.items


@dataclass(frozen=True, slots=True)
class ActualsFound:
    """What one project's actuals came to: the legacy sums, the v1 sums, the differences and the ledger."""

    count: int
    total_amount: Decimal
    """The legacy surface's ``totalAmount``, summed over the windows read."""
    held_back: Decimal
    """What the quarantined actuals add, as the legacy surface counts them (A39)."""
    quarantined: tuple[Actual, ...]
    v1_sums: Mapping[str, tuple[int, int]]
    transactions: tuple[TransactionDifference, ...]
    ledgers: Ledgers
    # What the source holds beyond the kinds a run writes (``engine.inventory``).
    stock: tuple[Stock, ...] = ()
    # Split parts whose v1 item holds another line label, quantity, unit or rate (``split_parts``).
    parts: tuple[LibraryDifference, ...] = ()
    # (legacy actual id, its receipts) of each actual read that has any, for the documents' ledger.
    attached: tuple[tuple[str, tuple[File, ...]], ...] = ()
    # The actuals read that name the bank transaction they came from: its files are documents too (A102).
    banked: tuple[Actual, ...] = ()


async def list_target(v1: V1Client, v1_project_id: str, project_id: str) -> Target:
    """The project's transactions, page by page, into the indexes and the sums."""
    target = Target()
    sums: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    async for transaction in v1.transactions(v1_project_id):
        money = transaction.amount
        held = Held(money.amount, money.currency, transaction.budget_line_id)
        target.transactions.add(transaction.id, transaction_target(project_id, transaction).natural_key, held)
        for item in item_targets(project_id, transaction):
            target.items.add(item.v1_id, item.natural_key)
        target.details.add((transaction.model_extra or {}).get("items"))
        sums[money.currency][0] += 1
        sums[money.currency][1] += money.amount
        stamp = (transaction.model_extra or {}).get("timestamp")
        with suppress(ValueError):
            day = date.fromisoformat(str(stamp)[:10])
            # The first and last day a date can hold leave no room for the open-ended reads around the windows.
            if date.min < day < date.max:
                target.days[day] += 1
    target.transactions.seal()
    target.items.seal()
    target.sums = {currency: (count, total) for currency, (count, total) in sums.items()}
    return target


def legacy_actuals(legacy: LegacyClient, project_id: str) -> tuple[ActualsReader, AsyncIterator[Actual]]:
    """The project's legacy actuals as a run reads them, in windows grown from a month over the span it reads
    (the client's edge reads catch the rest); the reader's ``summary`` sums each window's ``totalAmount``."""
    today = date.today()
    start = today.replace(year=today.year - ACTUALS_YEARS_BACK, day=1)
    end = today.replace(year=today.year + ACTUALS_YEARS_AHEAD, day=28)
    return legacy.actuals(project_id, start, end, max_rows=ACTUALS_WINDOW_ROWS)


async def compare_actuals(
    legacy: LegacyClient, v1: V1Client | None, v1_project_id: str | None, context: Context
) -> ActualsFound:
    """The project's actuals on both sides; ``v1`` None when it has no v1 project (nothing listed on v1)."""
    target = await list_target(v1, v1_project_id, context.project_id) if v1 and v1_project_id else None
    comparison = _Comparison(context, target)
    total = Decimal(0)
    if target is not None and target.days:
        async for actuals, window_total in planned_windows(legacy, context.project_id, target.days):
            comparison.window(actuals)
            total += window_total
    else:
        reader, rows = legacy_actuals(legacy, context.project_id)
        chunk: list[Actual] = []
        async for actual in rows:
            chunk.append(actual)
            if len(chunk) == CHUNK:
                comparison.window(chunk)
                chunk = []
        comparison.window(chunk)
        total = reader.summary.total_amount
    if v1 and v1_project_id and target and (target.transactions.unclaimed or target.items.unclaimed):
        await comparison.unclaimed(v1, v1_project_id, target)
    return comparison.found(total)


def windows_by_day(days: Counter[date], max_rows: int) -> list[tuple[date, date]]:
    """The days from the first to the last of ``days`` as consecutive windows of at most ``max_rows`` counted
    rows each (a day counting more is a window of its own), then the open-ended days before and after."""
    windows: list[tuple[date, date]] = []
    ordered = sorted(days)
    start, count = ordered[0], 0
    for day in ordered:
        if count + days[day] > max_rows and start < day:
            windows.append((start, day - timedelta(days=1)))
            start, count = day, 0
        count += days[day]
    windows.append((start, ordered[-1]))
    return [(date.min, ordered[0] - timedelta(days=1)), *windows, (ordered[-1] + timedelta(days=1), date.max)]


async def planned_windows(
    legacy: LegacyClient, project_id: str, days: Counter[date]
) -> AsyncIterator[tuple[list[Actual], Decimal]]:
    """The project's legacy actuals a window at a time (windows by ``windows_by_day``), with each window's
    ``totalAmount``; read as the migration reads them: a row its type refuses stays as a refused record."""
    path = f"/projects/{project_id}/actuals"
    read = 0
    for first, last in windows_by_day(days, ACTUALS_WINDOW_ROWS):
        # date.min / date.max stand for an open end: that bound is left out of the query.
        params = [("startDate", day_start(first))] if first != date.min else []
        params += [("endDate", day_end(last))] if last != date.max else []
        body, rid = await legacy.get_json(path, [*params, ("expands[]", "subactual")])
        rows = body.get("actuals") if isinstance(body, dict) else None
        if not isinstance(rows, list):
            raise UnexpectedResponse(f"legacy GET {path} answered without an 'actuals' array", request_id=rid)
        parsed = [parse_row(Actual, row, Kind.ACTUAL, project_id, index=n) for n, row in enumerate(rows, read)]
        read += len(rows)
        yield without_duplicates(parsed, Kind.ACTUAL, project_id), total_amount(body)


class _Comparison:
    """One project's actuals as they are compared (one task's own, folded into ``ActualsFound`` at the end)."""

    def __init__(self, context: Context, target: Target | None) -> None:
        self.context = context
        self.target = target
        self.count = 0
        self.held_amount = Decimal(0)
        self.quarantined: list[Actual] = []
        self.differences: list[TransactionDifference] = []
        self.unexpected: list[TransactionDifference] = []
        self.parts: list[LibraryDifference] = []
        self.tallies = {kind: KindTally(checked=target is not None) for kind in STREAMED}
        self.held = HeldCount()
        self.attached: list[tuple[str, tuple[File, ...]]] = []
        self.banked: list[Actual] = []

    def window(self, actuals: list[Actual]) -> None:
        """A window's actuals: looked up in the crosswalk together, then compared and counted one by one."""
        if not actuals:
            return
        scope = self.context.project_id
        parts = {actual.id: part_ids(actual) for actual in actuals}
        ids = {
            Kind.ACTUAL: [actual.id for actual in actuals],
            Kind.SPLIT: [part for found in parts.values() for part in found],
        }
        copies = {kind: self.context.crosswalk.lookup_many(kind, ids[kind], scope) for kind in STREAMED}
        project: RecordKey = (Kind.PROJECT, "", scope)
        parents: dict[RecordKey, RecordKey] = dict(self.context.chain)
        for actual in actuals:
            parents[Kind.ACTUAL, scope, actual.id] = project
            parents.update({(Kind.SPLIT, scope, part): (Kind.ACTUAL, scope, actual.id) for part in parts[actual.id]})
        records = [(kind, scope, legacy_id) for kind in STREAMED for legacy_id in ids[kind]]
        migrated = {(kind, scope, legacy_id) for kind in STREAMED for legacy_id in copies[kind]}
        held = held_back(records, parents, migrated | self.context.migrated_above, self.context.quarantine)
        self.held += HeldCount.of(held, self.context.quarantine)
        for kind in STREAMED:
            self._count(kind, ids[kind], copies[kind], {key[2]: by.label for key, by in held.items() if key[0] == kind})
        for actual in actuals:
            self._actual(actual, copies[Kind.ACTUAL].get(actual.id), copies[Kind.SPLIT])
            if actual.attachments:
                self.attached.append((actual.id, actual.attachments))
            if actual.transaction_id:
                self.banked.append(actual)

    def _count(self, kind: Kind, legacy_ids: list[str], copies: Mapping[str, str], held: Mapping[str, str]) -> None:
        """The ledger's buckets and set check for a window's records of one kind."""
        scope = self.context.project_id
        index = self.target.index(kind) if self.target else None
        pending = ok = 0
        missing: list[str] = []
        for legacy_id in legacy_ids:
            if legacy_id in held or (kind, scope, legacy_id) in self.context.quarantine:
                continue  # counted from the quarantine and the held-back labels, never expected on v1
            v1_id = copies.get(legacy_id)
            pending += v1_id is None
            position = index.find(v1_id) if index is not None and v1_id is not None else None
            if position is None:
                missing.append(source_label((scope, legacy_id)))
                continue
            ok += 1
            if index is not None:
                index.claim(position)
        self.tallies[kind] += KindTally(
            source=len(legacy_ids),
            held_back=Counter(held.values()),
            pending=pending,
            ok=ok,
            missing=tuple(missing),
            checked=index is not None,
        )

    def _actual(self, actual: Actual, v1_id: str | None, part_copies: Mapping[str, str]) -> None:
        self.count += 1
        if (Kind.ACTUAL, self.context.project_id, actual.id) in self.context.quarantine:
            self.held_amount += as_counted(actual.amount)
            self.quarantined.append(actual)
            return
        if v1_id is None or self.target is None:
            return  # not migrated yet (the ledger counts it pending), or no v1 project to compare with
        position = self.target.transactions.find(v1_id)
        found = self.target.transactions.held(position) if position is not None else None
        difference = transaction_difference(actual, v1_id, found, self.context.line_copy, self.context.currency)
        if difference is not None:
            self.differences.append(difference)
        self.parts += self.target.details.differences(actual, part_copies)

    async def unclaimed(self, v1: V1Client, v1_project_id: str, target: Target) -> None:
        """Read the transactions again for the objects no source record claimed, and their twins."""
        scope = self.context.project_id
        wanted = {kind: target.index(kind).unclaimed_keys() for kind in STREAMED}
        seen: dict[Kind, list[TargetObject]] = {kind: [] for kind in STREAMED}
        async for transaction in v1.transactions(v1_project_id):
            listed = {
                Kind.ACTUAL: [transaction_target(scope, transaction)],
                Kind.SPLIT: item_targets(scope, transaction),
            }
            for kind in STREAMED:
                seen[kind] += [o for o in listed[kind] if key_of(o.natural_key) in wanted[kind]]
            if not target.transactions.is_claimed(transaction.id):
                self.unexpected.append(unclaimed_transaction(transaction, self.context.currency))
        # One the crosswalk maps was written for an actual the source no longer holds: left on v1 by design.
        gone = self.context.crosswalk.legacy_of(Kind.ACTUAL, [d.v1_id for d in self.unexpected if d.v1_id], scope)
        self.unexpected = [
            d.model_copy(update={"legacy_id": gone[d.v1_id], "presence": Presence.REMOVED}) if d.v1_id in gone else d
            for d in self.unexpected
        ]
        for kind in STREAMED:
            self.tallies[kind] += self._strays(kind, seen[kind], target.index(kind))

    def _strays(self, kind: Kind, seen: list[TargetObject], index: TargetIndex) -> KindTally:
        """Of the unclaimed objects, those the crosswalk does not know either: a duplicate when a known object of
        the project shares its natural key, unexpected otherwise."""
        scope = self.context.project_id
        known = self.context.crosswalk.legacy_of(kind, [o.v1_id for o in seen], scope)
        twins: dict[str, TargetObject] = {}
        for obj in seen:
            if obj.v1_id in known:
                twins.setdefault(obj.natural_key, obj)
        strays: dict[str, list[str]] = defaultdict(list)
        unexpected: list[str] = []
        for obj in seen:
            if obj.v1_id in known or index.is_claimed(obj.v1_id):
                continue
            twin = twins.get(obj.natural_key)
            if twin is None:
                unexpected.append(obj.v1_id)
            else:
                strays[twin.v1_id].append(obj.v1_id)
        duplicated = tuple(
            Duplicate(legacy_id=known[v1_id], scope=scope, v1_ids=[v1_id, *sorted(ids)])
            for v1_id, ids in strays.items()
        )
        return KindTally(unexpected=tuple(unexpected), duplicated=duplicated, checked=True)

    def found(self, total_amount: Decimal) -> ActualsFound:
        scope = self.context.project_id
        tallies: dict[str, KindTally] = {}
        for kind, found in self.tallies.items():
            if not found.source:
                # A project none of whose records of this kind the source holds: like a project not selected, its
                # crosswalk and quarantine entries of the kind are not counted (as for every ledger kind). Split
                # parts are known only from their actuals: the kind is in the ledger once a part, or a stray
                # item, is.
                if kind is not Kind.SPLIT or found.unexpected or found.duplicated:
                    tallies[kind] = found
                continue
            runs = self.context.crosswalk.runs_of(kind, scope)
            migrated = sum(n for run, n in runs.items() if str(run) == self.context.latest_run)
            codes = Counter(
                code
                for (k, s, i), code in self.context.quarantine.items()
                if k == kind and s == scope and (k, s, i) not in self.held.refused
            )
            tallies[kind] = found + KindTally(
                migrated=migrated, unchanged=sum(runs.values()) - migrated, quarantined=codes
            )
        return ActualsFound(
            count=self.count,
            total_amount=total_amount,
            held_back=self.held_amount,
            quarantined=tuple(self.quarantined),
            v1_sums=self.target.sums if self.target else {},
            transactions=(*self.differences, *self.unexpected),
            ledgers=Ledgers(tallies, self.held),
            parts=tuple(self.parts),
            attached=tuple(self.attached),
            banked=tuple(self.banked),
        )
