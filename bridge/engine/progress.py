"""Progress of a command: what it is doing now, a bar for all records and one per kind, and always structured
events in the log.

The engine reports through ``Progress``; it never writes to the terminal itself. After every step the run
shows it the run's report (``Plan``), and each kind's count is that kind's records dealt with so far
(created, replayed, updated, unchanged, held back, quarantined: one fate per source record, so a bar never
passes the source's count). Each kind's total is known as soon as the run has read the kind from the source:
the steps say how many records they read before they write them (``Applier.listed``), so a total grows as the
projects are read and is never unknown once the kind is listed; ``run --plan`` takes the plan's totals instead.
Between steps the displays learn what the clients are doing from their log events (``Activity``, a structlog
processor installed while a display runs): the request just answered, or a wait on a 429 with its Retry-After.
So a display never goes quiet, even while `plan` reads for seconds without finishing a step, or `verify` (which
has no steps) compares.

``RichProgress`` draws on a terminal with rich's own columns: a status line, then an overall bar and one bar
per kind, each with its percentage, records of total, records per second and the time left, both measured by
rich over the last ``SPEED_WINDOW_S`` seconds (so the estimate follows the run as its pace changes); a kind
whose known records are all dealt with is drawn finished, with a check mark, and the display keeps to the
terminal's height (the kinds still going first). Log lines print above it (the live display redirects stderr,
where ``bridge.terminal.safe_stderr`` sends them). ``LineProgress`` writes, when stderr is not a terminal, one
line every ``EVERY_S`` seconds: the overall figures, the rate over the last period and the time left at it, the
status, and only the kinds that moved since the line before; and one last line when it ends. Every
implementation emits ``bridge.progress.advanced`` so a log file tells the same story.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from types import TracebackType
from typing import IO, TypeVar

import structlog
from rich.console import Console, RenderableType
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    ProgressColumn,
    Task,
    TaskID,
    TaskProgressColumn,
    TextColumn,
    TimeRemainingColumn,
)
from rich.progress import Progress as RichBars
from rich.spinner import Spinner
from rich.table import Column
from rich.text import Text
from structlog.typing import EventDict, WrappedLogger

from bridge.engine.kinds import spec
from bridge.engine.plan import Plan
from bridge.terminal import shown
from mappings.kinds import Kind

log = structlog.get_logger("bridge.progress")

A = TypeVar("A", bound="Activity")

SPEED_WINDOW_S = 30.0
"""Seconds of progress rich's rate (and so the time left) is measured over: recent enough to follow the run as
it goes from quick library items to bulks, long enough to ride over a step whose records land at once."""

EVERY_S = 8.0
"""A line display's period: under the 10 s a display may stay unchanged, with room for a busy interpreter."""


