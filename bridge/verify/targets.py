"""The target's transactions and split items of one migrated project, as the ledger's target objects.

The ledger's set check (``ledger.py``) pairs them with the crosswalk: an object the crosswalk does not know
is unexpected, or a duplicate when its natural key (its kind's, ``KindSpec.natural``) equals a crosswalked
object's in the same project. Transactions and their split items are read a page at a time (``actuals.py``):
each becomes a target object as its page is read, and only its id and key are kept. The kinds read whole
get theirs from ``declared.py``.
"""

from __future__ import annotations

from collections.abc import Mapping

from bridge.clients.models import Transaction
from bridge.engine.kinds import spec
from bridge.verify.declared import natural_key
from bridge.verify.ledger import TargetObject
from mappings.kinds import Kind


def transaction_target(project_id: str, transaction: Transaction) -> TargetObject:
    """A transaction as a target object of ``Kind.ACTUAL``."""
    row = transaction.model_dump(by_alias=True, mode="json")
    return TargetObject(transaction.id, project_id, natural_key(spec(Kind.ACTUAL), row))


def item_targets(project_id: str, transaction: Transaction) -> list[TargetObject]:
    """A transaction's split items as target objects of ``Kind.SPLIT`` (a duplicate shares its transaction)."""
    listed = (transaction.model_extra or {}).get("items")
    items = (
        [i for i in listed if isinstance(i, Mapping) and isinstance(i.get("id"), str)]
        if isinstance(listed, list)
        else []
    )
    key = spec(Kind.SPLIT)
    return [TargetObject(str(i["id"]), project_id, f"{transaction.id}|{natural_key(key, i)}") for i in items]
