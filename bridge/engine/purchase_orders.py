"""One project's purchase orders: v1 drafts with their items, then their links to the transactions made from
their actuals (A88-A92).

The legacy orders are read once per project (``OrdersRead``: with their items, contact and the actuals naming
each) and shared by the two writers ``engine.kinds`` declares for them:

1. ``OrdersStep.orders`` maps each order (``mappings.purchase_orders``) and writes it through the one record
   step (``Applier.write``: one keyed ``purchase-orders_create`` each, at most 100 items inline). Then, live:
   - the items past the hundredth go one by one (``purchase-orders_createItem``, keyed): the order's items on
     v1 are listed first and only the missing ones are sent, so a crash after the create (or between items)
     resumes with nothing twice;
   - the project's orders are listed once to read back the currency v1 gave each (A89): one that differs from
     the assumed currency is deleted again (a draft may be) and quarantined, its crosswalk entry forgotten;
   - with ``submit_pending`` (off by default; the CLI's `--with submit-pending`) the drafts of legacy pending
     orders are submitted into v1's approval flow, which NOTIFIES THEIR APPROVERS. A lost answer is settled by
     the next run reading the order's status (its key replays the first answer meanwhile).
   Every order carried comes back as an ``OrderLine`` (the status table and the approvals list).
2. ``OrdersStep.links`` links each order to the transactions made from its actuals
   (``purchase-orders_linkTransaction``: a PUT with no body and no Idempotency-Key, none being published),
   once both exist; each link is journalled (keyed by the actual) and a replay settles a lost answer by
   reading the order's transactions back (``stale.find_link``).

A known order edited at source since the run that wrote it is brought up to date on v1 by
``engine.order_updates`` (its header and items compared with v1's, only the difference sent), or left as v1
holds it when v1 no longer takes edits of it (A107): its line in the status table says so.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Unpack

import structlog

from bridge.clients.legacy import LegacyClient
from bridge.clients.v1 import V1Client
from bridge.engine.apply import Target, removed
from bridge.engine.kinds import spec
from bridge.engine.order_updates import Brought, OrderUpdates
from bridge.engine.plan import Fate, QuarantinedRecord, Refusal, Tally, total
from bridge.engine.project_step import ProjectStep, ProjectTools
from bridge.engine.tasks import run_all
from bridge.engine.wanted import PLACEHOLDER, Desired, Want, Wanted
from bridge.engine.writes import Write
from mappings.errors import MappingError
from mappings.keys import request_key, source_hash
from mappings.kinds import Kind
from mappings.purchase_orders import (
    CURRENCY_DIFFERS,
    CURRENCY_FIX,
    INLINE_ITEMS,
    MappedOrder,
    OrderLine,
    left_as,
    line_of,
    map_order,
)
from mappings.records import File, PurchaseOrder

log = structlog.get_logger("bridge.engine")

ORDERS = spec(Kind.PURCHASE_ORDER)
LINKS = spec(Kind.PO_LINK)
ADD_ITEM = "purchase-orders_createItem"
SUBMIT = "purchase-orders_submit"
DELETE = "purchase-orders_delete"


class OrdersRead:
    """A project's legacy purchase orders, read once (when the first of its writers asks) for both."""

    def __init__(self, legacy: LegacyClient, project_id: str) -> None:
        self.legacy = legacy
        self.project_id = project_id
        self._orders: list[PurchaseOrder] | None = None
        self._lock = asyncio.Lock()

    async def orders(self) -> list[PurchaseOrder]:
        async with self._lock:
            if self._orders is None:
                self._orders = await self.legacy.purchase_order_records(self.project_id)
            return self._orders


@dataclass(frozen=True, slots=True)
class Drafts:
    """A project's orders as mapped, the v1 ids the crosswalk holds for them, and the v1 list's rows by id."""

    mapped: Mapping[str, MappedOrder]
    ids: Mapping[str, str]
    rows: Mapping[str, Mapping[str, object]]


