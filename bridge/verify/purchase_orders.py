"""One project's purchase orders on both sides: counts per legacy status, item sums per currency, the links to
transactions, and why v1's committed phases leave them out (A25, A91).

The legacy orders are read with their items and the actuals naming them; the v1 copies of the project are
listed once with their items and transactions expanded. Each order the crosswalk knows is then compared:

- present on v1 (an order deleted since is ``missing``);
- its items: the v1 items' amounts summed (minor units) against what the run sends for the legacy items (each
  ``totalPrice`` exactly, or the synthesized item of an order without items), and their count;
- its links: the transactions v1 lists for it against the crosswalk's transactions of the legacy actuals that
  name it.

A v1 draft of an order approved, pending or paid on legacy is awaiting approval, not a difference: v1 counts an
order in a committed phase only in the statuses ``committedPoStatuses`` publishes (approved, paymentRequested,
paymentRejected, paymentProcessing; V:8049), which no write reaches. The section says so whenever the project
has a committed phase. The ledger's parts (sources, parents, targets of both kinds) go to ``reconcile``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal

from bridge.clients.legacy import LegacyClient
from bridge.clients.v1 import V1Client
from bridge.engine.kinds import KindSpec, spec
from bridge.verify.compare import Verdict
from bridge.verify.declared import natural_key
from bridge.verify.heldback import RecordKey
from bridge.verify.ledger import SourceKey, TargetObject
from bridge.verify.order_edits import left_on_v1
from bridge.verify.order_models import OrderDifference, OrderLeft, OrdersReport, OrderStatusCount
from mappings.errors import MappingError
from mappings.kinds import Kind
from mappings.money import to_major
from mappings.purchase_orders import MappedOrder, map_order, status_of
from mappings.records import Phase, PurchaseOrder

ORDERS = spec(Kind.PURCHASE_ORDER)
LINKS = spec(Kind.PO_LINK)
COMMITTED_STATUSES = ("approved", "paymentRequested", "paymentRejected", "paymentProcessing")
Row = Mapping[str, object]
Lookup = Callable[[str, str], str | None]
"""(crosswalk kind, legacy id) -> v1 id, in the project."""
Transactions = Callable[[Sequence[str]], Mapping[str, str]]
"""Legacy actual ids -> the v1 transactions made from them (those the crosswalk knows)."""


@dataclass(frozen=True, slots=True)
class OrdersFound:
    """A project's purchase orders compared: the report section, its verdicts, and the ledger's parts."""

    report: OrdersReport | None
    verdicts: tuple[Verdict, ...]
    sources: Mapping[KindSpec, frozenset[SourceKey]]
    parents: Mapping[RecordKey, RecordKey]
    targets: Mapping[Kind, tuple[TargetObject, ...]] | None


async def read_v1_orders(v1: V1Client, v1_project_id: str) -> list[Row]:
    """The v1 project's purchase orders with their items and transactions (every page)."""
    query = [("projectId", v1_project_id), ("expand", "items,transactions")]
    found = [row async for page in v1.rows(ORDERS.natural.listed_by, (), query) for row in _listed(page)]
    return [row for row in found if isinstance(row.get("id"), str)]


def _listed(value: object) -> list[Row]:
    """The objects of a JSON array (nothing when it is not one)."""
    return [row for row in value if isinstance(row, Mapping)] if isinstance(value, list) else []


async def compare_orders(
    legacy: LegacyClient,
    v1: V1Client | None,
    *,
    project_id: str,
    v1_project_id: str | None,
    currency: str,
    phases: Sequence[Phase],
    lookup: Lookup,
    transactions: Transactions,
) -> OrdersFound:
    """Read both sides and compare (``v1_project_id`` None: the project is not on v1, nothing to list there).
    ``transactions`` gives the v1 transactions of legacy actuals (the crosswalk's actuals are not kept in
    memory by verify: looked up for the actuals naming an order only)."""
    orders = await legacy.purchase_order_records(project_id)
    rows = await read_v1_orders(v1, v1_project_id) if v1 is not None and v1_project_id else None
    made = transactions([a.id for order in orders for a in order.actuals if a.id])
    return compared(orders, rows, project_id=project_id, currency=currency, phases=phases, lookup=lookup, made=made)


def _expected(order: PurchaseOrder, project_id: str, currency: str) -> MappedOrder | None:
    """What the run sends for ``order`` (None: the mappings refuse it, so nothing is expected on v1)."""
    try:
        return map_order(order, _nothing, project_id=project_id, v1_project_id="", sort=0, currency=currency)
    except MappingError:
        return None


def _nothing(_kind: str, _scope: str, _legacy_id: str) -> str | None:
    return None


def _items_minor(row: Row) -> tuple[int, int]:
    """(count, sum of amounts) of a v1 order's items."""
    listed = _listed(row.get("items"))
    amounts = [i.get("amount") for i in listed]
    return len(listed), sum(amount for amount in amounts if isinstance(amount, int))


def _linked(row: Row) -> set[str]:
    return {str(t["id"]) for t in _listed(row.get("transactions")) if "id" in t}


