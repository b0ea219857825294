"""Progress of a run: one bar per kind on a terminal, and always structured events in the log.

The engine reports through ``Progress``; it never writes to the terminal itself. Progress draws nothing of
its own: after every step the run shows it the run's report (``Plan``), and each kind's bar is that kind's
records dealt with so far (created, replayed, updated, unchanged, held back, quarantined: one fate per source
record, so a bar never passes the source's count). ``RichProgress`` draws the bars (the CLI chooses it when
stderr is a terminal); every implementation also emits ``bridge.progress.advanced`` so a log file tells the
same story.
"""

from __future__ import annotations

from types import TracebackType

import structlog
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, TaskID, TextColumn, TimeElapsedColumn
from rich.progress import Progress as RichBars

from bridge.engine.plan import Plan
from bridge.engine.steps import spec
from mappings.kinds import Kind

log = structlog.get_logger("bridge.progress")


class Progress:
    """Shows the run's report per kind; the base class only logs (used when stderr is not a terminal)."""

    def __init__(self) -> None:
        self.records: dict[Kind, int] = {}

    def show(self, report: Plan) -> None:
        """Show every kind whose count moved since the last call."""
        for row in report.ordered():
            if self.records.get(row.kind) != row.records:
                self.records[row.kind] = row.records
                self.moved(row.kind, row.records)
                log.debug("bridge.progress.advanced", kind=row.kind.value, records=row.records, requests=row.requests)

    def moved(self, kind: Kind, records: int) -> None:
        """Hook for drawing: ``kind`` now counts ``records``."""

    def __enter__(self) -> Progress:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        return None


class RichProgress(Progress):
    """Draws one bar per kind on a terminal, in the order kinds are first met."""

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

    def moved(self, kind: Kind, records: int) -> None:
        if kind not in self._tasks:
            self._tasks[kind] = self._bars.add_task(spec(kind).label, total=None)
        self._bars.update(self._tasks[kind], completed=records)

    def __enter__(self) -> Progress:
        self._bars.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._bars.stop()