class Activity:
    """What the clients are doing now, learned from the events they log (never from the clients' code)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.started = clock()
        self.requests = 0
        self.doing = "starting"
        self.waiting = ""
        self.until = 0.0

    def __call__(self, logger: WrappedLogger, method_name: str, event_dict: EventDict) -> EventDict:
        """The structlog processor: note the event, pass it on unchanged."""
        event = event_dict.get("event")
        where = f"{event_dict.get('surface')} {event_dict.get('method')} {event_dict.get('path')}"
        if event == "bridge.http.response":
            self.requests += 1
            self.doing, self.until = where, 0.0
        elif event == "bridge.http.retry":
            wait = float(event_dict.get("wait") or 0)
            error = str(event_dict.get("error"))
            state = f"rate-limited, Retry-After {wait:.0f} s" if error == "RateLimited" else f"retrying ({error})"
            self.waiting, self.until = f"{state}: {where}", self.clock() + wait
        elif event == "bridge.verify.project":
            self.doing = f"compared project {event_dict.get('project')}"
        return event_dict

    def status(self) -> Text:
        """One line: the wait in progress, or the last request answered; requests so far and elapsed time."""
        now = self.clock()
        tally = f"  ({self.requests:,} requests, {now - self.started:,.0f} s)"
        if now < self.until:
            return Text.assemble(("waiting: ", "bold yellow"), (shown(self.waiting), "yellow"), tally)
        return Text.assemble(("working: ", "bold"), shown(self.doing), tally)


@contextmanager
def listening(activity: A) -> Iterator[A]:
    """Put ``activity`` first in structlog's chain while the block runs (before any level filter: the
    clients log each answered request at DEBUG, and the display wants them whatever the log level)."""
    before = list(structlog.get_config()["processors"])
    structlog.configure(processors=[activity, *before])
    try:
        yield activity
    finally:
        structlog.configure(processors=before)


class Progress:
    """Shows the run's report per kind; the base class only logs (the tests' runs and the library's)."""

    def __init__(self, expected: Plan | None = None) -> None:
        self.records: dict[Kind, int] = {}
        self.expected = expected
        """The plan this run follows, when given: each kind's total, so the bars can tell the time left."""
        self.listing: Counter[Kind] = Counter()
        """Per kind, the source records the run has read so far (``Applier.listed``): the totals without a plan."""
        self._depth = 0

    def show(self, report: Plan) -> None:
        """Show every kind whose count moved since the last call."""
        for row in report.ordered():
            if self.records.get(row.kind) != row.records:
                self.records[row.kind] = row.records
                self.moved(row.kind, row.records)
                log.debug("bridge.progress.advanced", kind=row.kind.value, records=row.records, requests=row.requests)

    def listed(self, kind: Kind, records: int) -> None:
        """``records`` more of ``kind`` were read from the source: its total grows (before any is written)."""
        self.listing[kind] += records
        self.moved(kind, self.records.get(kind, 0))

    def moved(self, kind: Kind, records: int) -> None:
        """Hook for drawing: ``kind`` now counts ``records``."""

    def total(self, kind: Kind) -> int | None:
        """The records of ``kind`` to deal with: the plan's when one was given, else what the run has read of
        it so far (None before the kind is read); never below what is already dealt with."""
        if self.expected is not None and kind in self.expected.kinds:
            known = self.expected.kinds[kind].records
        elif kind in self.listing:
            known = self.listing[kind]
        else:
            return None
        return max(known, self.records.get(kind, 0))

    def overall(self) -> tuple[int, int]:
        """Records dealt with, and the records known to deal with, over every kind met."""
        kinds = set(self.records) | set(self.listing)
        done = sum(self.records.get(kind, 0) for kind in kinds)
        return done, sum(self.total(kind) or self.records.get(kind, 0) for kind in kinds)

    def finished(self, kind: Kind) -> bool:
        """Every known record of ``kind`` is dealt with."""
        known = self.total(kind)
        return known is not None and self.records.get(kind, 0) >= known

    def start(self) -> None:
        """Hook for drawing: the display begins."""

    def stop(self) -> None:
        """Hook for drawing: the display ends."""

    # Re-entrant: a command enters the display before the engine does, so it already runs while the command
    # starts up and the engine's preflight reads; only the outermost block starts and stops it.
    def __enter__(self) -> Progress:
        self._depth += 1
        if self._depth == 1:
            self.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._depth -= 1
        if self._depth == 0:
            self.stop()


class RateColumn(ProgressColumn):
    """Records per second: rich's own estimate over the last ``SPEED_WINDOW_S`` while a task goes (the time left
    uses it too), its average over its whole time once finished (a last burst says nothing of the pace)."""

    def render(self, task: Task) -> Text:
        speed = task.completed / task.finished_time if task.finished and task.finished_time else task.speed
        return Text("" if speed is None else f"{speed:,.0f}/s", style="progress.data.speed", justify="right")


class CountColumn(MofNCompleteColumn):
    """Rich's N/M, thousands separated like every other figure the bridge prints."""

    def render(self, task: Task) -> Text:
        total = "?" if task.total is None else f"{int(task.total):,}"
        return Text(f"{int(task.completed):,}/{total}", style="progress.download", justify="right")


class _Bars(RichBars):
    """Rich's bars with a status line above them, cut to the terminal's height: the overall bar, then every
    kind still going, then the kinds finished most recently (drawn finished: a full bar and a check mark)."""

    def __init__(self, status: Callable[[], RenderableType], console: Console, *, transient: bool) -> None:
        # Both before rich's own set-up, which already renders.
        self._status = status
        self._screen = console
        super().__init__(
            # Sized for 80 columns: a long kind's label is cut, never the figures.
            TextColumn("{task.fields[mark]} {task.description}", table_column=Column(width=24, no_wrap=True)),
            BarColumn(bar_width=8),
            TaskProgressColumn(),
            CountColumn(),
            RateColumn(),
            TimeRemainingColumn(elapsed_when_finished=True),
            console=console,
            transient=transient,
            speed_estimate_period=SPEED_WINDOW_S,
            expand=True,
        )

    def get_renderables(self) -> Iterator[RenderableType]:
        yield self._status()
        tasks = list(self.tasks)
        # The status line and a spare row for the cursor: a live display taller than the terminal cannot redraw.
        room = max(3, self._screen.size.height - 2)
        if len(tasks) > room:
            overall, kinds = tasks[:1], tasks[1:]
            going = [task for task in kinds if not task.finished]
            done = [task for task in kinds if task.finished][::-1][: max(0, room - 1 - len(going))]
            kept = {task.id for task in [*overall, *going, *done]}
            tasks = [task for task in tasks if task.id in kept][:room]
        yield self.make_tasks_table(tasks)


