"""The engine benchmark's lower bound: the arithmetic on hand-made runs small enough to schedule by hand."""

from __future__ import annotations

import pytest

from bench.bound import lower_bound_s


def test_requests_that_need_nothing_share_the_slots() -> None:
    """33 independent requests, 16 at a time: three rounds of latency (16 + 16 + 1)."""
    assert lower_bound_s({1: 33}, concurrency=16, latency_s=0.02) == pytest.approx(0.06)


def test_a_chain_costs_one_latency_per_link_however_wide_the_slots() -> None:
    """A split item needs its transaction, which needs its project: three latencies even with 16 slots."""
    assert lower_bound_s({1: 1, 2: 1, 3: 1}, concurrency=16, latency_s=0.02) == pytest.approx(0.06)


def test_levels_of_independent_projects_overlap_rather_than_add_up() -> None:
    """Two slots, a three-link chain in one project and three independent requests in another: a schedule
    runs one link and one independent request per round, 3 rounds; summing each level's rounds (2 + 1 + 1)
    would claim 4, more than that schedule takes."""
    assert lower_bound_s({1: 4, 2: 1, 3: 1}, concurrency=2, latency_s=1.0) == pytest.approx(3.0)


def test_deep_requests_wait_for_their_chain_then_share_the_slots() -> None:
    """One level-1 request and six at level 2 on four slots: the six start after one latency and need two
    rounds, 3 in all, though all seven fit in 2 rounds and the longest chain is 2 links."""
    assert lower_bound_s({1: 1, 2: 6}, concurrency=4, latency_s=1.0) == pytest.approx(3.0)


def test_reads_of_the_other_surface_add_their_busy_time() -> None:
    """Reads at their own latency occupy the same slots: 4 writes at 1 s and 4 reads at 2 s on 2 slots keep
    them busy 12 s, 6 s of wall time at least, where the writes alone would take 2 s."""
    assert lower_bound_s({1: 4}, concurrency=2, latency_s=1.0, other_reads=4, other_latency_s=2.0) == pytest.approx(6.0)
    assert lower_bound_s({1: 4}, concurrency=2, latency_s=1.0, other_reads=169) == pytest.approx(2.0)


@pytest.mark.parametrize(
    ("levels", "concurrency"),
    [({0: 1}, 16), ({1: -1}, 16), ({1: 1}, 0)],
    ids=["level 0", "negative count", "no slot"],
)
def test_a_level_below_one_a_negative_count_or_no_slot_is_refused(levels: dict[int, int], concurrency: int) -> None:
    """What cannot describe a run is refused, naming what was given."""
    with pytest.raises(ValueError, match="levels start at 1"):
        lower_bound_s(levels, concurrency=concurrency, latency_s=0.02)
