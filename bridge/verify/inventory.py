"""The ledger's part for the kinds the bridge does not write (``engine.inventory``): each record the source
holds of them counted as not carried, with its reason, and the inventory the reports print."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from decimal import Decimal

from bridge.engine.inventory import BY_KIND, HELD, UNAVAILABLE
from bridge.verify.amounts import as_computed
from bridge.verify.ledger import KindTally
from bridge.verify.schema import InventoryEntry
from mappings.inventory import Stock
from mappings.inventory import figures as stock_figures


def summed(stocks: Iterable[Stock]) -> dict[str, Stock]:
    """The stocks of every scope, one per kind."""
    found: dict[str, Stock] = {}
    for stock in stocks:
        found[stock.kind] = found[stock.kind] + stock if stock.kind in found else stock
    return found


def tallies(stocks: Iterable[Stock]) -> dict[str, KindTally]:
    """Each kind's records as not carried, by its reason: they close the ledger without being on v1."""
    return {
        kind: KindTally(source=stock.count, not_carried=Counter({BY_KIND[kind].why: stock.count}))
        for kind, stock in summed(stocks).items()
    }


def inventory(stocks: Iterable[Stock]) -> list[InventoryEntry]:
    """Every kind the bridge does not write, in declaration order, with what the source holds of it (a kind the
    target's plan lacks only when it was counted so)."""
    found = summed(stocks)
    entries = []
    for held in (*HELD, *(held for held in UNAVAILABLE if held.kind in found)):
        stock = found.get(held.kind, Stock(held.kind))
        entries.append(
            InventoryEntry(
                kind=held.kind,
                label=held.label,
                scope=held.scope.value,
                count=stock.count,
                money={currency: str(value) for currency, value in sorted(stock.money.items())},
                bytes=stock.bytes,
                unreadable=stock.unreadable,
                unread=stock.unread,
                why=held.why,
            )
        )
    return entries


def figures(entry: InventoryEntry) -> str:
    """An entry's count, money per currency and bytes, as the plan says them (``mappings.inventory.figures``)."""
    money = {currency: Decimal(value) for currency, value in entry.money.items()}
    stock = Stock(entry.kind, entry.count, money, entry.bytes, entry.unreadable, entry.unread)
    # The report's one way of writing an amount: the currency's decimals, every further digit kept.
    return stock_figures(stock, lambda value, currency: as_computed(str(value), currency))


def summary(entries: Iterable[InventoryEntry]) -> str:
    """One line for the headline: what the source holds that v1 does not, or that nothing else is held."""
    held = [f"{entry.label} ({figures(entry)})" for entry in entries if entry.count]
    if not held:
        return "not carried: nothing (the source holds no record of a kind the bridge does not write)"
    return "not carried (see the inventory for why): " + "; ".join(held)
