"""The workspace-wide kinds of a run (every kind ``engine.kinds`` declares with the workspace as scope).

``writers()`` maps each of them to the coroutine that writes it through the one record step
(``Applier.write``); the run executes them in the waves of ``engine.kinds`` (kinds of one wave side by side).
Every writer returns its ``Tally``; nothing here keeps counts. The library is planned once from the source
(``LibraryPlans``), so the project copies the project pipelines write are known before any of them starts.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine

from bridge.engine.apply import Applier, Target, left_out
from bridge.engine.choices import Choices
from bridge.engine.documents import BY_KIND, Documents
from bridge.engine.kinds import KindSpec, Reads, Scope, of_scope
from bridge.engine.plan import Tally
from bridge.engine.source import WorkspaceSource
from bridge.engine.wanted import LibraryPlans, View
from mappings.documents import Carried, files_of
from mappings.kinds import Kind
from mappings.refs import WORKSPACE

Writer = Callable[[], Coroutine[object, object, Tally]]


class WorkspaceStage:
    """Writes the workspace-wide kinds of one run."""

    def __init__(
        self,
        applier: Applier,
        source: WorkspaceSource,
        *,
        whole: bool,
        choices: Choices,
        lacking: frozenset[Kind],
        documents: Documents,
    ) -> None:
        self.applier = applier
        self.whole = whole
        self.choices = choices
        # Kinds the target's plan lacks (``engine.features``): not written, counted as not carried by the run.
        self.lacking = lacking
        self.view = View(source, LibraryPlans.of(source, whole=whole))
        self.documents = documents

    def writers(self) -> dict[Kind, Writer]:
        """The coroutine that writes each workspace-wide kind."""
        return {spec.kind: self._writer(spec) for spec in of_scope(Scope.WORKSPACE)}

    def _writer(self, spec: KindSpec) -> Writer:
        if spec.reads is Reads.FILES:
            return self._files(BY_KIND[spec.kind])
        records = spec.records
        if records is None:
            raise ValueError(f"workspace kind {spec.kind} declares no records")

        async def write() -> Tally:
            if spec.kind in self.lacking:
                return Tally()
            # Listed when its wave comes: a kind's records may look up the v1 ids of the waves before it.
            lookup = self.applier.books.lookup
            wanted = records(self.view, lookup)
            if not self.choices.carries(spec.kind):
                return left_out(spec.kind, wanted)
            # A kind written under another record (a pack's items) takes that record's v1 id as its first
            # path parameter; its records are held back while that record has none.
            within = () if spec.within is None else (lookup(spec.within[0], WORKSPACE, spec.within[1]) or "",)
            return await self.applier.write(Target(spec, WORKSPACE, within), wanted, whole=self.whole)

        return write

    def _files(self, carried: Carried) -> Writer:
        """The attachments of the contacts read (the workspace's one kind of record that holds files)."""
        documents = self.documents

        async def write() -> Tally:
            if carried.kind not in documents.kinds:
                return Tally()  # not carried on this run: the inventory counts them (``engine.inventory``)
            contacts = self.view.source.contacts
            return await documents.write(carried, WORKSPACE, [(c.id, files_of(carried, c)) for c in contacts])

        return write
