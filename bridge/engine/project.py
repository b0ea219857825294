"""One project's pipeline: library copies, phases, the budget tree level by level, then its actuals.

``writers`` maps each project-scoped kind to the coroutine that writes it, and ``run`` executes them in the
waves of ``engine.steps`` (each kind needs the v1 ids of the kinds it declares: copies before phases before
lines before transactions), yielding each wave's ``Tally`` for the run to fold. Within a step, independent
requests (the copies, the plain phases, the bulk groups of one tree level, the transaction bulks) go
concurrently. Projects run side by side (see ``run``). A project whose own record is quarantined holds its
contents back: they are counted as held back, per kind, and nothing of them is sent.

Budget lines are grouped anew on every run from what is still missing, 100 per bulk and one tree level at a
time, so a resumed run never re-sends a line the crosswalk knows; the journal replay has already completed
whatever was in flight. Actuals and their split items are the last step (``actuals``).

A budget tree is the largest thing a run holds: it is read as compact nodes, one account at a time (A41), and
``TreeRoom`` admits the trees of several projects by the lines they hold.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from typing import TypeVar, Unpack

from bridge.engine.actuals import ActualsStep, ReadAhead, actual_currency
from bridge.engine.apply import Desired
from bridge.engine.executor import PLACEHOLDER
from bridge.engine.plan import Fate, Tally, total
from bridge.engine.project_step import ProjectStep, ProjectTools
from bridge.engine.source import ProjectLibrary
from bridge.engine.steps import LINE_BULK_LIMIT, Scope, waves
from bridge.engine.tasks import run_all
from bridge.engine.workspace import CopyPlan, Writer, apply_all, as_json, carried, refused, removed
from bridge.engine.writes import DEFAULT_PHASE, JsonObject, Write
from mappings.budget import BudgetTree, LineGroup, chunks
from mappings.errors import MappingError
from mappings.formulas import symbols_of
from mappings.kinds import Kind
from mappings.lines import BULK_KIND as LINE_BULK_KIND
from mappings.lines import bulk_request, line_body, plan_lines
from mappings.phases import default_estimate_patch, phase_body, plan_phases
from mappings.records import LineFields, Phase
from mappings.refs import WORKSPACE

# Line bulks of one tree level whose bodies exist at once (built when a slot frees, see ``lines``).
LINE_BULKS_BUILT = 8
# Budget lines the trees being written may hold before another tree waits: about 70 MB of compact nodes.
LINES_HELD = 40_000
COPY_KINDS = {Kind.PROJECT_CURRENCY: "currencies", Kind.PROJECT_FRINGE: "fringes", Kind.PROJECT_GLOBAL: "globals"}

T = TypeVar("T")


def copy_waves(copies: Sequence[CopyPlan]) -> list[list[CopyPlan]]:
    """Copies in waves: everything but globals first, then globals after the globals their formulas use.

    A formula naming an unknown symbol or a cycle never blocks the rest: whatever is left goes last and the
    target's answer quarantines it.
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


class TreeRoom:
    """Admits budget trees by the lines they hold, so several go at once without memory growing with them.

    A tree is read only while the trees already held hold fewer than ``capacity`` lines and no other tree is
    being read (its size is not known yet); a lone tree always goes, however big. Memory holds at most
    ``capacity`` lines plus one tree, whatever the number of projects in flight.
    """

    def __init__(self, capacity: int = LINES_HELD) -> None:
        self.capacity = capacity
        self.held = 0
        self.trees = 0
        self.reading = False
        self._changed = asyncio.Condition()

    def _fits(self) -> bool:
        return self.trees == 0 or (not self.reading and self.held < self.capacity)

    @asynccontextmanager
    async def holding(self, read: Callable[[], Awaitable[Sequence[T]]]) -> AsyncIterator[Sequence[T]]:
        """Wait for room, ``read`` the tree and hold its lines until the block ends."""
        async with self._changed:
            await self._changed.wait_for(self._fits)
            self.trees += 1
            self.reading = True
        lines: Sequence[T] = ()
        try:
            lines = await read()
            async with self._changed:
                self.held += len(lines)
                self.reading = False
                self._changed.notify_all()
            yield lines
        finally:
            async with self._changed:
                self.held -= len(lines)
                self.trees -= 1
                self.reading = False
                self._changed.notify_all()


