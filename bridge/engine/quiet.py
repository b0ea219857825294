"""Bridge mode's quiet projects: a project that reads as it did when a cycle last processed it is not mapped
again (issue 32: an idle cycle costs its reads, not a mapping of the workspace).

A project's processing is a function of what its reads answer, of the workspace it is drawn against and of the
books; the reads it makes are decided by earlier answers (which accounts, which date windows are busy). So when
every read the last processing made answers the same bytes now, and the rest is unchanged, processing it again
would make the same reads, get the same answers and write nothing (what the last one wrote, it wrote): its tally
is the last one's, settled (``settled``). The rest, the *context*, must be the same too: the day (the actuals'
date windows follow it), the workspace library as planned from every project (``LibraryPlans``: a project's
copies of it), the project's own library and record (read before its pipeline starts), the workspace's
crosswalk (what its mappings look up: contacts, library items) and the project's (a conflict resolved, a record
booked by another process), each known by its stamp in the state file (``Crosswalk.stamp``), not read. A
project's records are drawn from nothing else (``View.inside``, ``View.library``).

Kept in the memory of one `bridge sync --watch`, not in the state: a fresh process maps everything once, and a
stale entry can only cost a mapping, never skip one.
"""

from __future__ import annotations

import asyncio
import hashlib
import pickle
from collections import Counter
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import date

import httpx

from bridge.canonical import Json
from bridge.clients.legacy import ANSWERED, READS, LegacyClient, Read, ReadKey, digest
from bridge.engine.books import Books
from bridge.engine.plan import Fate, Tally
from bridge.engine.source import ProjectLibrary
from bridge.engine.tasks import run_all
from bridge.engine.wanted import View
from bridge.errors import BridgeError
from mappings.kinds import Kind
from mappings.refs import WORKSPACE

# What a record written by a cycle is to the next one that reads it unchanged: the target holds it as the
# books say (a record deleted from the target is no longer the source's nor the crosswalk's).
SETTLED = dict.fromkeys((Fate.CREATED, Fate.REPLAYED, Fate.ADOPTED, Fate.UPDATED), Fate.UNCHANGED)


def settled(tally: Tally) -> Tally:
    """``tally`` as the next processing of the same reads counts it once its writes are done: what it wrote
    unchanged, what it deleted gone, no request; what it held, quarantined or queued as a conflict, the same."""
    records: Counter[tuple[Kind, Fate]] = Counter()
    for (kind, fate), count in tally.records.items():
        if fate is not Fate.DELETED:
            records[kind, SETTLED.get(fate, fate)] += count
    return replace(tally, records=records, requests=Counter(), timings=())


@contextmanager
def noting() -> Iterator[set[Read]]:
    """The reads made inside the block (and in the tasks it starts)."""
    noted: set[Read] = set()
    token = READS.set(noted)
    try:
        yield noted
    finally:
        READS.reset(token)


@dataclass(frozen=True, slots=True)
class Quieted:
    """A project as the last cycle that wrote nothing in it found it."""

    reads: tuple[Read, ...]
    context: bytes
    tally: Tally


@dataclass(slots=True)
class QuietProjects:
    """The quiet projects of one watch, and the snapshot roots of each as the cycle that found it quiet logged
    them (``roots``; kept while the project stays quiet)."""

    known: dict[str, Quieted] = field(default_factory=dict)
    roots: dict[str, Json] = field(default_factory=dict)

    def cycle(self, legacy: LegacyClient, books: Books, view: View) -> QuietCycle:
        """This cycle's use of them, against its books and the workspace library it planned."""
        return QuietCycle(self, legacy, books, view)


class QuietCycle:
    """One cycle's projects: each either still quiet (its last tally, read but not mapped) or processed and
    noted. A read several projects make (the bank feed) is asked once per cycle."""

    def __init__(self, projects: QuietProjects, legacy: LegacyClient, books: Books, view: View) -> None:
        self.projects = projects
        self.legacy = legacy
        self.books = books
        self.shared = hashlib.sha256(pickle.dumps((date.today(), view.library), protocol=5)).digest()
        self._asked: dict[ReadKey, asyncio.Task[httpx.Response | None]] = {}

    async def run(
        self, library: ProjectLibrary, steps: Callable[[], AsyncIterator[Tally]], fold: Callable[[Tally], None]
    ) -> bool:
        """Fold the project's tally: its last one when it is still quiet (True), else what ``steps`` do."""
        project = library.project.id
        answers: dict[ReadKey, httpx.Response] = {}
        if (last := await self._still(project, self._context(library), answers)) is not None:
            fold(last)
            return True
        done = Tally()
        # The answers the check just read are the processing's first reads, not asked again.
        token = ANSWERED.set(answers)
        try:
            with noting() as reads:
                async for tally in steps():
                    fold(tally)
                    done += tally
        finally:
            ANSWERED.reset(token)
        self._settle(project, reads, self._context(library), done)
        return False

    def _context(self, library: ProjectLibrary) -> bytes:
        """A project's context: the workspace's part, its library, the books it is mapped and compared against."""
        digest = hashlib.sha256(self.shared)
        digest.update(pickle.dumps(library, protocol=5))
        digest.update(self.books.stamp(WORKSPACE).encode())
        digest.update(self.books.stamp(library.project.id).encode())
        return digest.digest()

    async def _still(self, project: str, context: bytes, answers: dict[ReadKey, httpx.Response]) -> Tally | None:
        """The project's last tally when it is still quiet: the same context, and each of its reads answering
        the same bytes (read again, not decoded); else None, the project forgotten, and what its reads answered
        now put in ``answers``."""
        last = self.projects.known.pop(project, None)
        if last is not None and last.context == context:
            found = await run_all(self._answer(read) for read in last.reads)
            if all(now is not None and digest(now) == read.digest for now, read in zip(found, last.reads, strict=True)):
                self.projects.known[project] = last
                return last.tally
            answers.update({(r.path, r.params): now for r, now in zip(last.reads, found, strict=True) if now})
        self.projects.roots.pop(project, None)
        return None

    async def _answer(self, read: Read) -> httpx.Response | None:
        """What ``read`` answers now (None when it fails: the project is then processed, and its processing
        meets the failure as a run would)."""
        key = (read.path, read.params)
        if key not in self._asked:
            self._asked[key] = asyncio.get_running_loop().create_task(self._ask(read))
        return await self._asked[key]

    async def _ask(self, read: Read) -> httpx.Response | None:
        try:
            return await self.legacy.answer(read)
        except BridgeError:
            return None

    def _settle(self, project: str, reads: set[Read], context: bytes, tally: Tally) -> None:
        """Keep a project processed this cycle, with the tally its next processing would give; forget it when
        the target refused a write (the record is tried again each cycle)."""
        self.projects.roots.pop(project, None)
        if any(refusal.filed for refusal in tally.quarantine):
            self.projects.known.pop(project, None)
            return
        ordered = tuple(sorted(reads, key=lambda read: (read.path, read.params)))
        self.projects.known[project] = Quieted(ordered, context, settled(tally))
