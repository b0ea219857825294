"""The workspace-wide part of a run: spaces, contacts, workspace library items (currencies, fringes, globals,
tags) and the projects themselves, each kind through the mappings and the ``Applier``.

Kinds run one after another in the order of ``engine.steps``; the records of one kind go concurrently, as
many at a time as the clients' limiter lets through.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TypeVar

import structlog

from bridge.engine.apply import Applier, Desired
from bridge.engine.plan import Plan, QuarantinedRecord, not_carried
from bridge.engine.source import WorkspaceSource
from bridge.engine.tasks import run_all
from bridge.engine.writes import JsonObject
from mappings.contacts import map_contact
from mappings.errors import MappingError
from mappings.kinds import Kind
from mappings.library import LibraryPlan, ProjectCopy, plan_currencies, plan_fringes, plan_globals
from mappings.notes import Note
from mappings.refs import WORKSPACE
from mappings.spaces import map_project, map_space, project_patch, space_patch
from mappings.tags import plan_tags

log = structlog.get_logger("bridge.engine")

W = TypeVar("W", bound=Mapping[str, object])
Quarantiner = Callable[[Sequence[QuarantinedRecord]], None]
"""Where mapping-level quarantine goes: the books, and the run's ledger for the final listing."""

# A09: the workspace currency, in which legacy contact rates are expressed.
WORKSPACE_CURRENCY = "USD"
COPY_STEPS = {Kind.CURRENCY: Kind.PROJECT_CURRENCY, Kind.FRINGE: Kind.PROJECT_FRINGE, Kind.GLOBAL: Kind.PROJECT_GLOBAL}
COPY_KEY_FIELDS = frozenset({"code", "symbol", "name"})
LIBRARY_ROUTES = {Kind.CURRENCY: "currencies", Kind.FRINGE: "fringes", Kind.GLOBAL: "globals", Kind.TAG: "tags"}


def quarantined(errors: Iterable[MappingError]) -> list[QuarantinedRecord]:
    """Mapping errors as quarantine records (never journalled: no request was built for them)."""
    return [
        QuarantinedRecord(e.ref.kind, e.ref.scope, e.ref.legacy_id, e.code.value, e.field, e.message) for e in errors
    ]


def refuse(ledger: Plan, on_quarantine: Quarantiner, kind: Kind, errors: Iterable[MappingError]) -> None:
    """Count the mappings' refusals of ``kind`` in the ledger and file them in the quarantine."""
    records = quarantined(errors)
    for record in records:
        ledger.of(kind).quarantined[record.code] += 1
    on_quarantine(records)


def as_json(body: Mapping[str, object]) -> JsonObject:
    """A mapped TypedDict body as the plain JSON object a write carries."""
    return dict(body)


class WorkspaceStage:
    """Writes the workspace-wide kinds of one run."""

    def __init__(self, applier: Applier, ledger: Plan, on_quarantine: Quarantiner) -> None:
        self.applier = applier
        self.ledger = ledger
        self.on_quarantine = on_quarantine
        self.notes: list[Note] = []
        # Per legacy project: (copy step, the copy, whether it needs its own values patched in).
        self.copies: dict[str, list[tuple[Kind, ProjectCopy[JsonObject], bool]]] = {}

    async def _all(self, records: Sequence[Desired]) -> None:
        await run_all(self.applier.apply(record) for record in records)

    def _refuse(self, kind: Kind, errors: Iterable[MappingError]) -> None:
        refuse(self.ledger, self.on_quarantine, kind, errors)

    async def run(self, source: WorkspaceSource) -> None:
        await self.spaces(source)
        await self.contacts(source)
        await self.library(source)
        await self.projects(source)

    async def spaces(self, source: WorkspaceSource) -> None:
        desired: list[Desired] = []
        errors: list[MappingError] = []
        for space in source.spaces:
            try:
                mapped = map_space(space)
            except MappingError as error:
                errors.append(error)
                continue
            patch = space_patch(space)
            body = as_json(mapped.body)
            desired.append(
                Desired(
                    Kind.SPACE,
                    WORKSPACE,
                    space.id,
                    "/spaces",
                    body,
                    "/spaces/{id}",
                    {**body, **patch} if patch else None,
                )
            )
        self._refuse(Kind.SPACE, errors)
        await self._all(desired)

    async def contacts(self, source: WorkspaceSource) -> None:
        desired: list[Desired] = []
        errors: list[MappingError] = []
        for contact in source.contacts:
            try:
                mapped = map_contact(contact, WORKSPACE_CURRENCY)
            except MappingError as error:
                errors.append(error)
                continue
            self.notes.extend(mapped.notes)
            self.ledger.not_carried.extend(not_carried(mapped.notes))
            desired.append(
                Desired(Kind.CONTACT, WORKSPACE, contact.id, "/contacts", as_json(mapped.body), "/contacts/{id}")
            )
        self._refuse(Kind.CONTACT, errors)
        await self._all(desired)

    async def library(self, source: WorkspaceSource) -> None:
        budgets = [p.budget for p in source.projects]
        tags = plan_tags({p.project.id: p.tags for p in source.projects}, (), [p.project for p in source.projects])
        self._refuse(Kind.TAG, tags.quarantined)
        self.notes.extend(tags.notes)
        work = [
            Desired(Kind.TAG, WORKSPACE, ref.legacy_id, "/library/tags", as_json(body), "/library/tags/{id}")
            for ref, body in tags.tags
        ]
        work += self._items(Kind.CURRENCY, plan_currencies({p.project.id: p.phases for p in source.projects}, {}))
        work += self._items(Kind.FRINGE, plan_fringes(budgets, {}))
        work += self._items(Kind.GLOBAL, plan_globals(budgets, {}))
        await self._all(work)

    def _items(self, kind: Kind, plan: LibraryPlan[W]) -> list[Desired]:
        """Workspace items to create, keyed in the crosswalk by name (the mappings' reuse rule, A18)."""
        self._refuse(kind, plan.quarantined)
        self.notes.extend(plan.notes)
        route = LIBRARY_ROUTES[kind]
        items = {item.name: item for item in plan.items}
        for copy in plan.copies:
            winner = items[copy.name]
            # The workspace item was created from this very record: the copy already holds its values.
            own = winner.existing_id is not None or winner.ref != copy.ref
            # A40: the copy's name field (code, symbol) is its workspace item's by construction and not editable.
            values = {k: v for k, v in copy.patch.items() if k not in COPY_KEY_FIELDS}
            patch: ProjectCopy[JsonObject] = ProjectCopy(copy.kind, copy.name, copy.ref, values)
            self.copies.setdefault(copy.ref.scope, []).append((COPY_STEPS[kind], patch, own))
        return [
            Desired(kind, WORKSPACE, item.name, f"/library/{route}", as_json(item.body), f"/library/{route}/{{id}}")
            for item in plan.items
        ]

    async def projects(self, source: WorkspaceSource) -> None:
        desired: list[Desired] = []
        errors: list[MappingError] = []
        for library in source.projects:
            project = library.project
            try:
                mapped = map_project(project, self.applier.books.lookup)
            except MappingError as error:
                errors.append(error)
                continue
            self.notes.extend(mapped.notes)
            body = as_json(mapped.body)
            patch = project_patch(project)
            desired.append(
                Desired(
                    Kind.PROJECT,
                    WORKSPACE,
                    project.id,
                    "/projects",
                    body,
                    "/projects/{id}",
                    {**body, **patch} if patch else None,
                )
            )
        self._refuse(Kind.PROJECT, errors)
        await self._all(desired)
