"""While a run is in progress the collector starts young collections less often; after, it is as it was."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from bridge.engine.collector import YOUNG_THRESHOLD, run_pace


@pytest.fixture
def thresholds() -> Iterator[tuple[int, int, int]]:
    found = gc.get_threshold()
    gc.set_threshold(700, 10, 10)
    yield gc.get_threshold()
    gc.set_threshold(*found)


def test_overlapping_runs_put_the_thresholds_back_when_the_last_one_ends(thresholds: tuple[int, int, int]) -> None:
    """A fleet worker may run two workspaces at once: the first to end must not restore the pace under the other."""
    first, second = run_pace(), run_pace()
    first.__enter__()
    assert gc.get_threshold() == (YOUNG_THRESHOLD, 10, 10)
    second.__enter__()
    first.__exit__(None, None, None)
    assert gc.get_threshold() == (YOUNG_THRESHOLD, 10, 10)
    second.__exit__(None, None, None)
    assert gc.get_threshold() == thresholds


def test_a_run_that_fails_puts_the_thresholds_back(thresholds: tuple[int, int, int]) -> None:
    """The pace is the run's, not the process's: an error leaves the collector as the run found it."""
    with pytest.raises(RuntimeError), run_pace():
        raise RuntimeError("stopped")
    assert gc.get_threshold() == thresholds


def test_a_collector_switched_off_by_threshold_stays_off(thresholds: tuple[int, int, int]) -> None:
    """A young threshold of 0 (collection off) is an operator's choice, not raised to YOUNG_THRESHOLD."""
    gc.set_threshold(0, 10, 10)
    with run_pace():
        assert gc.get_threshold()[0] == 0