class RichProgress(Progress):
    """Draws the status line, an overall bar and one bar per kind on a terminal, in the order kinds are met."""

    def __init__(self, console: Console, expected: Plan | None = None, *, transient: bool = False) -> None:
        super().__init__(expected)
        self.activity = Activity()
        self._spinner = Spinner("dots")
        self._console = console
        self._bars = _Bars(self._status, console, transient=transient)
        # Added with the first kind: a command that counts no records (verify) shows its status line alone.
        self._all: TaskID | None = None
        self._tasks: dict[Kind, TaskID] = {}
        self._listening = listening(self.activity)

    def _status(self) -> RenderableType:
        line = self.activity.status()
        # One row, whatever the path: the spinner's frame and a space take the first two columns.
        line.truncate(self._console.size.width - 3, overflow="ellipsis")
        self._spinner.update(text=line)
        return self._spinner

    def moved(self, kind: Kind, records: int) -> None:
        if self._all is None:
            self._all = self._bars.add_task("all records", total=None, mark=" ")
        if kind not in self._tasks:
            self._tasks[kind] = self._bars.add_task(spec(kind).label, total=self.total(kind), mark=" ")
        mark = "\u2713" if self.finished(kind) else " "
        self._bars.update(self._tasks[kind], completed=records, total=self.total(kind), mark=mark)
        done, known = self.overall()
        self._bars.update(self._all, completed=done, total=known or None)

    def start(self) -> None:
        self._listening.__enter__()
        self._bars.start()

    def stop(self) -> None:
        self._bars.stop()
        self._listening.__exit__(None, None, None)


class LineProgress(Progress):
    """Without a terminal: every ``every`` seconds one line, the overall figures (records of the known total,
    percentage, records per second over the last period, time left at that rate) and only the kinds that moved
    since the line before (a pipe or a CI log shows the run moving, and a line never redraws)."""

    def __init__(self, out: IO[str], expected: Plan | None = None, every: float = EVERY_S) -> None:
        super().__init__(expected)
        self.activity = Activity()
        self.out = out
        self.every = every
        self._stop = threading.Event()
        self._ticker = threading.Thread(target=self._tick, name="bridge-progress", daemon=True)
        self._listening = listening(self.activity)
        self._last: dict[Kind, int] = {}
        self._then: tuple[float, int] = (self.activity.clock(), 0)

    def line(self) -> str:
        """What one tick writes (and notes what it wrote, so the next names only the kinds that moved)."""
        now, (done, known) = self.activity.clock(), self.overall()
        then, before = self._then
        rate = (done - before) / (now - then) if now > then else 0.0
        figures = []
        if known:  # a command that counts no records (verify), or a run before its first listing, has none
            figures += [f"{done:,} of {known:,} records ({100 * done / known:.0f}%)", f"{rate:,.0f} records/s"]
        if rate > 0 and known > done:
            figures.append(f"about {(known - done) / rate:,.0f} s left")
        moved = [
            f"{spec(kind).label} {records:,}/{self.total(kind) or records:,}"
            for kind, records in list(self.records.items())
            if self._last.get(kind) != records
        ]
        self._last = dict(self.records)
        self._then = (now, done)
        said = "progress: " + "; ".join([*figures, self.activity.status().plain])
        return f"{said}; moved: {', '.join(moved)}" if moved else said

    def _write(self) -> None:
        self.out.write(self.line() + "\n")
        self.out.flush()

    def _tick(self) -> None:
        while not self._stop.wait(self.every):
            self._write()

    def start(self) -> None:
        self._listening.__enter__()
        self._write()  # at once: the first period must not add to the command's own start-up
        self._ticker.start()

    def stop(self) -> None:
        self._stop.set()
        self._ticker.join()
        self._write()  # where it ended: a run shorter than a period still leaves its figures in the log
        self._listening.__exit__(None, None, None)


def display(console: Console, expected: Plan | None = None, *, transient: bool = False) -> Progress:
    """The display for a command's stderr: live bars on a terminal (gone when it ends, ``transient``),
    periodic lines otherwise."""
    if console.is_terminal:
        return RichProgress(console, expected, transient=transient)
    return LineProgress(console.file, expected)


def planned(figures: Mapping[str, object]) -> Plan:
    """A plan read back from ``plan.json`` (``Plan.to_json``): enough of it for totals and the estimate."""
    plan = Plan(
        str(figures.get("migration", "")),
        str(figures.get("source_workspace", "")),
        str(figures.get("target_workspace", "")),
        float(str(figures.get("latency_ms", 0))) / 1000,
        int(str(figures.get("concurrency", 1))),
    )
    kinds = figures.get("kinds")
    for name, row in kinds.items() if isinstance(kinds, dict) else ():
        kind = Kind(name)
        counts = plan.of(kind)
        for fate in ("to_create", "replayed", "adopted", "to_update", "unchanged", "held_back", "left_out", "requests"):
            setattr(counts, fate, int(row.get(fate, 0)))
        counts.quarantined["planned"] = int(row.get("quarantined", 0))
        plan.kinds[kind] = counts
    return plan
