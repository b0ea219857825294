"""Actuals windows after an over-full answer: planned from its days, so a dense month is read about once."""

from __future__ import annotations

import itertools
from datetime import date, timedelta

import pytest
import respx
from hypothesis import given
from hypothesis import strategies as st

from bridge.clients.http import RunControls
from bridge.clients.legacy import open_legacy
from bridge.clients.legacy_actuals import plan_windows
from bridge.config import Secret
from tests.clients.test_legacy_wire import _actuals_answer

BASE = "https://old.test/api/v1"
KEY = Secret("lk_windows_0123456789abcdefg")


def _rows(per_day: dict[date, int]) -> list[object]:
    return [
        {"id": f"{day}-{n}", "date": f"{day.isoformat()}T10:00:00Z"} for day, k in per_day.items() for n in range(k)
    ]


@given(
    st.dictionaries(st.integers(0, 40), st.integers(1, 30), min_size=1, max_size=25),
    st.integers(1, 40),
)
def test_planned_windows_tile_the_window_and_hold_at_most_the_limit(counts: dict[int, int], limit: int) -> None:
    """Consecutive, disjoint, covering; each over the limit only when it is a single day over it alone."""
    first, last = date(2026, 1, 1), date(2026, 2, 10)
    per_day = {first + timedelta(days=offset): n for offset, n in counts.items()}
    windows = plan_windows(first, last, _rows(per_day), limit)
    assert windows is not None
    assert windows[0][0] == first
    assert windows[-1][1] == last
    for (_, end), (start, _) in itertools.pairwise(windows):
        assert start - end == timedelta(days=1)
    for start, end in windows:
        held = sum(n for day, n in per_day.items() if start <= day <= end)
        assert held <= limit or (start == end and per_day[start] > limit)


def test_rows_without_a_readable_day_leave_the_split_to_halving() -> None:
    """A row with no date (or one outside the window) gives no plan: the reader halves as before."""
    rows = [{"id": "a", "date": "2026-01-03T10:00:00Z"}, {"id": "b", "date": None}]
    assert plan_windows(date(2026, 1, 1), date(2026, 1, 31), rows, 1) is None
    assert plan_windows(date(2026, 1, 1), date(2026, 1, 31), [{"id": "c", "date": "2027-01-01"}], 1) is None


@pytest.mark.anyio
async def test_a_dense_month_after_empty_years_is_read_about_once(controls: RunControls) -> None:
    """Every row once, windows within the limit, and far fewer rows transferred than re-reading at each halving."""
    dense = {date(2026, 3, 1) + timedelta(days=d): 40 + d % 7 for d in range(30)}
    async with respx.mock(using="bridge") as router:
        route = router.get(f"{BASE}/projects/p1/actuals").mock(side_effect=_actuals_answer(dense))
        async with open_legacy(BASE, KEY, controls) as client:
            reader, rows = client.actuals("p1", date(2020, 1, 1), date(2027, 12, 31), max_rows=100)
            ids = [actual.id async for actual in rows]
    assert len(ids) == len(set(ids)) == sum(dense.values())
    assert max(count for _, _, count in reader.summary.windows) <= 100
    transferred = sum(len(call.response.json()["actuals"]) for call in route.calls)
    assert transferred <= 2 * len(ids)
