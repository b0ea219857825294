"""Progress of a run: one bar per kind on a terminal, and always structured events in the log.

The engine reports through ``Progress``; it never writes to the terminal itself. ``RichProgress`` draws the
bars (the CLI chooses it when stderr is a terminal); every implementation also emits the log events
``bridge.progress.planned`` and ``bridge.progress.advanced`` so a log file tells the same story.
"""

from __future__ import annotations

from types import TracebackType

import structlog
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, TaskID, TextColumn, TimeElapsedColumn
from rich.progress import Progress as RichBars

from bridge.engine.steps import spec
from mappings.kinds import Kind

log = structlog.get_logger("bridge.progress")


class Progress:
    """Counts records per kind; the base class only logs (used when stderr is not a terminal)."""

    def __init__(self) -> None:
        self.totals: dict[Kind, int] = {}
        self.done: dict[Kind, int] = {}

    def planned(self, kind: Kind, total: int) -> None:
        """Announce how many records of ``kind`` this run will write (creates plus updates)."""
        self.totals[kind] = self.totals.get(kind, 0) + total
        self.done.setdefault(kind, 0)
        log.debug("bridge.progress.planned", kind=kind.value, total=self.totals[kind])

    def advance(self, kind: Kind, records: int) -> None:
        """Record that ``records`` more records of ``kind`` are committed on the target."""
        self.done[kind] = self.done.get(kind, 0) + records
        log.debug("bridge.progress.advanced", kind=kind.value, done=self.done[kind], total=self.totals.get(kind))

    def __enter__(self) -> Progress:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        return None


class RichProgress(Progress):
    """Draws one bar per kind on a terminal, in the order kinds are planned."""

    def __init__(self, console: Console) -> None:
        super().__init__()
        self._bars = RichBars(
            TextColumn("{task.description:<20}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=console,
            transient=False,
        )
        self._tasks: dict[Kind, TaskID] = {}

    def planned(self, kind: Kind, total: int) -> None:
        super().planned(kind, total)
        if kind in self._tasks:
            self._bars.update(self._tasks[kind], total=self.totals[kind])
        else:
            self._tasks[kind] = self._bars.add_task(spec(kind).label, total=total)

    def advance(self, kind: Kind, records: int) -> None:
        super().advance(kind, records)
        if kind in self._tasks:
            self._bars.update(self._tasks[kind], completed=self.done[kind])

    def __enter__(self) -> Progress:
        self._bars.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._bars.stop()
