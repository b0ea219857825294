"""The legacy reads of the remarks a run carries: a project's comments and root budget note, the workspace rates.

Each read gives typed records (``mappings.records``); a row its type refuses, or an id listed twice, is a
refused record, quarantined by its mapping like any other bad record. ``engine.source`` joins them to the
``View`` (a project's with its library, the rates with the workspace's lists).
"""

from __future__ import annotations

from bridge.clients.legacy import LegacyClient
from mappings.kinds import Kind
from mappings.records import BudgetNote, Comment, Rate
from mappings.refs import WORKSPACE
from mappings.remarks import ROOT_NOTE
from mappings.shapes import parse_row, without_duplicates


async def comments(legacy: LegacyClient, project_id: str) -> tuple[Comment, ...]:
    """The project's comments (the list is published without paging, A03)."""
    rows = await legacy.comments(project_id)
    parsed = [parse_row(Comment, row, Kind.COMMENT, project_id, index=n) for n, row in enumerate(rows)]
    return tuple(without_duplicates(parsed, Kind.COMMENT, project_id))


async def root_note(legacy: LegacyClient, project_id: str) -> BudgetNote | None:
    """The project's root budget note; None when it has none (A70)."""
    raw = await legacy.root_note(project_id)
    if not isinstance(raw, dict):
        return None
    # NoteData publishes no required id: a note without one is still the project's one root note.
    return parse_row(BudgetNote, {**raw, "id": raw.get("id") or ROOT_NOTE}, Kind.COMMENT, project_id)


async def rates(legacy: LegacyClient) -> tuple[Rate, ...]:
    """The workspace rates, every page (A71)."""
    rows = await legacy.rates()
    parsed = [parse_row(Rate, row, Kind.RATE, WORKSPACE, index=n) for n, row in enumerate(rows)]
    return tuple(without_duplicates(parsed, Kind.RATE, WORKSPACE))
