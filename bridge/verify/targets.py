"""The target's objects of one migrated project, each with the natural key a duplicate of it would share.

The ledger's set check (``ledger.py``) pairs them with the crosswalk: an object the crosswalk does not know
is unexpected, or a duplicate when its natural key equals a crosswalked object's in the same project.
Transactions and their split items are read a page at a time (``actuals.py``): each becomes a target object
as its page is read (``transaction_target``, ``item_targets``), and only its id and key are kept.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from bridge.clients.models import LibraryItem, Phase, Transaction
from bridge.verify.ledger import TargetObject
from bridge.verify.totals import V1Project
from mappings.kinds import Kind


def project_targets(
    project_id: str, v1: V1Project, phases: Sequence[Phase], items: Mapping[str, Sequence[LibraryItem]]
) -> dict[Kind, list[TargetObject]]:
    """Per ledger kind read whole, the v1 objects of the project (its phases, lines and library copies)."""
    targets = {
        Kind.PHASE: [TargetObject(p.id, project_id, p.name) for p in phases],
        Kind.LINE: [
            TargetObject(line.id, project_id, f"{line.parent_id}|{line.type}|{line.account_id}|{line.description}")
            for line in v1.lines
        ],
    }
    for kind in (Kind.FRINGE, Kind.GLOBAL):
        targets[kind] = [TargetObject(item.id, project_id, _item_name(item.model_extra or {})) for item in items[kind]]
    return targets


def transaction_target(project_id: str, transaction: Transaction) -> TargetObject:
    """A transaction as a target object of ``Kind.ACTUAL``."""
    amount = transaction.amount
    key = _transaction_key(transaction.model_extra or {}, amount.amount, amount.currency)
    return TargetObject(transaction.id, project_id, key)


def item_targets(project_id: str, transaction: Transaction) -> list[TargetObject]:
    """A transaction's split items as target objects of ``Kind.SPLIT``."""
    items = _items_of(transaction.model_extra or {})
    return [TargetObject(str(item["id"]), project_id, f"{transaction.id}|{_item_key(item)}") for item in items]


def _item_name(fields: Mapping[str, object]) -> str:
    for name in ("name", "symbol", "code"):
        value = fields.get(name)
        if isinstance(value, str):
            return value
    return ""


def _transaction_key(fields: Mapping[str, object], amount: int, currency: str) -> str:
    return f"{fields.get('timestamp')}|{amount}|{currency}|{fields.get('description')}|{fields.get('budgetLineId')}"


def _items_of(fields: Mapping[str, object]) -> list[Mapping[str, object]]:
    """A transaction's items as v1 lists them (extra fields of the transaction record)."""
    items = fields.get("items")
    if not isinstance(items, list):
        return []
    return [i for i in items if isinstance(i, Mapping) and isinstance(i.get("id"), str)]


def _item_key(item: Mapping[str, object]) -> str:
    amount = item.get("amount")
    minor = amount.get("amount") if isinstance(amount, Mapping) else None
    return f"{minor}|{item.get('budgetLineId')}|{item.get('description')}"
