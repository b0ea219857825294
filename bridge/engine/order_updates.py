"""A purchase order edited on legacy after a run carried it: the next run brings its v1 copy up to date (A105,
A106), or says why it cannot (A107).

An order the crosswalk knows whose mapped body (``mappings.purchase_orders``) no longer hashes as the one last
booked is compared with what v1 holds now, and only the difference is sent:

1. its header (number, name, vendor, notes, place): one ``purchase-orders_update`` with the fields that differ,
   a null clearing one the legacy order no longer has;
2. its items, place by place against v1's list of them (A105): an item that differs is PATCHed whole
   (``purchase-orders_updateItem``), v1's items past the legacy count are deleted (``purchase-orders_deleteItem``)
   and the legacy items past v1's count are added (``purchase-orders_createItem``). Only the add has a published
   Idempotency-Key; its key is derived from the order's new state and the item's place (A106);
3. the crosswalk books the order's new hash: the next run finds it unchanged.

Each request is decided against what v1 holds when the order's turn comes, so a run stopped between any two of
them is finished by the next with nothing sent twice; a plan reads v1 the same way and counts what a run sends.

v1 takes these writes on a draft or a rejected order only (``409 po_invalid_status`` otherwise, V:5560). An
order approved (submitted, paid, void) on v1 since is left as v1 holds it (A107): its status-table line says
"left as <status> on v1" with v1's amount beside the legacy one, and verify explains its difference by that.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final

import structlog

from bridge.clients.v1 import V1Client
from bridge.engine.books import Books
from bridge.engine.executor import rejection_code
from bridge.engine.kinds import spec
from bridge.engine.plan import Fate, QuarantinedRecord, Refusal, Tally
from bridge.errors import RecordError
from mappings.keys import request_key, source_hash
from mappings.kinds import Kind
from mappings.money import Money
from mappings.purchase_orders import EDITABLE, MappedOrder, PurchaseOrderItemWrite

log = structlog.get_logger("bridge.engine")

ORDERS = spec(Kind.PURCHASE_ORDER)
UPDATE: Final = "purchase-orders_update"
ADD_ITEM: Final = "purchase-orders_createItem"
UPDATE_ITEM: Final = "purchase-orders_updateItem"
DELETE_ITEM: Final = "purchase-orders_deleteItem"
# The header fields the bridge writes (as PurchaseOrderCreate and PurchaseOrderUpdate name them) and an item's.
HEADER: Final = ("number", "name", "contactId", "notes", "sort")
ITEM: Final = ("description", "budgetLineId", "qty", "rate", "amount")
INVALID_STATUS: Final = "po_invalid_status"
Row = Mapping[str, object]


@dataclass(frozen=True, slots=True)
class ItemWrite:
    """One request of an order's update: its operation, path parameters, body and (an add's) key."""

    operation: str
    params: tuple[str, ...]
    body: dict[str, object]
    key: str | None = None


def header_patch(order: MappedOrder, row: Row) -> dict[str, object]:
    """The header fields whose v1 value is not the mapped one (a field the mapping leaves out: null)."""
    body: Mapping[str, object] = order.order.body
    return {name: body.get(name) for name in HEADER if body.get(name) != row.get(name)}


def items_of(order: MappedOrder) -> list[PurchaseOrderItemWrite]:
    """Every item the order carries, in legacy order (those of its create and those sent after it)."""
    return [*order.order.body.get("items", []), *order.extra]


def item_writes(
    v1_id: str, items: Sequence[PurchaseOrderItemWrite], listed: Sequence[Row], keys: Keys
) -> list[ItemWrite]:
    """The requests that make v1's ``listed`` items ``items``, place by place (A105): changed ones PATCHed
    whole (a field the mapping leaves out, null), v1's surplus deleted, the missing ones added in order."""
    writes: list[ItemWrite] = []
    for ours, theirs in zip(items, listed, strict=False):
        whole: dict[str, object] = {name: ours.get(name) for name in ITEM}
        if any(whole[name] != theirs.get(name) for name in ITEM):
            writes.append(ItemWrite(UPDATE_ITEM, (v1_id, str(theirs["id"])), whole))
    writes += [ItemWrite(DELETE_ITEM, (v1_id, str(theirs["id"])), {}) for theirs in listed[len(items) :]]
    for place in range(len(listed), len(items)):
        writes.append(ItemWrite(ADD_ITEM, (v1_id,), dict(items[place]), keys.add(place, items[place])))
    return writes


