"""Read a project's legacy actuals (with splits) in date windows, in bounded memory, without loss or duplicates.

How rows are neither dropped nor duplicated while the source changes during the read:

* Windows are disjoint and cover the range in whole UTC days: ``[startDate, endDate]`` inclusive, sent as the
  published date-times of the first day's first instant and the last day's last microsecond (A42), the next
  window starting the day after, so every dated row falls in exactly one window.
* A window is answered in one response (A03: legacy lists are not paged), so within a window the read is one
  consistent snapshot: there is no page boundary for a row to slip across.
* Rows are deduplicated by id across the whole read: an actual whose date is edited from an unread window into
  a read one, or vice versa, is yielded once.
* Two open-ended edge reads (``endDate`` only, before the range; ``startDate`` only, after it) catch rows
  dated outside the range the caller guessed, so a wrong guess costs two requests, never rows.
* With ``recheck=True`` every window is read a second time at the end and rows not seen yet are yielded: an
  actual moved into an already-read window, or created there during the read, is not lost. Ids are all that
  the read keeps (a set of strings), never the rows.

A window that answers more than ``max_rows`` rows is thrown away and read again as consecutive smaller windows
planned from the days its rows carry, each of at most ``max_rows`` rows by that answer (a day over the limit
alone, kept whatever its size); the windows are still read from the service, so its day boundaries decide
what each holds. Rows whose day cannot be read fall back to two halves. A window far under the target grows
the next one, so sparse years cost few requests, and a dense month is read about once, not re-read at every
halving. Memory holds one answer at a time: an over-full one is dropped before the next read.
"""

from __future__ import annotations

import asyncio
import math
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta
from decimal import Decimal

from bridge.errors import UnexpectedResponse
from mappings.kinds import Kind
from mappings.records import Actual
from mappings.shapes import parse_row, without_duplicates

Fetch = Callable[[str, Sequence[tuple[str, str]]], Awaitable[tuple[object, str | None]]]

ACTUAL_EXPANDS = ("contact", "subactual", "attachments")
FIRST_WINDOW_DAYS = 31
MAX_WINDOW_DAYS = 4 * 366
PARSE_SLICE = 100


@dataclass(slots=True)
class ActualsRead:
    """What one windowed read saw: windows read, rows yielded, and the sum of each window's ``totalAmount``."""

    windows: list[tuple[date, date, int]] = field(default_factory=list)
    rows: int = 0
    total_amount: Decimal = Decimal(0)
    ids: set[str] = field(default_factory=set)


def day_start(day: date) -> str:
    """The published ``startDate`` (a date-time) of a window starting on ``day``: its first instant, UTC (A42)."""
    return f"{day.isoformat()}T00:00:00Z"


def day_end(day: date) -> str:
    """The published ``endDate`` (a date-time, inclusive) of a window ending on ``day``: its last microsecond,
    UTC, so a stamp in the day's last second is in and the next window starts at the next instant (A42)."""
    return f"{day.isoformat()}T23:59:59.999999Z"


def _day(row: object) -> date | None:
    """The calendar day an actual's ``date`` (date-time) names, None if it has none readable."""
    stamp = row.get("date") if isinstance(row, dict) else None
    try:
        return date.fromisoformat(stamp[:10]) if isinstance(stamp, str) else None
    except ValueError:
        return None


def plan_windows(first: date, last: date, rows: Sequence[object], max_rows: int) -> list[tuple[date, date]] | None:
    """``[first, last]`` as consecutive windows of at most ``max_rows`` of these rows each, by their days.

    A day holding more than ``max_rows`` rows is a window of its own. None when a row has no readable day in
    the window (the caller halves instead).
    """
    per_day: Counter[date] = Counter()
    for row in rows:
        day = _day(row)
        if day is None or not first <= day <= last:
            return None
        per_day[day] += 1
    windows: list[tuple[date, date]] = []
    start, count = first, 0
    for day in sorted(per_day):
        if count + per_day[day] > max_rows and start < day:
            windows.append((start, day - timedelta(days=1)))
            start, count = day, 0
        count += per_day[day]
        if count > max_rows:
            windows.append((start, day))
            start, count = day + timedelta(days=1), 0
    if start <= last:
        windows.append((start, last))
    return windows


def total_amount(body: object) -> Decimal:
    """An actuals answer's ``totalAmount`` as a Decimal: 0 when absent or not a finite JSON number (not ``true``)."""
    total = body.get("totalAmount") if isinstance(body, dict) else None
    if isinstance(total, bool) or not isinstance(total, int | float) or not math.isfinite(total):
        return Decimal(0)
    return Decimal(str(total))


