"""`bridge plan` and `bridge run` end with their answer, and show their progress with real numbers (issue 33,
points 1 and 2), driven as an operator drives them: on a pseudo-terminal of 80 columns by 24 rows, and piped.

The closing line's figures are checked against plan.json, the run's report file and what the target holds
(the census); the plan's time estimate against the run that follows it.
"""

from __future__ import annotations

import asyncio
import json
import math
import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from bridge.engine.progress import EVERY_S
from tests.support.pty import on_terminal, text_of
from tests.support.world import World, fresh_world

COLUMNS, ROWS = 80, 24
"""The terminal the plan of `medium` must fit: 60 lines at 80 columns (a laptop's split pane)."""

PLAN_LINES = 60

# A closing line: the figures, the time and what it rests on, then what is not written and where it is listed.
FIGURES = r"(?P<records>[\d,]+) records? in (?P<requests>[\d,]+) requests?"
UNSENT = (
    r"(?:; (?P<quarantined>[\d,]+) records? quarantined \([^)]*\))?"
    r"(?:; (?:(?P<held>[\d,]+) records?(?: and )?)?(?:(?P<values>[\d,]+) values?)? not carried"
    r" \(each listed (?:in|with) (?P<where>[^)]+)\))?$"
)
PLANNED = re.compile(rf"^would create {FIGURES}, about (?P<time>[\d.,]+ (?:s|min|h)) (?P<basis>.+?){UNSENT}")
DONE = re.compile(
    rf"^created {FIGURES} in (?P<time>[\d.,]+ (?:s|min|h)), (?P<rate>[\d,]+) requests/s"
    rf"(?:; [\d,]+ records? already on the target)?{UNSENT}"
)
# A kind's count over a total rich could not tell: never once the kind is read.
UNKNOWN_TOTAL = re.compile(r"\b[1-9][\d,]*/\?")

ESTIMATE_FACTOR = 3
"""How far a plan's estimate from a measured pace may be from the run that follows it, either way."""


def number(text: str | None) -> int:
    return int((text or "0").replace(",", ""))


def seconds(text: str) -> float:
    value, unit = text.split()
    return float(value.replace(",", "")) * {"s": 1, "min": 60, "h": 3600}[unit]


@dataclass(frozen=True, slots=True)
class Piped:
    code: int
    out: str
    err: str


def piped(world: World, cwd: Path, *args: str) -> Piped:
    """`bridge ARGS` with stdout and stderr on pipes (no terminal), from ``cwd``."""
    bridge = Path(sys.executable).with_name("bridge")
    done = subprocess.run(
        [str(bridge), *args], env=world.env(), cwd=cwd, capture_output=True, text=True, timeout=600, check=False
    )
    return Piped(done.returncode, done.stdout, done.stderr)


def closing(lines: list[str]) -> tuple[str, str]:
    """The closing line and the next step: the last two lines a command printed."""
    said = [line for line in lines if line.strip()]
    return said[-2], said[-1]


def physical_lines(text: str, columns: int) -> int:
    """The rows ``text`` takes on a terminal ``columns`` wide (a long line wraps)."""
    return sum(max(1, math.ceil(len(line) / columns)) for line in text.rstrip("\n").split("\n"))


def plan_json_figures(plan: dict[str, object]) -> tuple[int, int, int, int]:
    """From plan.json: records to create, requests, records not carried, values not carried."""
    kinds = plan["kinds"]
    inventory = plan["inventory"]
    assert isinstance(kinds, dict)
    assert isinstance(inventory, list)
    assert isinstance(plan["not_carried"], list)
    created = sum(int(row["to_create"]) for row in kinds.values())
    held = sum(int(entry["count"]) for entry in inventory) + sum(int(row["left_out"]) for row in kinds.values())
    requests = plan["requests"]
    assert isinstance(requests, int)
    return created, requests, held, len(plan["not_carried"])


@pytest.fixture
def medium(tmp_path: Path) -> Iterator[World]:
    """The whole `medium` workspace served on a loopback port, an empty state file."""
    with fresh_world(tmp_path / "state.sqlite", "medium", projects=()).served() as world:
        yield world


