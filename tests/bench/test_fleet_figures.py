"""The fleet bench's figures per worker count: the run it reports, its speedup, and the ceiling the CPU sets."""

from __future__ import annotations

from bench.bench_fleet import median_run


def _run(wall_s: float, cpu_floor_s: float) -> dict[str, float]:
    return {"wall_s": wall_s, "cpu_floor_s": cpu_floor_s}


def test_the_run_of_median_wall_time_is_reported_with_every_wall() -> None:
    runs = [_run(15.9, 13.4), _run(14.6, 12.1), _run(23.6, 12.9)]
    figures = median_run(runs, first_wall=21.1)
    assert figures["wall_s"] == 15.9
    assert figures["cpu_floor_s"] == 13.4
    assert figures["walls_s"] == [15.9, 14.6, 23.6]


def test_speedup_and_its_ceiling_both_divide_the_first_wall() -> None:
    # 2 workers whose run kept the machine busy for 24.3 core-seconds on 2 cores: no schedule of that CPU beats
    # 12.15 s, so 21.1 s for 1 worker allows at most 1.74x, whatever the measured 14.6 s says.
    figures = median_run([_run(14.6, 12.15)], first_wall=21.1)
    assert figures["speedup"] == 1.45
    assert figures["speedup_ceiling"] == 1.74


def test_an_even_count_of_runs_reports_the_lower_middle_one() -> None:
    figures = median_run([_run(20.0, 10.0), _run(18.0, 9.0)], first_wall=36.0)
    assert figures["wall_s"] == 18.0
    assert figures["speedup"] == 2.0
    assert figures["speedup_ceiling"] == 4.0
