"""Verify's reads of the remarks the run carries: the legacy comments and root notes joined to each project's
library, the workspace rates to the workspace's source, and the v1 rows of a kind written under another
record (a rate pack's items, listed under the pack).

The ledger then counts them as it counts every declared kind (``declared.py``); the comparison of what they
say (``remark_differences``: each comment's body and each rate item as the mapping would send them, against
v1) is in ``remark_checks.py``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace

from bridge.clients.legacy import LegacyClient
from bridge.clients.v1 import V1Client
from bridge.engine import remarks_read
from bridge.engine.kinds import KindSpec
from bridge.engine.source import ProjectLibrary
from bridge.engine.wanted import Find, View
from bridge.errors import FeatureUnavailable
from bridge.verify.declared import sources, state_scope
from mappings.kinds import Kind
from mappings.records import Rate
from mappings.refs import WORKSPACE


async def with_remarks(legacy: LegacyClient, library: ProjectLibrary) -> ProjectLibrary:
    """``library`` with its project's comments and root budget note, read from the legacy surface."""
    project_id = library.project.id
    comments = await remarks_read.comments(legacy, project_id)
    return replace(library, comments=comments, root_note=await remarks_read.root_note(legacy, project_id))


async def workspace_rates(legacy: LegacyClient) -> tuple[Rate, ...]:
    return await remarks_read.rates(legacy)


def available(kind: KindSpec, lacking: frozenset[Kind], view: View, find: Find) -> frozenset[tuple[str, str]]:
    """The kind's source records in the workspace, none when the target's plan lacks its feature (they are then
    counted as not carried, ``engine.features``)."""
    return frozenset() if kind.kind in lacking else sources(kind, view, find, state_scope(WORKSPACE))


def within_parents(
    records: Mapping[KindSpec, frozenset[tuple[str, str]]],
) -> dict[tuple[str, str, str], tuple[str, str, str]]:
    """Each record of a kind written within another record (a rate under its pack) hangs under that record: a
    refused pack holds its items back (the workspace plan without rate packs, A87)."""
    return {
        (kind.stored, scope, legacy_id): (kind.within[0].value, scope, kind.within[1])
        for kind, found in records.items()
        if kind.within is not None
        for scope, legacy_id in found
    }


async def listed_rows(v1: V1Client, kind: KindSpec, lookup: Callable[[str, str, str], str | None]) -> list[object]:
    """The rows of a workspace kind's v1 listing; under its parent record for a kind written ``within`` one
    (none while that record has no v1 id), none when the workspace plan lacks the feature (v1 402)."""
    params: tuple[str, ...] = ()
    if kind.within is not None:
        parent = lookup(kind.within[0], state_scope(WORKSPACE), kind.within[1])
        if parent is None:
            return []
        params = (parent,)
    try:
        return [row async for page in v1.rows(kind.natural.listed_by, params) for row in page]
    except FeatureUnavailable:
        return []