class ProjectPipeline(ProjectStep):
    """Writes everything inside one project, after the workspace stage has run."""

    def __init__(self, *, copies: dict[str, list[CopyPlan]], **tools: Unpack[ProjectTools]) -> None:
        super().__init__(**tools)
        self.copies = copies
        self.trees = TreeRoom()
        self.actuals = ActualsStep(**tools)

    def writers(self, library: ProjectLibrary, v1_project: str, read: ReadAhead) -> dict[Kind, Writer]:
        """The coroutine that writes each project-scoped kind of ``library``'s project (its actuals from ``read``)."""
        project_id = library.project.id
        symbols = {g.symbol for g in library.budget.globals_ if g.symbol}
        return {
            **{kind: self._copies_writer(project_id, v1_project, kind) for kind in COPY_KINDS},
            Kind.PHASE: lambda: self.phases(library, v1_project),
            Kind.LINE: lambda: self.lines(project_id, v1_project, symbols),
            Kind.ACTUAL: lambda: self.actuals.run(project_id, v1_project, actual_currency(library.phases), read),
        }

    def _copies_writer(self, project_id: str, v1_project: str, kind: Kind) -> Writer:
        return lambda: self.library_copies(project_id, v1_project, kind)

    async def run(self, library: ProjectLibrary) -> AsyncIterator[Tally]:
        """Write the project wave by wave, yielding what each wave did."""
        project = library.project
        v1_project = self.books.lookup(Kind.PROJECT, WORKSPACE, project.id)
        if v1_project is None:
            yield await self.held_back(library)  # the project itself is quarantined; its contents wait for it
            return
        read = self.actuals.read_ahead(project.id)
        writers = self.writers(library, v1_project, read)
        for wave in waves(Scope.PROJECT):
            began = time.monotonic()
            work = [writers[kind]() for kind in wave]
            if Kind.LINE in wave:
                work.append(read.fill())  # the first actuals, read while the lines go (``ReadAhead``)
            done = total(await run_all(work))
            timing = (f"step:{project.id}:{'+'.join(wave)}", round(time.monotonic() - began, 3))
            yield done + Tally(timings=(timing,))

    async def held_back(self, library: ProjectLibrary) -> Tally:
        """What a quarantined project holds, per kind, counted as held back (read, never mapped or sent)."""
        project_id = library.project.id
        copies = self.copies.get(project_id, [])
        async with self.trees.holding(lambda: self.legacy.budget_lines(project_id)) as nodes:
            lines = len(nodes)
        actuals, splits = await self.actuals.count(project_id)
        return total(
            (
                *(Tally.of(kind, Fate.HELD_BACK, sum(1 for c in copies if c[0] is kind)) for kind in COPY_KINDS),
                Tally.of(Kind.PHASE, Fate.HELD_BACK, len(library.phases)),
                Tally.of(Kind.LINE, Fate.HELD_BACK, lines),
                Tally.of(Kind.ACTUAL, Fate.HELD_BACK, actuals),
                Tally.of(Kind.SPLIT, Fate.HELD_BACK, splits),
            )
        )

    async def library_copies(self, project_id: str, v1_project: str, kind: Kind) -> Tally:
        # A global's formula may name other globals, and the target refuses a copy whose formula names a
        # global the project does not hold yet: copies go in waves, each after the globals it uses.
        done = Tally()
        mine = [c for c in self.copies.get(project_id, []) if c[0] is kind]
        for wave in copy_waves(mine):
            work = []
            for copy_kind, copy, own_values in wave:
                route = COPY_KINDS[copy_kind]
                source = self.books.lookup(copy.kind, WORKSPACE, copy.name)
                if source is None:
                    # The workspace item is quarantined: its copy waits for it; lines report the missing reference.
                    done += Tally.of(copy_kind, Fate.HELD_BACK)
                    continue
                work.append(
                    Desired(
                        copy_kind,
                        project_id,
                        copy.ref.legacy_id,
                        f"/projects/{v1_project}/library/{route}",
                        {"sourceId": source},
                        f"/projects/{v1_project}/library/{route}/{{id}}",
                        dict(copy.patch) if own_values else None,
                    )
                )
            done += await apply_all(self.applier, work)
        return done + removed(self.books, kind, project_id, (c[1].ref.legacy_id for c in mine))

    async def phases(self, library: ProjectLibrary, v1_project: str) -> Tally:
        project_id = library.project.id
        plan = plan_phases(project_id, library.phases)
        done = refused(Kind.PHASE, plan.quarantined)
        lookup = self.books.lookup
        base = f"/projects/{v1_project}/budget/phases"
        if plan.default_estimate is not None:
            default = lookup(DEFAULT_PHASE, WORKSPACE, project_id)
            if default is None and v1_project.startswith(PLACEHOLDER):
                default = f"{PLACEHOLDER}{DEFAULT_PHASE}:{project_id}"
            done += await self._phase(plan.default_estimate, project_id, base, default)
        done += total(await run_all(self._phase(p, project_id, base, None) for p in plan.plain))
        for rollup in plan.rollups:  # a rollup may sum another rollup: one at a time, in the mappings' order
            done += await self._phase(rollup, project_id, base, None)
        return done + removed(self.books, Kind.PHASE, project_id, (p.id for p in library.phases))

    async def _phase(self, phase: Phase, project_id: str, base: str, adopt: str | None) -> Tally:
        try:
            if adopt is not None:
                body = as_json(default_estimate_patch(project_id, phase, self.books.lookup).body)
            else:
                body = as_json(phase_body(project_id, phase, self.books.lookup).body)
        except MappingError as error:
            return refused(Kind.PHASE, [error])
        desired = Desired(Kind.PHASE, project_id, phase.id, base, body, base + "/{id}", adopt_id=adopt)
        return (await self.applier.apply(desired)).tally

    async def lines(self, project_id: str, v1_project: str, symbols: set[str]) -> Tally:
        # The tree is read one account at a time into compact nodes (about 2 KB a line with its tree entry,
        # A41; a whole-budget read cost ~8 KB), so trees of several projects are written at once.
        async with self.trees.holding(lambda: self.legacy.budget_lines(project_id)) as nodes:
            done = await self._write_tree(plan_lines(project_id, nodes, symbols), v1_project, symbols)
            return done + removed(self.books, Kind.LINE, project_id, (node.id for node in nodes))

    async def _write_tree(self, tree: BudgetTree, v1_project: str, symbols: set[str]) -> Tally:
        project_id = tree.project_id
        done = refused(Kind.LINE, tree.quarantined)
        lookup = self.books.lookup
        by_depth: dict[int, list[LineGroup]] = {}
        known: list[LineFields] = []
        for depth in sorted(set(tree.depth.values())):
            fresh: list[LineFields] = []
            for line in (n for n in tree.ordered if tree.depth[n.id] == depth):
                (fresh if lookup(Kind.LINE, project_id, line.id) is None else known).append(line)
            # Every bulk of a level is full but the last: the fewest requests the bulk limit allows.
            by_depth[depth] = [LineGroup(depth, part) for part in chunks(fresh, LINE_BULK_LIMIT)]
        # Lines a previous run created: compared (and patched if changed) a bulk's worth at a time, so a
        # resumed run over a big tree never holds every line's body at once; none of them is created again.
        for part in chunks(known, LINE_BULK_LIMIT):
            done += total(await run_all(self._update(project_id, v1_project, line, symbols) for line in part))
        route = f"/projects/{v1_project}/budget/lines/bulk"
        # A level of a large tree is dozens of bulks; their bodies are built only when one of a few slots is
        # free, so memory holds a few request bodies, not the whole level as JSON.
        room = asyncio.Semaphore(LINE_BULKS_BUILT)
        for depth in sorted(by_depth):  # a level's parents are the previous level: levels go in order
            done += total(await run_all(self._line_group(tree, g, symbols, route, room) for g in by_depth.pop(depth)))
        return done

    async def _update(self, project_id: str, v1_project: str, line: LineFields, symbols: set[str]) -> Tally:
        try:
            mapped = line_body(project_id, line, self.books.lookup, symbols)
        except MappingError as error:
            return refused(Kind.LINE, [error])
        path = f"/projects/{v1_project}/budget/lines/{{id}}"
        applied = await self.applier.apply(Desired(Kind.LINE, project_id, line.id, "", as_json(mapped.body), path))
        return carried(mapped.notes) + applied.tally

    async def _line_group(
        self, tree: BudgetTree, group: LineGroup, symbols: set[str], route: str, room: asyncio.Semaphore
    ) -> Tally:
        async with room:
            return await self._line_bulk(tree, group, symbols, route)

    async def _line_bulk(self, tree: BudgetTree, group: LineGroup, symbols: set[str], route: str) -> Tally:
        request = bulk_request(tree, group, self.books.lookup, symbols)
        done = refused(Kind.LINE, request.failed) + carried(request.notes)
        if not request.legacy_ids:
            return done
        body: JsonObject = {"lines": [dict(entry) for entry in request.body["lines"]]}  # type: ignore[typeddict-item]
        write = Write(Kind.LINE, tree.project_id, "POST", route, body, request.legacy_ids)
        write = write.keyed(self.namespace, LINE_BULK_KIND)
        return done + (await self.executor.write(write)).tally
