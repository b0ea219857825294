"""Reading the totals each side computes, through the clients: everything the comparison needs, nothing more.

Per migrated project the legacy side costs two requests (the whole budget with every line's totals per
phase, the tags with their totals); the v1 side costs one totals read for every phase at once, one per
top-level account (the topsheet accountants sign off on) and the line list (for the set check, paged by 100),
plus one budget-document read per differing branch when a difference is drilled down (``V1Branches``). The
actuals and transactions are read a window and a page at a time by ``actuals.py``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from bridge.clients.legacy import LegacyClient, TagTotals
from bridge.clients.models import BudgetLine, PhaseValues
from bridge.clients.v1 import V1Client
from bridge.engine.source import ProjectLibrary
from bridge.errors import AmbiguousAccount, PayloadTooLarge
from bridge.verify.drill import Branch, ExtraNode, Node
from mappings.records import Project, ProjectBudget, Tag


@dataclass(frozen=True, slots=True)
class LegacyProject:
    """One project's budget and tags as the legacy surface computes them, and its tag records."""

    budget: ProjectBudget
    tags: Mapping[str, TagTotals]
    tag_records: tuple[Tag, ...] = ()


@dataclass(frozen=True, slots=True)
class V1Project:
    """One project as v1 computes it: totals per visible phase and every line."""

    v1_id: str
    totals: Mapping[str, PhaseValues]
    lines: tuple[BudgetLine, ...]


async def read_legacy(legacy: LegacyClient, project_id: str) -> LegacyProject:
    budget = await legacy.budget(project_id)
    return LegacyProject(budget, await legacy.tag_totals(project_id), tuple(await legacy.tags(project_id)))


async def read_v1(v1: V1Client, v1_project_id: str) -> V1Project:
    """Totals, then the line list (a cursor chain, paged in order)."""
    totals = (await v1.totals(v1_project_id)).value.totals
    return V1Project(v1_project_id, totals, tuple([line async for line in v1.lines(v1_project_id)]))


def amounts(values: Mapping[str, PhaseValues]) -> dict[str, int]:
    """The ``amount`` per phase id of a totals map."""
    return {phase_id: v.amount for phase_id, v in values.items()}


def _values_of(raw: object) -> dict[str, int]:
    """``values``/``phaseTotals`` of a line read with them: amount per phase id (absent fields read as 0)."""
    if not isinstance(raw, dict):
        return {}
    out: dict[str, int] = {}
    for phase_id, value in raw.items():
        parsed = PhaseValues.model_validate(value) if isinstance(value, dict) else PhaseValues()
        out[str(phase_id)] = parsed.amount
    return out


@dataclass(slots=True)
class V1Branches:
    """The drill's reader on v1: the topsheet through /budget/totals by path, deeper branches by document.

    A branch's document holds every line under it with its values, so one read serves the whole branch's
    descent; a top-level path that two accounts share (409) falls back to the whole project's document.
    """

    v1: V1Client
    project: V1Project
    known: frozenset[str]
    """v1 ids the crosswalk knows: anything else under a read branch is grafted in as unexpected."""
    documents: dict[str, dict[str, tuple[BudgetLine, dict[str, int]]]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    paths: dict[str, str | None] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.paths = {line.id: line.path for line in self.project.lines}

    async def read(self, node: Node) -> Branch:
        if node.v1_id == self.project.v1_id:
            return await self._topsheet(node)
        rows = await self._document_holding(node)
        values = {c.v1_id: rows[c.v1_id][1] for c in node.children if c.v1_id in rows}
        extras = tuple(
            ExtraNode(line.id, line.parent_id, line.type or "line", line.account_id, line.path, line.description, vals)
            for line, vals in rows.values()
            if line.id not in self.known
        )
        return Branch(values, extras)

    async def _topsheet(self, root: Node) -> Branch:
        values: dict[str, dict[str, int]] = {}
        for child in root.children:
            path = self.paths.get(child.v1_id or "")
            if child.v1_id is None or path is None:
                continue  # not on v1 at all: the drill marks it missing
            try:
                values[child.v1_id] = amounts((await self.v1.totals(self.project.v1_id, path=path)).value.totals)
            except AmbiguousAccount:
                rows = await self._document("")
                values[child.v1_id] = rows[child.v1_id][1] if child.v1_id in rows else {}
        return Branch(values)

    async def _document_holding(self, node: Node) -> dict[str, tuple[BudgetLine, dict[str, int]]]:
        path = self.paths.get(node.v1_id or "") or ""
        for rows in self.documents.values():
            if node.v1_id in rows:  # an ancestor's document already holds this whole branch
                return rows
        try:
            return await self._document(path)
        except AmbiguousAccount:
            pass
        try:
            return await self._document("")
        except PayloadTooLarge:
            return await self._document_by_lines(node)

    async def _document(self, path: str) -> dict[str, tuple[BudgetLine, dict[str, int]]]:
        if path not in self.documents:
            doc = (await self.v1.budget(self.project.v1_id, path=path or None)).value
            self.documents[path] = {
                line.id: (line, _values_of((line.model_extra or {}).get("values"))) for line in doc.lines
            }
        return self.documents[path]

    async def _document_by_lines(self, node: Node) -> dict[str, tuple[BudgetLine, dict[str, int]]]:
        """Fallback when no document can select the branch: its children one by one through the line reads."""
        rows: dict[str, tuple[BudgetLine, dict[str, int]]] = {}
        children = [line for line in self.project.lines if line.parent_id == node.v1_id]
        for line in children:
            read = await self.v1.get_line(self.project.v1_id, line.id, expand=("phaseTotals",))
            rows[line.id] = (read, _values_of((read.model_extra or {}).get("phaseTotals")))
        self.notes.append(f"branch {node.path or node.key} read line by line (no document could select it)")
        return rows


def library_of(project: Project, legacy: LegacyProject) -> ProjectLibrary:
    """The project's library as the verification read it: a budget without its lines, and its tags."""
    budget = legacy.budget.model_copy(update={"lines": ()})
    return ProjectLibrary(project, budget.phases, budget, legacy.tag_records)
