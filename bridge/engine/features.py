"""Kinds a v1 workspace plan may lack: probed before the run writes, and then counted as not carried.

v1 answers 402 ``feature_not_available`` on every rate pack operation when the workspace's plan has no rate
packs (V:7449). A kind declares the feature it needs (``KindSpec.feature``); the probe reads the listing of
each such kind that stands on its own (not written within another record) once, and a 402 there means the
plan lacks the feature: every kind needing it is then left out of the run, its source records counted as not
carried (``engine.inventory.UNAVAILABLE``) with their money, never as a failure and never a stop (A87). A 402
met by a create despite the probe refuses that record alone (``bridge.errors.FeatureUnavailable``).
"""

from __future__ import annotations

from bridge.clients.v1 import V1Client
from bridge.engine.inventory import UNAVAILABLE
from bridge.engine.kinds import KINDS
from bridge.engine.remarks import rates_stock
from bridge.engine.source import WorkspaceSource
from bridge.errors import FeatureUnavailable
from mappings.inventory import Stock
from mappings.kinds import Kind

# What the source holds of each kind counted as not carried when its feature is lacking.
_STOCK = {Kind.RATE: rates_stock}


async def lacking_kinds(v1: V1Client) -> frozenset[Kind]:
    """The declared kinds whose feature the target workspace's plan lacks (a 402 on their listing)."""
    missing: set[str] = set()
    for kind in KINDS:
        if not kind.feature or kind.within is not None or kind.feature in missing:
            continue
        try:
            async for _ in v1.rows(kind.natural.listed_by):
                break
        except FeatureUnavailable:
            missing.add(kind.feature)
    return frozenset(kind.kind for kind in KINDS if kind.feature in missing)


def left_out(source: WorkspaceSource, lacking: frozenset[Kind]) -> tuple[Stock, ...]:
    """What the source holds of the lacking kinds, as the inventory counts what is not carried."""
    counted = {held.kind for held in UNAVAILABLE}
    return tuple(_STOCK[kind](source) for kind in sorted(lacking) if kind in _STOCK and kind.value in counted)