def compared(
    orders: Sequence[PurchaseOrder],
    rows: Sequence[Row] | None,
    *,
    project_id: str,
    currency: str,
    phases: Sequence[Phase],
    lookup: Lookup,
    made: Mapping[str, str],
) -> OrdersFound:
    """The comparison of ``orders`` with the v1 ``rows`` (None: not listed on v1), pure; ``made``: legacy actual
    id -> the v1 transaction made from it."""
    by_id = {str(row["id"]): row for row in rows or ()}
    differences: list[OrderDifference] = []
    lefts: list[OrderLeft] = []
    legacy_sums: Counter[str] = Counter()
    v1_sums: Counter[str] = Counter()
    groups: dict[tuple[str, str], list[MappedOrder]] = {}
    links_legacy = links_v1 = awaiting = 0
    for order in orders:
        expected = _expected(order, project_id, currency)
        v1_id = lookup(ORDERS.stored, order.id)
        row = by_id.get(v1_id) if v1_id is not None else None
        if expected is None:
            continue
        v1_status = str(row.get("status")) if row is not None else "not on v1"
        groups.setdefault((order.status or "", v1_status), []).append(expected)
        if v1_id is None or rows is None:
            continue
        items = [*expected.order.body.get("items", []), *expected.extra]
        want_count, want_sum = len(items), sum(item["amount"] for item in items)
        legacy_sums[currency] += want_sum
        linked = {made[a.id] for a in order.actuals if a.id is not None and a.id in made}
        links_legacy += len(linked)

        def differs(what: str, ours: object, theirs: object, v1_id: str = v1_id, order: PurchaseOrder = order) -> None:
            differences.append(
                OrderDifference(
                    legacy_id=order.id, number=order.number, v1_id=v1_id, what=what, legacy=str(ours), v1=str(theirs)
                )
            )

        if row is None:
            differs("missing", f"{want_count} items", "no such purchase order")
            continue
        count, summed = _items_minor(row)
        amount = row.get("amount")
        v1_currency = str(amount.get("currency")) if isinstance(amount, Mapping) else currency
        v1_sums[v1_currency] += summed
        left = left_on_v1(order, row, (want_count, want_sum, currency), (count, summed, v1_currency))
        if left is not None:
            lefts.append(left)
        elif (summed, v1_currency) != (want_sum, currency):
            differs("items sum", f"{want_sum} {currency} minor", f"{summed} {v1_currency} minor")
        if left is None and count != want_count:
            differs("item count", want_count, count)
        on_v1 = _linked(row)
        links_v1 += len(on_v1)
        if on_v1 != linked:
            differs("links", sorted(linked), sorted(on_v1))
        if expected.status.needs_approval and row.get("status") not in COMMITTED_STATUSES:
            awaiting += 1
    statuses = [_status_row(legacy, v1, members) for (legacy, v1), members in sorted(groups.items())]
    report = OrdersReport(
        differences=differences,
        statuses=statuses,
        items_legacy_minor=dict(sorted(legacy_sums.items())),
        items_v1_minor=dict(sorted(v1_sums.items())),
        links_legacy=links_legacy,
        links_v1=links_v1,
        awaiting_approval=awaiting,
        committed=_committed(phases, awaiting),
        left_on_v1=lefts,
    )
    return OrdersFound(
        report if orders else None,
        # An order left as v1 holds it: the legacy edit is what v1 cannot take (A107), said, not a mismatch.
        tuple(Verdict.MISMATCH for _ in differences) + tuple(Verdict.NOT_CARRIED for _ in lefts),
        _sources(orders, project_id),
        _parents(orders, project_id),
        _targets(rows, project_id) if rows is not None else None,
    )


def _status_row(legacy: str, v1: str, members: Sequence[MappedOrder]) -> OrderStatusCount:
    money: dict[str, Decimal] = {}
    for member in members:
        money[member.currency] = money.get(member.currency, Decimal(0)) + to_major(member.amount)
    status = status_of(legacy)
    return OrderStatusCount(
        legacy_status=legacy,
        v1_status=v1,
        why=status.why,
        count=len(members),
        money={currency: str(value) for currency, value in sorted(money.items())},
        needs_approval=status.needs_approval and v1 not in COMMITTED_STATUSES,
    )


def _committed(phases: Sequence[Phase], awaiting: int) -> str:
    if not awaiting or not any(phase.type == "committed" for phase in phases):
        return ""
    return (
        f"{awaiting} purchase order(s) approved, pending or paid on legacy are drafts on v1, awaiting approval in "
        f"the app: v1 counts an order in a committed phase only in the statuses {', '.join(COMMITTED_STATUSES)} "
        "(committedPoStatuses), so until they are approved a committed phase's v1 total leaves them out. A "
        "committed-phase difference up to their amounts is that, not a mismatch (A25)."
    )


def _sources(orders: Sequence[PurchaseOrder], scope: str) -> dict[KindSpec, frozenset[SourceKey]]:
    return {
        ORDERS: frozenset((scope, order.id) for order in orders),
        LINKS: frozenset((scope, a.id) for order in orders for a in order.actuals if a.id),
    }


def _parents(orders: Sequence[PurchaseOrder], scope: str) -> dict[RecordKey, RecordKey]:
    """A link hangs under its order (an order under its project: ``reconcile`` adds that)."""
    return {
        (LINKS.stored, scope, a.id): (ORDERS.stored, scope, order.id) for order in orders for a in order.actuals if a.id
    }


def _targets(rows: Sequence[Row], scope: str) -> dict[Kind, tuple[TargetObject, ...]]:
    links = [
        TargetObject(str(t["id"]), scope, natural_key(LINKS, t))
        for row in rows
        for t in _listed(row.get("transactions"))
        if isinstance(t.get("id"), str)
    ]
    orders = tuple(TargetObject(str(row["id"]), scope, natural_key(ORDERS, row)) for row in rows)
    return {Kind.PURCHASE_ORDER: orders, Kind.PO_LINK: tuple(links)}