def linked_actuals(order: PurchaseOrder) -> list[str]:
    """The legacy ids of the actuals that name ``order``: each one link to carry."""
    return [actual.id for actual in order.actuals if actual.id]


class OrdersStep(ProjectStep):
    """Writes one project's purchase orders (after its lines and the contacts) and their links (after its
    transactions)."""

    def __init__(self, *, submit_pending: bool = False, **tools: Unpack[ProjectTools]) -> None:
        super().__init__(**tools)
        self.submit_pending = submit_pending
        # Per project: (legacy order id, its attachments) of each order read that has any, for the documents step.
        self.attached: dict[str, list[tuple[str, tuple[File, ...]]]] = {}

    def read(self, project_id: str) -> OrdersRead:
        return OrdersRead(self.legacy, project_id)

    async def count(self, project_id: str, fate: Fate = Fate.HELD_BACK, only: Kind | None = None) -> Tally:
        """The orders and links a project holds (read, never mapped or sent), as ``fate``: a held-back project's,
        or (``only`` one kind) those the operator left out."""
        orders = await self.legacy.purchase_order_records(project_id)
        counts = {
            Kind.PURCHASE_ORDER: len(orders),
            Kind.PO_LINK: sum(len(linked_actuals(o)) for o in orders),
            Kind.PURCHASE_ORDER_FILE: sum(len(o.attachments) for o in orders),
        }
        # An order's attachments go where it goes: left out with it (their documents' step sees no order).
        wanted = {only, Kind.PURCHASE_ORDER_FILE} if only is Kind.PURCHASE_ORDER else {only}
        return total(Tally.of(kind, fate, n) for kind, n in counts.items() if None in wanted or kind in wanted)

    @property
    def v1(self) -> V1Client | None:
        return self.executor.v1

    async def orders(self, project_id: str, v1_project: str, currency: str, read: OrdersRead) -> Tally:
        """Write the project's orders as drafts (see the module docstring); ``currency`` is assumed (A89)."""
        found = await read.orders()
        self.attached[project_id] = [(order.id, order.attachments) for order in found if order.attachments]
        mapped: dict[str, MappedOrder] = {}
        refused: list[MappingError] = []
        for sort, order in enumerate(found):
            try:
                mapped[order.id] = map_order(
                    order,
                    self.books.lookup,
                    project_id=project_id,
                    v1_project_id=v1_project,
                    sort=sort,
                    currency=currency,
                    submit_pending=self.submit_pending,
                )
            except MappingError as error:
                refused.append(error)
        fresh = {i for i in mapped if self.books.lookup(ORDERS.stored, project_id, i) is None}
        changed = {i: m for i, m in mapped.items() if i not in fresh and self._edited(project_id, i, m)}
        wants = tuple(
            _ready(Desired(i, dict(m.order.body), notes=m.order.notes)) for i, m in mapped.items() if i not in changed
        )
        wanted = Wanted((wants,) if wants else (), tuple(refused), 0, tuple(order.id for order in found))
        done = await self.applier.write(Target(ORDERS, project_id), wanted)
        brought = Brought()
        if changed:
            rows = {str(row["id"]): row for row in await self._listed(v1_project, self.reader)}
            updates = OrderUpdates(self.books, self.namespace, self.v1, self.reader)
            brought = await updates.bring(project_id, changed, rows)
            done += brought.tally
        ids = {i: v for i in mapped if (v := self.books.lookup(ORDERS.stored, project_id, i)) is not None}
        # The edited orders' items past the hundredth went with their update.
        unedited = {i: m for i, m in mapped.items() if i not in changed}
        done += await self._extra_items(project_id, unedited, ids, fresh)
        if self.v1 is not None and ids:
            rows = {str(row["id"]): row for row in await self._listed(v1_project, self.v1)}
            wrong = await self._currencies(project_id, Drafts(mapped, ids, rows))
            done = _moved(done, wrong, fresh, self.applier.standing, project_id) + wrong
            ids = {i: v for i, v in ids.items() if i not in {r.record.legacy_id for r in wrong.quarantine}}
            done += await self._submit(project_id, Drafts(mapped, ids, rows))
        # A plan's placeholder is no id to list: the approvals list of a plan names none.
        real = {i: v for i, v in ids.items() if not v.startswith(PLACEHOLDER)}
        lines = tuple(
            _left(line_of(order, mapped[order.id], real.get(order.id)), brought) for order in found if order.id in ids
        )
        return done + Tally(orders=lines)

    @property
    def reader(self) -> V1Client:
        """v1 for reads: a plan reads what a run reads (its executor sends nothing, its adoption reads)."""
        adoption = self.executor.adoption
        reader = self.v1 if adoption is None else adoption.v1
        assert reader is not None, "a run reads v1 through its executor or its adoption"
        return reader

    def _edited(self, project_id: str, order_id: str, order: MappedOrder) -> bool:
        """Whether a known order's source changed since the run that last wrote it (its hash differs)."""
        return not self.books.unchanged(ORDERS.stored, project_id, order_id, source_hash(order.state))

    async def _listed(self, v1_project: str, v1: V1Client) -> list[Mapping[str, object]]:
        query = [("projectId", v1_project)]
        pages = v1.rows(ORDERS.natural.listed_by, (), query)
        return [row async for page in pages for row in page if isinstance(row, Mapping)]

    async def _extra_items(
        self, project_id: str, mapped: Mapping[str, MappedOrder], ids: Mapping[str, str], fresh: set[str]
    ) -> Tally:
        """The items past the hundredth of each order on v1: the missing ones (by the count v1 lists) sent in
        order, each under a key of its own; a plan counts those of the orders it would create."""
        done = Tally()
        for order_id, order in mapped.items():
            v1_id = ids.get(order_id)
            if not order.extra or v1_id is None:
                continue
            if self.v1 is None or v1_id.startswith(PLACEHOLDER):
                sent = len(order.extra) if order_id in fresh else 0
                done += Tally(requests=Counter({Kind.PURCHASE_ORDER: sent}))
                continue
            on_v1 = sum([len(page) async for page in self.v1.rows("purchase-orders_listItems", (v1_id,))])
            missing = range(max(0, on_v1 - INLINE_ITEMS), len(order.extra))
            for index in missing:
                item = order.extra[index]
                member = f"{order_id}#{INLINE_ITEMS + index}"
                key = request_key(self.namespace, "purchase_order.item", project_id, (member,), source_hash(item))
                await self.v1.send_write(ADD_ITEM, (v1_id,), dict(item), key)
                done += Tally(requests=Counter({Kind.PURCHASE_ORDER: 1}))
            if missing:
                # The create booked its own body's hash; the order as a whole is on v1 only now.
                await self.books.rebook(ORDERS.stored, project_id, order_id, v1_id, source_hash(order.state))
        return done

    async def _currencies(self, project_id: str, drafts: Drafts) -> Tally:
        """Orders v1 gave another currency than assumed (A89): deleted again and quarantined. One already gone
        from v1 (deleted by a run that stopped before forgetting it) is only forgotten and quarantined."""
        assert self.v1 is not None
        done = Tally()
        for order_id, v1_id in drafts.ids.items():
            row = drafts.rows.get(v1_id)
            amount = row.get("amount") if row is not None else None
            given = amount.get("currency") if isinstance(amount, Mapping) else None
            wanted = drafts.mapped[order_id].currency
            if row is not None and given == wanted:
                continue
            if row is not None:
                await self.v1.send_write(DELETE, (v1_id,), {}, None)
            await self.books.drop(ORDERS.stored, project_id, order_id)
            message = f"v1 made the draft in {given}, not {wanted} (A89); it was deleted again. {CURRENCY_FIX}"
            record = QuarantinedRecord(Kind.PURCHASE_ORDER, project_id, order_id, CURRENCY_DIFFERS, "currency", message)
            self.books.quarantine_unsent([record])
            log.warning("bridge.step.quarantined", kind=Kind.PURCHASE_ORDER.value, members=[order_id], code=record.code)
            done += Tally(
                requests=Counter({Kind.PURCHASE_ORDER: int(row is not None)}),
                quarantine=(Refusal(Kind.PURCHASE_ORDER, record, filed=True),),
            )
        return done

    async def _submit(self, project_id: str, drafts: Drafts) -> Tally:
        """With ``submit_pending``: submit the drafts of legacy pending orders into v1's approval flow. This
        NOTIFIES THE APPROVERS of each order: it is the operator's explicit choice (`--with submit-pending`)."""
        assert self.v1 is not None
        due = [
            (order_id, v1_id)
            for order_id, v1_id in drafts.ids.items()
            if drafts.mapped[order_id].status.v1 == "pending" and drafts.rows.get(v1_id, {}).get("status") == "draft"
        ]
        for order_id, v1_id in due:
            log.warning("bridge.step.submitted", kind=Kind.PURCHASE_ORDER.value, member=order_id, notifies="approvers")
            key = request_key(self.namespace, "purchase_order.submit", project_id, (order_id,), source_hash({}))
            await self.v1.send_write(SUBMIT, (v1_id,), {}, key)
        return Tally(requests=Counter({Kind.PURCHASE_ORDER: len(due)}))

    async def links(self, project_id: str, read: OrdersRead) -> Tally:
        """Link each order to the transactions made from its actuals, once both exist; a link whose order or
        transaction is not on v1 (quarantined, or held back) waits with it."""
        lookup = self.books.lookup
        done = Tally()
        writes: list[Write] = []
        seen: list[str] = []
        for order in await read.orders():
            v1_order = lookup(ORDERS.stored, project_id, order.id)
            for actual_id in linked_actuals(order):
                seen.append(actual_id)
                if lookup(LINKS.stored, project_id, actual_id) is not None:
                    done += Tally.of(Kind.PO_LINK, self.applier.standing(Kind.PO_LINK, project_id, actual_id))
                    continue
                transaction = lookup(Kind.ACTUAL, project_id, actual_id)
                if v1_order is None or transaction is None:
                    done += Tally.of(Kind.PO_LINK, Fate.HELD_BACK)
                    continue
                params = (v1_order, transaction)
                link = Write(Kind.PO_LINK, project_id, LINKS.create, params, {}, (actual_id,), salt=self.applier.salt)
                writes.append(link)
        self.applier.listed(Kind.PO_LINK, len(seen))
        sent = await run_all(self.executor.write(write) for write in writes)
        done += total(s.tally for s in sent)
        return done + removed(self.books, Kind.PO_LINK, project_id, seen)


def _left(line: OrderLine, brought: Brought) -> OrderLine:
    """``line`` as the status table shows it: left as v1 holds it, with v1's amount, when the run left it (A107)."""
    found = brought.left.get(line.legacy_id)
    return line if found is None else replace(line, status=left_as(found[0]), v1_amount=found[1])


def _ready(desired: Desired) -> Want:
    return Want(desired.legacy_id, lambda _: desired)


def _moved(done: Tally, wrong: Tally, fresh: set[str], standing: Callable[[Kind, str, str], Fate], scope: str) -> Tally:
    """``done`` without the fates the quarantined orders had (created now, or standing from an earlier run):
    each record keeps one fate, and theirs is now quarantined."""
    gone: Counter[tuple[Kind, Fate]] = Counter()
    for refusal in wrong.quarantine:
        legacy_id = refusal.record.legacy_id
        fate = Fate.CREATED if legacy_id in fresh else standing(Kind.PURCHASE_ORDER, scope, legacy_id)
        gone[(Kind.PURCHASE_ORDER, fate)] += 1
    return replace(done, records=done.records - gone)