def _normalise(raw: dict[str, object]) -> dict[str, object]:
    """Expanded contact -> contactId; a single-element accountId list -> that id (split actuals list several)."""
    fields = dict(raw)
    contact = fields.get("contact")
    if "contactId" not in fields and isinstance(contact, dict) and isinstance(contact.get("id"), str):
        fields["contactId"] = contact["id"]
    account = fields.get("accountId")
    if isinstance(account, list):
        fields["accountIds"] = account
        fields["accountId"] = account[0] if len(account) == 1 else None
    return fields


class ActualsReader:
    """One windowed read of one project's actuals between ``start`` and ``end`` (inclusive days)."""

    def __init__(self, fetch: Fetch, project_id: str, *, max_rows: int = 5000) -> None:
        self._fetch = fetch
        self.project_id = project_id
        self.max_rows = max_rows
        self.summary = ActualsRead()

    @property
    def path(self) -> str:
        return f"/projects/{self.project_id}/actuals"

    async def _window(self, first: date, last: date) -> tuple[list[object], Decimal]:
        # date.min / date.max stand for an open end: that bound is left out of the query.
        params = [("startDate", day_start(first))] if first != date.min else []
        params += [("endDate", day_end(last))] if last != date.max else []
        params += [("expands[]", value) for value in ACTUAL_EXPANDS]
        body, rid = await self._fetch(self.path, params)
        rows = body.get("actuals") if isinstance(body, dict) else None
        if not isinstance(rows, list):
            raise UnexpectedResponse(f"legacy GET {self.path} answered without an 'actuals' array", request_id=rid)
        return rows, total_amount(body)

    async def _fresh(self, rows: list[object]) -> list[Actual]:
        """The window's actuals not yielded yet; a row its type refuses is a refused actual in its place.

        An id listed twice in one answer is two records in the source (one answer is one snapshot): it is
        refused once, as a duplicate. Seen again in a later window it is the same record moved: skipped.
        """
        scope = self.project_id
        parsed: list[Actual] = []
        for first in range(0, len(rows), PARSE_SLICE):
            if first:
                # A window of 1,000 rows took 30 ms to parse: in slices, the answers of the requests in flight
                # are read between them instead of waiting for the whole window.
                await asyncio.sleep(0)
            parsed += [
                parse_row(Actual, _normalise(row) if isinstance(row, dict) else row, Kind.ACTUAL, scope, index=n)
                for n, row in enumerate(rows[first : first + PARSE_SLICE], first)
            ]
        fresh: list[Actual] = []
        for actual in without_duplicates(parsed, Kind.ACTUAL, scope):
            if actual.id not in self.summary.ids:
                self.summary.ids.add(actual.id)
                fresh.append(actual)
        self.summary.rows += len(fresh)
        return fresh

    async def read(self, start: date, end: date, *, recheck: bool = False) -> AsyncIterator[Actual]:
        """Every actual dated ``start`` .. ``end`` once; see the module docstring for the guarantees."""
        # The edges go first: an open-ended window cannot be split, and it is normally empty.
        pending: list[tuple[date, date]] = [(end + timedelta(days=1), date.max), (date.min, start - timedelta(days=1))]
        span = FIRST_WINDOW_DAYS
        cursor = start
        while cursor <= end or pending:
            if pending:
                first, last = pending.pop()
            else:
                first, last = cursor, min(end, cursor + timedelta(days=span - 1))
                cursor = last + timedelta(days=1)
            rows, total = await self._window(first, last)
            days = (last - first).days + 1
            edge = date.min in {first, last} or date.max in {first, last}
            if len(rows) > self.max_rows and days > 1 and not edge:
                planned = plan_windows(first, last, rows, self.max_rows)
                if planned is None:
                    middle = first + timedelta(days=days // 2 - 1)
                    planned = [(first, middle), (middle + timedelta(days=1), last)]
                pending += reversed(planned)  # popped earliest first
                span = max(1, days * self.max_rows // (2 * len(rows)))
                rows = []  # not held while the planned windows are read
                continue
            self.summary.windows.append((first, last, len(rows)))
            self.summary.total_amount += total
            count = len(rows)
            fresh = await self._fresh(rows)
            rows = []
            fresh.reverse()
            while fresh:  # each actual is let go once the caller has it
                yield fresh.pop()
            if edge or pending:
                continue
            if count < self.max_rows // 4:
                span = min(MAX_WINDOW_DAYS, span * 2)
            else:  # the next window sized by this one's density, for about three quarters of the limit
                span = max(1, min(MAX_WINDOW_DAYS, days * 3 * self.max_rows // (4 * count)))
        if recheck:
            for first, last, _count in list(self.summary.windows):
                rows, _total = await self._window(first, last)
                for actual in await self._fresh(rows):
                    yield actual
