"""The workspace-wide kinds of a run: spaces, contacts, workspace library items (currencies, fringes, globals,
tags) and the projects themselves, each kind through the mappings and the ``Applier``.

``writers()`` maps each of these kinds to the coroutine that writes it; the run executes them in the waves
of ``engine.steps`` (kinds of one wave side by side). The records of one kind go concurrently, as many at a
time as the clients' limiter lets through. Every writer returns its ``Tally``; nothing here keeps counts.

The library is planned once from the source (pure: the mappings' reuse rule, A18), so the project copies the
project pipelines write are known before any of them starts.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine, Iterable, Mapping, Sequence
from typing import TypeVar

from bridge.engine.apply import Applier, Desired
from bridge.engine.books import Books
from bridge.engine.plan import Fate, QuarantinedRecord, Refusal, Tally, not_carried, total
from bridge.engine.source import WorkspaceSource
from bridge.engine.steps import crosswalk_kind
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

W = TypeVar("W", bound=Mapping[str, object])
Writer = Callable[[], Coroutine[object, object, Tally]]
CopyPlan = tuple[Kind, ProjectCopy[JsonObject], bool]
"""A project's copy of a workspace item: its copy kind, the copy, and whether its own values are patched in."""

# A09: the workspace currency, in which legacy contact rates are expressed.
WORKSPACE_CURRENCY = "USD"
COPY_STEPS = {Kind.CURRENCY: Kind.PROJECT_CURRENCY, Kind.FRINGE: Kind.PROJECT_FRINGE, Kind.GLOBAL: Kind.PROJECT_GLOBAL}
COPY_KEY_FIELDS = frozenset({"code", "symbol", "name"})
LIBRARY_ROUTES = {Kind.CURRENCY: "currencies", Kind.FRINGE: "fringes", Kind.GLOBAL: "globals", Kind.TAG: "tags"}
# Kinds drawn from the projects' libraries: with only some projects selected, the source seen is partial and an
# item the crosswalk knows may belong to a project not selected, so removals are only counted on a whole run.
FROM_PROJECTS = frozenset({Kind.PROJECT, Kind.TAG, Kind.CURRENCY, Kind.FRINGE, Kind.GLOBAL})


def refused(kind: Kind, errors: Iterable[MappingError]) -> Tally:
    """The mappings' refusals of ``kind`` (never journalled: no request was built for them)."""
    records = [
        QuarantinedRecord(e.ref.kind, e.ref.scope, e.ref.legacy_id, e.code.value, e.field, e.message) for e in errors
    ]
    return Tally(quarantine=tuple(Refusal(kind, record) for record in records))


def carried(notes: Iterable[Note]) -> Tally:
    """The values a mapping could not carry, as a tally's listing."""
    return Tally(not_carried=tuple(not_carried(notes)))


def removed(books: Books, kind: Kind, scope: str, seen: Iterable[str]) -> Tally:
    """Records of ``kind`` in ``scope`` an earlier run wrote that the source no longer holds: reported and left
    on the target (deleting target data is for a person to decide)."""
    gone = books.legacy_ids(crosswalk_kind(kind), scope) - set(seen)
    return Tally.of(kind, Fate.REMOVED, len(gone)) if gone else Tally()


async def apply_all(applier: Applier, records: Sequence[Desired]) -> Tally:
    """Apply records side by side; the sum of what each took."""
    return total(applied.tally for applied in await run_all(applier.apply(record) for record in records))


def as_json(body: Mapping[str, object]) -> JsonObject:
    """A mapped TypedDict body as the plain JSON object a write carries."""
    return dict(body)


def _copies(kind: Kind, plan: LibraryPlan[W]) -> list[tuple[str, CopyPlan]]:
    """Per legacy project, its copies of the workspace items of ``kind``."""
    items = {item.name: item for item in plan.items}
    found: list[tuple[str, CopyPlan]] = []
    for copy in plan.copies:
        winner = items[copy.name]
        # The workspace item was created from this very record: the copy already holds its values.
        own = winner.existing_id is not None or winner.ref != copy.ref
        # A40: the copy's name field (code, symbol) is its workspace item's by construction and not editable.
        values = {k: v for k, v in copy.patch.items() if k not in COPY_KEY_FIELDS}
        patch: ProjectCopy[JsonObject] = ProjectCopy(copy.kind, copy.name, copy.ref, values)
        found.append((copy.ref.scope, (COPY_STEPS[kind], patch, own)))
    return found


