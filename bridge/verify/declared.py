"""The ledger's view of every kind the engine declares (``engine.kinds``): its source records and target objects.

The run and the verification read a kind the same way: a kind's source records in a scope are the ones its
``records`` function lists (``engine.wanted``) from the same source, keyed as the crosswalk keys them, plus
the records it refuses outright (quarantined under their own keys); its target objects are the rows of the
kind's own v1 listing, each with the natural key a duplicate would share (``KindSpec.natural``). So a kind
added to the declarations is in the ledger without a line here. The actuals and their split parts are read
and compared a window at a time instead (``actuals.py``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from bridge.engine.kinds import KindSpec
from bridge.engine.wanted import Find, View
from bridge.verify.ledger import SourceKey, TargetObject
from mappings.refs import WORKSPACE

Row = Mapping[str, object]


def state_scope(scope: str) -> str:
    """The state file's scope (and the ledger's) for a mappings scope: the workspace is ``""`` there."""
    return "" if scope == WORKSPACE else scope


def sources(kind: KindSpec, view: View, find: Find, scope: str) -> frozenset[SourceKey]:
    """The source records of ``kind`` in ``scope`` (a legacy project, or ``""``) as ``view`` holds them."""
    if kind.records is None:
        raise ValueError(f"{kind.kind} is read by a step of its own; its records are not listed here")
    wanted = kind.records(view, find)
    refused = {(state_scope(error.ref.scope), error.ref.legacy_id) for error in wanted.refused}
    return frozenset({(scope, legacy_id) for legacy_id in wanted.seen} | refused)


def natural_key(kind: KindSpec, row: Row) -> str:
    """What two target objects of ``kind`` standing for one source record would share."""
    return "|".join(str(row.get(name)) for name in kind.natural.fields)


def targets(kind: KindSpec, rows: Sequence[object], scope: str) -> tuple[TargetObject, ...]:
    """``kind``'s rows as listed on v1, as the ledger's target objects of ``scope``."""
    return tuple(
        TargetObject(str(row["id"]), scope, natural_key(kind, row))
        for row in rows
        if isinstance(row, Mapping) and isinstance(row.get("id"), str)
    )