@dataclass(frozen=True, slots=True)
class Keys:
    """The Idempotency-Keys of one order's added items: from the run's namespace, the order and its new state
    (A106), so a run resumed on the same legacy order derives the same key, and a later edit a new one."""

    namespace: str
    scope: str
    order_id: str
    state: str

    def add(self, place: int, item: PurchaseOrderItemWrite) -> str:
        member = f"{self.order_id}#{place}"
        digest = source_hash({"order": self.state, "item": dict(item)})
        return request_key(self.namespace, "purchase_order.item_edit", self.scope, (member,), digest)


@dataclass(frozen=True, slots=True)
class Brought:
    """What the updates did: their tally, and the orders left as v1 holds them (legacy id -> status, amount)."""

    tally: Tally = field(default_factory=Tally)
    left: Mapping[str, tuple[str, Money]] = field(default_factory=dict)


class OrderUpdates:
    """Brings one project's edited orders up to date on v1 (see the module docstring). ``v1`` sends (None: a
    plan, which only counts); ``reader`` reads, in a plan as in a run."""

    def __init__(self, books: Books, namespace: str, v1: V1Client | None, reader: V1Client) -> None:
        self.books = books
        self.namespace = namespace
        self.v1 = v1
        self.reader = reader

    async def bring(self, project_id: str, changed: Mapping[str, MappedOrder], rows: Mapping[str, Row]) -> Brought:
        """Each of ``changed`` (legacy id -> order as mapped now) against ``rows`` (v1 id -> the order as v1's
        list shows it)."""
        tally, left = Tally(), {}
        for order_id, order in changed.items():
            v1_id = self.books.lookup(ORDERS.stored, project_id, order_id)
            row = rows.get(v1_id) if v1_id is not None else None
            if v1_id is None or row is None:  # gone from v1 since: verify names it missing
                tally += Tally.of(Kind.PURCHASE_ORDER, Fate.UNCHANGED)
                continue
            status = str(row.get("status"))
            if status not in EDITABLE:
                left[order_id] = (status, _amount(row, order))
                tally += Tally.of(Kind.PURCHASE_ORDER, Fate.UNCHANGED)
                continue
            try:
                tally += await self._bring(project_id, order_id, order, v1_id, row)
            except RecordError as error:
                if error.code != INVALID_STATUS:
                    tally += self._refused(project_id, order_id, error)
                    continue
                # Moved past draft between the list and the write: left as it now is.
                now = await self.reader.read("purchase-orders_get", (v1_id,))
                found = now if isinstance(now, Mapping) else row
                left[order_id] = (str(found.get("status")), _amount(found, order))
                tally += Tally.of(Kind.PURCHASE_ORDER, Fate.UNCHANGED)
        return Brought(tally, left)

    async def _bring(self, project_id: str, order_id: str, order: MappedOrder, v1_id: str, row: Row) -> Tally:
        state = source_hash(order.state)
        listed = [item async for page in self.reader.rows("purchase-orders_listItems", (v1_id,)) for item in page]
        items = item_writes(
            v1_id,
            items_of(order),
            [i for i in listed if isinstance(i, Mapping)],
            Keys(self.namespace, project_id, order_id, state),
        )
        header = header_patch(order, row)
        writes = ([ItemWrite(UPDATE, (v1_id,), header)] if header else []) + items
        if self.v1 is not None:
            for write in writes:
                await self.v1.send_write(write.operation, write.params, write.body, write.key)
            await self.books.rebook(ORDERS.stored, project_id, order_id, v1_id, state)
        log.info("bridge.step.order_updated", member=order_id, requests=len(writes), header=sorted(header))
        fate = Fate.UPDATED if writes else Fate.UNCHANGED
        return Tally.of(Kind.PURCHASE_ORDER, fate) + Tally(requests=Counter({Kind.PURCHASE_ORDER: len(writes)}))

    def _refused(self, project_id: str, order_id: str, error: RecordError) -> Tally:
        """v1 refused an update of the order (other than for its status): quarantined with the service's code;
        its v1 copy stays as it was, and the next run tries again."""
        record = QuarantinedRecord(Kind.PURCHASE_ORDER, project_id, order_id, rejection_code(error), None, str(error))
        self.books.quarantine_unsent([record])
        return Tally(quarantine=(Refusal(Kind.PURCHASE_ORDER, record, filed=True),))


def _amount(row: Row, order: MappedOrder) -> Money:
    """v1's amount of an order as its row shows it (the order's own currency when the row has none)."""
    amount = row.get("amount")
    if isinstance(amount, Mapping) and isinstance(amount.get("amount"), int):
        return Money(amount=int(amount["amount"]), currency=str(amount.get("currency") or order.currency))
    return Money(amount=0, currency=order.currency)
