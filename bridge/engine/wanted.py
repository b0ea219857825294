"""What the target should hold, kind by kind: each kind's records as the run reads them, mapped lazily.

A kind's ``records`` function (declared in ``engine.kinds``) turns a ``View`` of the source into ``Wanted``:
its source records in groups that are written one after another (a group may name v1 ids an earlier group
wrote: a tree level its parents, a rollup phase its inputs), the records the mappings refused outright, the
records that wait for a parent the run could not write, and the legacy ids the source holds (for the
"removed at source" count). Each record is mapped only when its group's turn comes (``Want.mapped``), with
the crosswalk as it is then. Everything here is pure: no request, no state write.

The workspace library is planned once from the source (the mappings' reuse rule, A18), so the project copies
each project writes are known before any of them starts.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from bridge.engine.source import ProjectLibrary, WorkspaceSource
from mappings.budget import BudgetTree
from mappings.contacts import map_contact
from mappings.errors import MappingError
from mappings.formulas import symbols_of
from mappings.kinds import Kind
from mappings.library import LibraryPlan, ProjectCopy, WorkspaceItem, plan_currencies, plan_fringes, plan_globals
from mappings.lines import line_body, plan_lines
from mappings.notes import Note
from mappings.phases import default_estimate_patch, phase_body, plan_phases
from mappings.records import Contact, LineFields, Phase, Project, Space
from mappings.refs import WORKSPACE, Lookup
from mappings.spaces import map_project, map_space, project_patch, space_patch
from mappings.tags import TagPlan, plan_tags

JsonObject = dict[str, object]
W = TypeVar("W", bound=Mapping[str, object])

# A09: the workspace currency, in which legacy contact rates are expressed.
WORKSPACE_CURRENCY = "USD"
# A new project answers defaultBudget.estimatePhaseId; the legacy project's first estimate phase maps onto it
# (A6), kept under this crosswalk kind (scope and legacy id: the legacy project id).
DEFAULT_PHASE = "default_phase"
# A40: a copy's name field (code, symbol) is its workspace item's by construction and not editable.
COPY_KEY_FIELDS = frozenset({"code", "symbol", "name"})
# The id a dry run gives a record it would create, so later kinds can still be mapped (``executor``).
PLACEHOLDER = "planned:"


@dataclass(frozen=True, slots=True)
class Desired:
    """One record as the target should hold it: the create body and, when it differs, the full state a PATCH
    brings it to after the create (an archived space, a copy patched to the project's own values)."""

    legacy_id: str
    body: JsonObject
    state: JsonObject | None = None
    notes: tuple[Note, ...] = ()
    # The record is created by patching an object the service made for us (a project's default phase).
    adopt_id: str | None = None
    # The create body already gives the record its full state (a project's copy of the workspace item made from
    # this very record): no PATCH follows the create, and the create's hash stands for the state's.
    holds: bool = False

    @property
    def full_state(self) -> JsonObject:
        return self.state if self.state is not None else self.body


@dataclass(frozen=True, slots=True)
class Want:
    """One source record, mapped when its group is written (MappingError: the mappings refuse it)."""

    legacy_id: str
    mapped: Callable[[Lookup], Desired]


@dataclass(frozen=True, slots=True)
class Wanted:
    """One kind's records in one scope: groups written in order, refusals, records held back, ids at source."""

    groups: tuple[tuple[Want, ...], ...] = ()
    refused: tuple[MappingError, ...] = ()
    held: int = 0
    seen: tuple[str, ...] = ()

    @property
    def records(self) -> int:
        """The source records of the kind in this scope (each one planned, refused or held back)."""
        return sum(len(group) for group in self.groups) + len(self.refused) + self.held


CopyPlan = tuple[Kind, ProjectCopy[JsonObject], bool]
"""A project's copy of a workspace item: its copy kind, the copy, and whether its own values are patched in."""

COPY_OF = {Kind.PROJECT_CURRENCY: Kind.CURRENCY, Kind.PROJECT_FRINGE: Kind.FRINGE, Kind.PROJECT_GLOBAL: Kind.GLOBAL}


@dataclass(frozen=True, slots=True)
class LibraryPlans:
    """The workspace library planned from the whole source, and each project's copies of it."""

    tags: TagPlan
    items: Mapping[Kind, LibraryPlan[JsonObject]]
    copies: Mapping[str, tuple[CopyPlan, ...]]

    @classmethod
    def of(cls, source: WorkspaceSource, *, whole: bool = True) -> LibraryPlans:
        """``whole``: the source holds every project. Otherwise which project's values a workspace item the
        target already holds came from is not known here, so every copy is patched to its own project's."""
        budgets = [p.budget for p in source.projects]
        tags = plan_tags({p.project.id: p.tags for p in source.projects}, (), [p.project for p in source.projects])
        items: dict[Kind, LibraryPlan[JsonObject]] = {
            Kind.CURRENCY: _plain(plan_currencies({p.project.id: p.phases for p in source.projects}, {})),
            Kind.FRINGE: _plain(plan_fringes(budgets, {})),
            Kind.GLOBAL: _plain(plan_globals(budgets, {})),
        }
        copies: dict[str, list[CopyPlan]] = {}
        for copy_kind, item_kind in COPY_OF.items():
            for project, copy in _copies(copy_kind, items[item_kind], whole=whole):
                copies.setdefault(project, []).append(copy)
        return cls(tags, items, {project: tuple(found) for project, found in copies.items()})


def _plain(plan: LibraryPlan[W]) -> LibraryPlan[JsonObject]:
    """A plan whose bodies are plain JSON objects, as a write carries them."""
    items = tuple(WorkspaceItem(i.kind, i.name, i.ref, dict(i.body), i.existing_id) for i in plan.items)
    copies = tuple(ProjectCopy(c.kind, c.name, c.ref, dict(c.patch)) for c in plan.copies)
    return LibraryPlan(items, copies, plan.quarantined, plan.notes)


def _copies(kind: Kind, plan: LibraryPlan[JsonObject], *, whole: bool) -> list[tuple[str, CopyPlan]]:
    """Per legacy project, its copies of the workspace items of ``plan``."""
    items = {item.name: item for item in plan.items}
    found: list[tuple[str, CopyPlan]] = []
    for copy in plan.copies:
        winner = items[copy.name]
        # The workspace item was created from this very record: the copy already holds its values.
        own = not whole or winner.existing_id is not None or winner.ref != copy.ref
        values = {k: v for k, v in copy.patch.items() if k not in COPY_KEY_FIELDS}
        found.append((copy.ref.scope, (kind, ProjectCopy(copy.kind, copy.name, copy.ref, values), own)))
    return found


@dataclass(frozen=True, slots=True)
class View:
    """What a kind's records are drawn from: the source read before any write and its planned library; inside
    a project, that project's library, its v1 id and (for its lines) its budget tree."""

    source: WorkspaceSource
    library: LibraryPlans
    project: ProjectLibrary | None = None
    v1_project: str = ""
    tree: Sequence[LineFields] = field(default=())

    @property
    def inside(self) -> ProjectLibrary:
        if self.project is None:
            raise ValueError("a project kind's records were asked for outside a project")
        return self.project


Find = Callable[[str, str, str], str | None]
"""The crosswalk as the run holds it: (crosswalk kind, scope, legacy id) -> v1 id (a ``Lookup`` for the
mappings, which also answers the engine's own kinds, e.g. a project's default phase)."""

Records = Callable[[View, Find], Wanted]


def _one_by_one(group: Sequence[Want], refused: Sequence[MappingError] = (), seen: Sequence[str] = ()) -> Wanted:
    return Wanted((tuple(group),) if group else (), tuple(refused), 0, tuple(seen))


def spaces(view: View, _lookup: Find) -> Wanted:
    def want(space: Space) -> Want:
        def build(_: Lookup) -> Desired:
            body = dict(map_space(space).body)
            patch = space_patch(space)
            return Desired(space.id, body, {**body, **patch} if patch else None)

        return Want(space.id, build)

    found = view.source.spaces
    return _one_by_one([want(space) for space in found], seen=[space.id for space in found])


def contacts(view: View, _lookup: Find) -> Wanted:
    def want(contact: Contact) -> Want:
        def build(_: Lookup) -> Desired:
            mapped = map_contact(contact, WORKSPACE_CURRENCY, private=view.source.contact_private)
            return Desired(contact.id, dict(mapped.body), notes=mapped.notes)

        return Want(contact.id, build)

    found = view.source.contacts
    return _one_by_one([want(contact) for contact in found], seen=[contact.id for contact in found])


def _ready(desired: Desired) -> Want:
    """A record already mapped (planned with the whole source, or a copy's reference to its item)."""
    return Want(desired.legacy_id, lambda _: desired)


def tags(view: View, _lookup: Find) -> Wanted:
    plan = view.library.tags
    wants = [_ready(Desired(ref.legacy_id, dict(body))) for ref, body in plan.tags]
    return _one_by_one(wants, plan.quarantined, [w.legacy_id for w in wants])


def library_items(kind: Kind) -> Records:
    """Workspace items of ``kind``, keyed in the crosswalk by name (the mappings' reuse rule, A18)."""

    def records(view: View, _lookup: Find) -> Wanted:
        plan = view.library.items[kind]
        wants = [_ready(Desired(item.name, dict(item.body))) for item in plan.items]
        return _one_by_one(wants, plan.quarantined, [w.legacy_id for w in wants])

    return records


def projects(view: View, _lookup: Find) -> Wanted:
    def want(project: Project) -> Want:
        def build(lookup: Lookup) -> Desired:
            body = dict(map_project(project, lookup).body)
            patch = project_patch(project)
            return Desired(project.id, body, {**body, **patch} if patch else None)

        return Want(project.id, build)

    found = [library.project for library in view.source.projects]
    return _one_by_one([want(project) for project in found], seen=[project.id for project in found])


def project_copies(kind: Kind) -> Records:
    """A project's copies of the workspace items of ``kind``: each adds its item (``sourceId``) and is patched
    to the project's own values when they differ from the item's."""

    def records(view: View, lookup: Find) -> Wanted:
        project_id = view.inside.project.id
        mine = [c for c in view.library.copies.get(project_id, ()) if c[0] is kind]
        held = 0
        groups: list[tuple[Want, ...]] = []
        for wave in copy_waves(mine):
            group: list[Want] = []
            for _, copy, own_values in wave:
                source = lookup(copy.kind, WORKSPACE, copy.name)
                if source is None:
                    # The workspace item is quarantined: its copy waits for it; lines report the missing reference.
                    held += 1
                    continue
                body: JsonObject = {"sourceId": source}
                group.append(_ready(Desired(copy.ref.legacy_id, body, dict(copy.patch), holds=not own_values)))
            if group:
                groups.append(tuple(group))
        return Wanted(tuple(groups), (), held, tuple(c[1].ref.legacy_id for c in mine))

    return records


def copy_waves(copies: Sequence[CopyPlan]) -> list[list[CopyPlan]]:
    """Copies in waves: everything but globals first, then globals after the globals their formulas use.

    The target refuses a copy whose formula names a global the project does not hold yet. A formula naming an
    unknown symbol or a cycle never blocks the rest: whatever is left goes last and the target's answer
    quarantines it.
    """
    waves = [[c for c in copies if c[0] is not Kind.PROJECT_GLOBAL]]
    pending = [c for c in copies if c[0] is Kind.PROJECT_GLOBAL]
    placed: set[str] = set()
    symbols = {c[1].name for c in pending}
    while pending:
        ready = [c for c in pending if _uses(c) & symbols <= placed]
        if not ready:
            waves.append(pending)
            break
        waves.append(ready)
        placed |= {c[1].name for c in ready}
        pending = [c for c in pending if c not in ready]
    return [wave for wave in waves if wave]


def _uses(copy: CopyPlan) -> frozenset[str]:
    formula = copy[1].patch.get("formula")
    if not isinstance(formula, str):
        return frozenset()
    try:
        return symbols_of(formula, copy[1].ref, "formula") - {copy[1].name}
    except MappingError:
        return frozenset()


def phases(view: View, lookup: Find) -> Wanted:
    """The default estimate phase (adopted: the new project made it), the plain phases side by side, then the
    rollups one at a time in the mappings' order (a rollup may sum another rollup)."""
    library = view.inside
    project_id = library.project.id
    plan = plan_phases(project_id, library.phases)
    groups: list[tuple[Want, ...]] = []
    if plan.default_estimate is not None:
        default = lookup(DEFAULT_PHASE, WORKSPACE, project_id)
        if default is None and view.v1_project.startswith(PLACEHOLDER):
            default = f"{PLACEHOLDER}{DEFAULT_PHASE}:{project_id}"
        groups.append((_phase(project_id, plan.default_estimate, default),))
    if plan.plain:
        groups.append(tuple(_phase(project_id, phase, None) for phase in plan.plain))
    groups.extend((_phase(project_id, rollup, None),) for rollup in plan.rollups)
    return Wanted(tuple(groups), plan.quarantined, 0, tuple(p.id for p in library.phases))


def _phase(project_id: str, phase: Phase, adopt: str | None) -> Want:
    def build(lookup: Lookup) -> Desired:
        if adopt is not None:
            return Desired(phase.id, dict(default_estimate_patch(project_id, phase, lookup).body), adopt_id=adopt)
        return Desired(phase.id, dict(phase_body(project_id, phase, lookup).body))

    return Want(phase.id, build)


def lines(view: View, _lookup: Find) -> Wanted:
    """The budget tree one level at a time (a level's parents are the level before), from the nodes read."""
    library = view.inside
    symbols = frozenset(g.symbol for g in library.budget.globals_ if g.symbol)
    tree = plan_lines(library.project.id, view.tree, symbols)
    return Wanted(_levels(tree, symbols), tree.quarantined, 0, tuple(node.id for node in view.tree))


def _levels(tree: BudgetTree, symbols: frozenset[str]) -> tuple[tuple[Want, ...], ...]:
    project_id = tree.project_id

    def line(node: LineFields) -> Want:
        def build(lookup: Lookup) -> Desired:
            found = line_body(project_id, node, lookup, symbols)
            return Desired(node.id, dict(found.body), notes=found.notes)

        return Want(node.id, build)

    by_depth: dict[int, list[Want]] = {}
    for node in tree.ordered:
        by_depth.setdefault(tree.depth[node.id], []).append(line(node))
    return tuple(tuple(by_depth[depth]) for depth in sorted(by_depth))