@pytest.mark.wire
@pytest.mark.slow
def test_medium_plan_fits_a_terminal_and_plan_and_run_end_with_answers_the_files_and_target_confirm(
    medium: World, tmp_path: Path
) -> None:
    """On 80x24 the plan of `medium` takes under 60 lines and ends with its answer and the next step; piped, the
    closing lines' figures are plan.json's, the run's report file's and the target's; the run's progress writes a
    line per period naming only the kinds that moved, and the run does not reprint the plan's table."""
    code, screen = on_terminal(medium, "plan", columns=COLUMNS, rows=ROWS, cwd=tmp_path)
    shown = text_of(screen)
    assert code == 0, shown[-3000:]
    printed = shown[shown.rindex("plan for migration") :]
    assert physical_lines(printed, COLUMNS) <= PLAN_LINES, printed
    assert not UNKNOWN_TOTAL.search(shown), UNKNOWN_TOTAL.findall(shown)
    assert printed.rstrip().endswith("next: bridge run")

    plan = piped(medium, tmp_path, "plan", "--out", "plan.json")
    assert plan.code == 0, plan.err[-3000:]
    assert "\u2026" not in plan.out  # a pipe gets every reason whole
    said, then = closing(plan.out.splitlines())
    assert then == "next: bridge run --plan plan.json"
    found = PLANNED.match(said)
    assert found, said
    written = json.loads((tmp_path / "plan.json").read_text(encoding="utf-8"))
    created, requests, held, values = plan_json_figures(written)
    assert (number(found["records"]), number(found["requests"])) == (created, requests)
    assert (number(found["held"]), number(found["values"]), found["where"]) == (held, values, "plan.json")
    assert "a guess" in found["basis"], said  # no run measured a pace yet: said so
    # `medium` holds what the line is about.
    assert created > 10_000
    assert values > 1_000

    as_json = piped(medium, tmp_path, "plan", "--json")
    assert as_json.code == 0, as_json.err[-3000:]
    machine = json.loads(as_json.out)  # stdout is the JSON and nothing else
    assert {key: machine[key] for key in ("kinds", "requests", "not_carried", "inventory")} == {
        key: written[key] for key in ("kinds", "requests", "not_carried", "inventory")
    }

    run = piped(medium, tmp_path, "run", "--plan", "plan.json")
    assert run.code == 0, run.err[-3000:]
    said, then = closing(run.out.splitlines())
    assert then == "next: bridge verify"
    done = DONE.match(said)
    assert done, said
    assert (number(done["records"]), number(done["requests"])) == (created, requests)
    assert (number(done["held"]), number(done["values"])) == (held, values)
    report = json.loads((tmp_path / done["where"]).read_text(encoding="utf-8"))
    assert report["run_id"] == 1
    assert plan_json_figures(report) == (created, requests, held, values)
    took = seconds(done["time"])
    # The time said is rounded (to a tenth under 10 s, else to the second); the rate is of the time measured.
    half = 0.05 if re.search(r"\.\d", done["time"]) else 0.5
    assert requests / (took + half) - 1 <= number(done["rate"]) <= requests / (took - half) + 1
    on_target = asyncio.run(medium.census())
    assert sum(on_target.values()) == created
    # The plan's table is not printed again.
    assert "\u250f" not in run.out
    assert "to create" not in run.out

    progress = [line for line in run.err.splitlines() if line.startswith("progress: ")]
    # One at the start, then one every EVERY_S seconds of a run at least ``took`` long.
    assert len(progress) >= 1 + math.floor(took / EVERY_S), progress
    assert all(
        re.match(r"progress: (?:[\d,]+ of [\d,]+ records \(\d+%\); [\d,]+ records/s; |working: )", line)
        for line in progress
    ), progress
    assert progress[-1].startswith(f"progress: {created:,} of {created:,} records (100%)"), progress
    last: dict[str, str] = {}
    for line in progress:
        moved = dict(item.rsplit(" ", 1) for item in line.partition("moved: ")[2].split(", ") if item)
        assert all(last.get(kind) != count for kind, count in moved.items()), (last, line)
        last.update(moved)
    assert (
        last["budget lines"] == f"{written['kinds']['line']['to_create']:,}/{written['kinds']['line']['to_create']:,}"
    )


@pytest.mark.wire
def test_a_run_on_a_terminal_draws_rich_columns_marks_finished_kinds_and_ends_with_its_answer(tmp_path: Path) -> None:
    """On 80x24 the run shows an overall bar and per kind a percentage, N/M, a rate and the time left, never a
    total it could not tell once the kind is read, checks the kinds it finished, and ends past tense."""
    with fresh_world(tmp_path / "state.sqlite", projects=()).served() as world:
        code, screen = on_terminal(world, "run", columns=COLUMNS, rows=ROWS, cwd=tmp_path)
    shown = text_of(screen)
    assert code == 0, shown[-3000:]
    assert "all records" in shown
    assert re.search(r"\u2713 budget lines\s+\S*\s+100%\s+[\d,]+/[\d,]+", shown), shown[-3000:]
    assert re.search(r"\d+%", shown)
    assert re.search(r"[\d,]+/s", shown)
    assert not UNKNOWN_TOTAL.search(shown), UNKNOWN_TOTAL.findall(shown)
    said = [line.strip() for line in shown.splitlines() if line.strip()]
    assert said[-1] == "next: bridge verify"
    assert any(line.startswith("created ") and "requests/s" in line for line in said[-6:]), said[-6:]


@pytest.mark.wire
@pytest.mark.slow
def test_a_plan_after_a_run_estimates_from_its_measured_pace_within_a_factor_of_three(tmp_path: Path) -> None:
    """Before any run the plan's time is labelled a guess; after a run of some projects, the plan of others is
    timed at the pace that run measured, and the run that follows takes within ESTIMATE_FACTOR of it."""
    first, second = "prj_42eaee104525", "prj_fa0eca104ed4"
    with fresh_world(tmp_path / "state.sqlite", projects=()).served() as world:
        # A service that takes its time, so the writes (not the start-up) are what the pace measures.
        asyncio.run(world.control("POST", "/faults", {"seed": 1, "latencyMs": 5, "rules": []}))
        guessed = PLANNED.match(closing(piped(world, tmp_path, "plan", "--project", first).out.splitlines())[0])
        assert guessed
        assert "a guess" in guessed["basis"]
        assert "A120" in guessed["basis"]
        assert piped(world, tmp_path, "run", "--project", first).code == 0
        plan = piped(world, tmp_path, "plan", "--project", second)
        said, then = closing(plan.out.splitlines())
        assert then == f"next: bridge run --project {second}"
        estimated = PLANNED.match(said)
        assert estimated, said
        assert re.fullmatch(r"at the [\d,]+ requests/s run 1 measured at concurrency 8", estimated["basis"]), said
        run = piped(world, tmp_path, "run", "--project", second)
    done = DONE.match(closing(run.out.splitlines())[0])
    assert done, run.out[-2000:]
    expected, took = seconds(estimated["time"]), seconds(done["time"])
    assert expected / ESTIMATE_FACTOR <= took <= expected * ESTIMATE_FACTOR, (expected, took)