class WorkspaceStage:
    """Writes the workspace-wide kinds of one run."""

    def __init__(self, applier: Applier, source: WorkspaceSource, *, whole: bool) -> None:
        self.applier = applier
        self.books = applier.books
        self.source = source
        self.whole = whole
        budgets = [p.budget for p in source.projects]
        self.tags = plan_tags({p.project.id: p.tags for p in source.projects}, (), [p.project for p in source.projects])
        self.currencies = plan_currencies({p.project.id: p.phases for p in source.projects}, {})
        self.fringes = plan_fringes(budgets, {})
        self.globals_ = plan_globals(budgets, {})
        self.copies: dict[str, list[CopyPlan]] = {}
        copies = (
            _copies(Kind.CURRENCY, self.currencies)
            + _copies(Kind.FRINGE, self.fringes)
            + _copies(Kind.GLOBAL, self.globals_)
        )
        for project, copy in copies:
            self.copies.setdefault(project, []).append(copy)

    def writers(self) -> dict[Kind, Writer]:
        """The coroutine that writes each workspace-wide kind."""
        return {
            Kind.SPACE: self.spaces,
            Kind.CONTACT: self.contacts,
            Kind.TAG: self.tag_items,
            Kind.CURRENCY: lambda: self.items(Kind.CURRENCY, self.currencies),
            Kind.FRINGE: lambda: self.items(Kind.FRINGE, self.fringes),
            Kind.GLOBAL: lambda: self.items(Kind.GLOBAL, self.globals_),
            Kind.PROJECT: self.projects,
        }

    def _removed(self, kind: Kind, seen: Iterable[str]) -> Tally:
        if kind in FROM_PROJECTS and not self.whole:
            return Tally()
        return removed(self.books, kind, WORKSPACE, seen)

    async def spaces(self) -> Tally:
        desired: list[Desired] = []
        errors: list[MappingError] = []
        for space in self.source.spaces:
            try:
                mapped = map_space(space)
            except MappingError as error:
                errors.append(error)
                continue
            patch = space_patch(space)
            body = as_json(mapped.body)
            state = {**body, **patch} if patch else None
            desired.append(Desired(Kind.SPACE, WORKSPACE, space.id, "/spaces", body, "/spaces/{id}", state))
        seen = (space.id for space in self.source.spaces)
        return refused(Kind.SPACE, errors) + await apply_all(self.applier, desired) + self._removed(Kind.SPACE, seen)

    async def contacts(self) -> Tally:
        desired: list[Desired] = []
        errors: list[MappingError] = []
        notes: list[Note] = []
        for contact in self.source.contacts:
            try:
                mapped = map_contact(contact, WORKSPACE_CURRENCY)
            except MappingError as error:
                errors.append(error)
                continue
            notes.extend(mapped.notes)
            desired.append(
                Desired(Kind.CONTACT, WORKSPACE, contact.id, "/contacts", as_json(mapped.body), "/contacts/{id}")
            )
        seen = (contact.id for contact in self.source.contacts)
        written = await apply_all(self.applier, desired)
        return refused(Kind.CONTACT, errors) + carried(notes) + written + self._removed(Kind.CONTACT, seen)

    async def tag_items(self) -> Tally:
        route = LIBRARY_ROUTES[Kind.TAG]
        work = [
            Desired(Kind.TAG, WORKSPACE, ref.legacy_id, f"/library/{route}", as_json(body), f"/library/{route}/{{id}}")
            for ref, body in self.tags.tags
        ]
        seen = [ref.legacy_id for ref, _ in self.tags.tags]
        return (
            refused(Kind.TAG, self.tags.quarantined)
            + await apply_all(self.applier, work)
            + self._removed(Kind.TAG, seen)
        )

    async def items(self, kind: Kind, plan: LibraryPlan[W]) -> Tally:
        """Workspace items to create, keyed in the crosswalk by name (the mappings' reuse rule, A18)."""
        route = LIBRARY_ROUTES[kind]
        work = [
            Desired(kind, WORKSPACE, item.name, f"/library/{route}", as_json(item.body), f"/library/{route}/{{id}}")
            for item in plan.items
        ]
        seen = [item.name for item in plan.items]
        return refused(kind, plan.quarantined) + await apply_all(self.applier, work) + self._removed(kind, seen)

    async def projects(self) -> Tally:
        desired: list[Desired] = []
        errors: list[MappingError] = []
        for library in self.source.projects:
            project = library.project
            try:
                mapped = map_project(project, self.books.lookup)
            except MappingError as error:
                errors.append(error)
                continue
            body = as_json(mapped.body)
            patch = project_patch(project)
            state = {**body, **patch} if patch else None
            desired.append(Desired(Kind.PROJECT, WORKSPACE, project.id, "/projects", body, "/projects/{id}", state))
        seen = (p.project.id for p in self.source.projects)
        written = await apply_all(self.applier, desired)
        return refused(Kind.PROJECT, errors) + written + self._removed(Kind.PROJECT, seen)
