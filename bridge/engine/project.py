"""One project's pipeline: every kind ``engine.kinds`` declares with the project as scope, wave by wave.

``writers`` maps each project-scoped kind to the coroutine that writes it: the kinds drawn from the library
read before the run (copies, phases) and the budget tree (read when its turn comes) through the one record
step (``Applier.write``), the actuals through their own step (``engine.actuals``, which writes the split items
with them). ``run`` executes them in the waves of ``engine.kinds`` (each kind needs the v1 ids of the kinds it
declares: copies before phases before lines before transactions), yielding each wave's ``Tally`` for the run
to fold. Projects run side by side (see ``run``). A project whose own record is quarantined holds its
contents back: they are counted as held back, per kind, and nothing of them is sent.

Budget lines are grouped anew on every run from what is still missing, one tree level at a time, so a
resumed run never re-sends a line the crosswalk knows; the journal replay has already completed whatever was
in flight. A budget tree is the largest thing a run holds: it is read as compact nodes, one account at a time
(A41), and ``TreeRoom`` admits the trees of several projects by the lines they hold.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import replace
from typing import TypeVar, Unpack

from bridge.engine.actuals import ActualsStep, ReadAhead, actual_currency
from bridge.engine.apply import Target, left_out
from bridge.engine.bank_files import BankFeed
from bridge.engine.choices import Choices, Extra
from bridge.engine.documents import BY_KIND, Documents
from bridge.engine.kinds import KindSpec, Reads, Scope, of_scope, spec, waves
from bridge.engine.plan import Fate, Tally, total
from bridge.engine.project_step import ProjectStep, ProjectTools
from bridge.engine.purchase_orders import OrdersRead, OrdersStep
from bridge.engine.source import ProjectLibrary
from bridge.engine.tasks import run_all
from bridge.engine.wanted import View, Wanted
from bridge.engine.workspace import Writer
from mappings.documents import Carried
from mappings.kinds import Kind
from mappings.records import File, LineFields
from mappings.refs import WORKSPACE

# Budget lines the trees being written may hold before another tree waits: about 70 MB of compact nodes.
LINES_HELD = 40_000

T = TypeVar("T")


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

    def __init__(self, *, view: View, choices: Choices, documents: Documents, **tools: Unpack[ProjectTools]) -> None:
        super().__init__(**tools)
        self.view = view
        self.choices = choices
        self.trees = TreeRoom()
        self.actuals = ActualsStep(feed=BankFeed(self.legacy), **tools)
        # ``--with submit-pending``: drafts of legacy pending orders go into v1's approval flow (notifies approvers).
        self.orders = OrdersStep(submit_pending=choices.wants(Extra.SUBMIT_PENDING), **tools)
        self.documents = documents
        # The files of each kind of attachment in a project, per project, as the step reading the records they
        # hang on kept them: (legacy record id, its files). Another kind of attachment adds its step's here.
        self.attached: dict[Kind, dict[str, list[tuple[str, tuple[File, ...]]]]] = {
            Kind.RECEIPT: self.actuals.attached,
            Kind.BANK_FILE: self.actuals.banked,
            Kind.PURCHASE_ORDER_FILE: self.orders.attached,
        }

    def writers(self, view: View, read: ReadAhead) -> dict[Kind, Writer]:
        """The coroutine that writes each project-scoped kind of ``view``'s project (its actuals from ``read``)."""
        orders = self.orders.read(view.inside.project.id)
        return {s.kind: self._writer(s, view, read, orders) for s in of_scope(Scope.PROJECT) if s.written_with is None}

    def _writer(self, kind: KindSpec, view: View, read: ReadAhead, orders: OrdersRead) -> Writer:
        library = view.inside
        currency = actual_currency(library.phases)
        # Documents left out are counted by their step, from the files their records' step kept.
        if not self.choices.carries(kind.kind) and kind.reads is not Reads.FILES:
            if kind.reads is Reads.ACTUALS:  # split parts are left out with their transactions (``choices``)
                return lambda: self.actuals.count(library.project.id, Fate.LEFT_OUT)
            if kind.reads is Reads.ORDERS:
                return lambda: self.orders.count(library.project.id, Fate.LEFT_OUT, only=kind.kind)
            return lambda: self._records(kind, view, _left_out(kind.kind))
        if kind.reads is Reads.ACTUALS:
            return lambda: self.actuals.run(library.project.id, view.v1_project, currency, read)
        if kind.kind is Kind.PO_LINK:
            return lambda: self.orders.links(library.project.id, orders)
        if kind.reads is Reads.ORDERS:
            return lambda: self.orders.orders(library.project.id, view.v1_project, currency, orders)
        if kind.reads is Reads.FILES:
            return lambda: self._files(BY_KIND[kind.kind], library.project.id)
        target = Target(kind, library.project.id, (view.v1_project,))
        return lambda: self._records(kind, view, lambda wanted: self.applier.write(target, wanted))

    async def _files(self, carried: Carried, project_id: str) -> Tally:
        """The files of ``carried``'s kind hanging on the project's records, as the step that read them kept them
        (an actual's receipts and its bank transaction's files: the actuals step)."""
        attached = self.attached[carried.kind].pop(project_id, [])
        if carried.kind not in self.documents.kinds:
            return Tally()
        return await self.documents.write(carried, project_id, attached)

    async def _records(self, kind: KindSpec, view: View, then: Callable[[Wanted], Awaitable[T]]) -> T:
        """``then`` over the kind's records in ``view``'s project, what they are drawn from read first."""
        records = kind.records
        if records is None:
            raise ValueError(f"{kind.kind} declares no records")
        if kind.reads is not Reads.TREE:
            return await then(records(view, self.books.lookup))
        project_id = view.inside.project.id
        # The tree is read one account at a time into compact nodes (about 2 KB a line with its tree entry,
        # A41; a whole-budget read cost ~8 KB), so trees of several projects are written at once.
        nodes: Sequence[LineFields]
        async with self.trees.holding(lambda: self.legacy.budget_lines(project_id)) as nodes:
            return await then(records(replace(view, tree=nodes), self.books.lookup))

    async def run(self, library: ProjectLibrary) -> AsyncIterator[Tally]:
        """Write the project wave by wave, yielding what each wave did."""
        project = library.project
        v1_project = self.books.lookup(Kind.PROJECT, WORKSPACE, project.id)
        if v1_project is None:
            yield await self.held_back(library)  # the project itself is quarantined; its contents wait for it
            return
        read = self.actuals.read_ahead(project.id)
        writers = self.writers(replace(self.view, project=library, v1_project=v1_project), read)
        for wave in waves(Scope.PROJECT):
            began = time.monotonic()
            work = [writers[kind]() for kind in wave]
            if any(spec(kind).reads is Reads.TREE for kind in wave):
                work.append(read.fill())  # the first actuals, read while the tree goes (``ReadAhead``)
            done = total(await run_all(work))
            timing = (f"step:{project.id}:{'+'.join(wave)}", round(time.monotonic() - began, 3))
            yield done + Tally(timings=(timing,))

    async def held_back(self, library: ProjectLibrary) -> Tally:
        """What a quarantined project holds, per kind, counted as held back (read, never mapped or sent)."""
        view = replace(self.view, project=library)
        counts: dict[Kind, int] = {}
        for kind in of_scope(Scope.PROJECT):
            if kind.records is not None:
                counts[kind.kind] = await self._records(kind, view, _at_source)
        held = total(Tally.of(kind, Fate.HELD_BACK, n) for kind, n in counts.items())
        return held + await self.actuals.count(library.project.id) + await self.orders.count(library.project.id)


async def _at_source(wanted: Wanted) -> int:
    return len(wanted.seen)


def _left_out(kind: Kind) -> Callable[[Wanted], Awaitable[Tally]]:
    async def count(wanted: Wanted) -> Tally:
        return left_out(kind, wanted)

    return count
