"""Progress of a command: what it is doing now, one bar per kind, and always structured events in the log.

The engine reports through ``Progress``; it never writes to the terminal itself. After every step the run
shows it the run's report (``Plan``), and each kind's count is that kind's records dealt with so far
(created, replayed, updated, unchanged, held back, quarantined: one fate per source record, so a bar never
passes the source's count). Between steps the displays learn what the clients are doing from their log
events (``Activity``, a structlog processor installed while a display runs): the request just answered, or a
wait on a 429 with its Retry-After. So a display never goes quiet, even while `plan` reads for seconds
without finishing a step, or `verify` (which has no steps) compares.

``RichProgress`` draws on a terminal: a status line above the bars, log lines printed above both (the live
display redirects stderr, where ``bridge.terminal.safe_stderr`` sends them). ``LineProgress`` writes, when
stderr is not a terminal, the status and one line per kind every ``EVERY_S`` seconds. Every implementation
emits ``bridge.progress.advanced`` so a log file tells the same story.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from types import TracebackType
from typing import IO, TypeVar

import structlog
from rich.console import Console, RenderableType
from rich.progress import BarColumn, MofNCompleteColumn, TaskID, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.progress import Progress as RichBars
from rich.spinner import Spinner
from rich.text import Text
from structlog.typing import EventDict, WrappedLogger

from bridge.engine.kinds import spec
from bridge.engine.plan import Plan
from bridge.terminal import shown
from mappings.kinds import Kind

log = structlog.get_logger("bridge.progress")

A = TypeVar("A", bound="Activity")

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
        tally = f"  ({self.requests} requests, {now - self.started:.0f} s)"
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
        self._depth = 0

    def show(self, report: Plan) -> None:
        """Show every kind whose count moved since the last call."""
        for row in report.ordered():
            if self.records.get(row.kind) != row.records:
                self.records[row.kind] = row.records
                self.moved(row.kind, row.records)
                log.debug("bridge.progress.advanced", kind=row.kind.value, records=row.records, requests=row.requests)

    def moved(self, kind: Kind, records: int) -> None:
        """Hook for drawing: ``kind`` now counts ``records``."""

    def total(self, kind: Kind) -> int | None:
        """The planned records of ``kind`` (None without a plan, or for a kind the plan did not meet)."""
        if self.expected is None or kind not in self.expected.kinds:
            return None
        return self.expected.kinds[kind].records

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


class _Bars(RichBars):
    """Rich's bars with a status line above them."""

    def __init__(self, status: Callable[[], RenderableType], console: Console, *, eta: bool, transient: bool) -> None:
        self._status = status  # before rich's own set-up, which already renders
        columns = [TextColumn("{task.description:<20}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn()]
        super().__init__(*columns, *([TimeRemainingColumn()] if eta else []), console=console, transient=transient)

    def get_renderables(self) -> Iterator[RenderableType]:
        yield self._status()
        yield self.make_tasks_table(self.tasks)


class RichProgress(Progress):
    """Draws the status line and one bar per kind on a terminal, in the order kinds are first met."""

    def __init__(self, console: Console, expected: Plan | None = None, *, transient: bool = False) -> None:
        super().__init__(expected)
        self.activity = Activity()
        self._spinner = Spinner("dots")
        self._bars = _Bars(self._status, console, eta=expected is not None, transient=transient)
        self._tasks: dict[Kind, TaskID] = {}
        self._listening = listening(self.activity)

    def _status(self) -> RenderableType:
        line = self.activity.status()
        if self.expected is not None:
            line.append(f"  plan: about {self.expected.estimate_s:.0f} s in all")
        self._spinner.update(text=line)
        return self._spinner

    def moved(self, kind: Kind, records: int) -> None:
        if kind not in self._tasks:
            self._tasks[kind] = self._bars.add_task(spec(kind).label, total=self.total(kind))
        self._bars.update(self._tasks[kind], completed=records)

    def start(self) -> None:
        self._listening.__enter__()
        self._bars.start()

    def stop(self) -> None:
        self._bars.stop()
        self._listening.__exit__(None, None, None)


class LineProgress(Progress):
    """Without a terminal: every ``every`` seconds, the status and one line per kind met (a pipe or a CI log
    shows the run moving, and a line never redraws)."""

    def __init__(self, out: IO[str], expected: Plan | None = None, every: float = EVERY_S) -> None:
        super().__init__(expected)
        self.activity = Activity()
        self.out = out
        self.every = every
        self._stop = threading.Event()
        self._ticker = threading.Thread(target=self._tick, name="bridge-progress", daemon=True)
        self._listening = listening(self.activity)

    def lines(self) -> list[str]:
        """What one tick writes: the status, then each kind's count (of its planned total, when known)."""
        kinds = [
            f"progress: {spec(kind).label}: {records}{'' if self.total(kind) is None else f'/{self.total(kind)}'}"
            " records"
            for kind, records in list(self.records.items())
        ]
        return [f"progress: {self.activity.status().plain}", *kinds]

    def _write(self) -> None:
        self.out.write("".join(f"{line}\n" for line in self.lines()))
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
