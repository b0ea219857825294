"""Hostile source values: each is set aside with its catalogue code, everything else migrates, verify reports.

One world holds every value of ``CASES`` on a record of its own in the smallest seeded project; it is
migrated once through the engine and verified once through the CLI, and each case is asserted on its own.
A tree thousands of levels deep gets a world of its own, since it changes the whole budget.
"""

from __future__ import annotations

import asyncio
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from bridge.emulator.core.seed import seeded_service
from bridge.engine.plan import QuarantinedRecord
from bridge.engine.progress import Progress
from bridge.engine.run import Outcome, migrate
from bridge.verify.report import JSON_NAME
from mappings.budget import MAX_DEPTH
from mappings.errors import ErrorCode
from tests.hostile.world import CASES, MIGRATED, Case, Planted, deep_chain, plant_all
from tests.support.migrated import run_cli, world_over
from tests.support.world import SMALL_PROJECT, World

REPORTS = (JSON_NAME, "reconciliation.md", "reconciliation.html")
DEPTH = 5_000


@dataclass(frozen=True, slots=True)
class Result:
    """One hostile world after a run and a verify: where each case landed and what every step said."""

    world: World
    planted: dict[str, Planted]
    outcome: Outcome
    plan: Outcome | None
    verify_exit: int
    verify_output: str
    report_dir: Path
    source_lines: int
    source_actuals: int

    def entries(self, planted: Planted) -> list[QuarantinedRecord]:
        return [
            q
            for q in self.outcome.ledger.quarantine
            if (q.kind, q.legacy_id, q.scope) == (planted.kind, planted.legacy_id, planted.scope)
        ]


DEEP_RESPONSE_BYTES = 1 << 30


def _run(tmp: Path, *, depth: int = 0) -> Result:
    """Every case planted (or, with ``depth``, a chain of accounts that deep), a plan, a run and a verify."""
    service = seeded_service(42, "small")
    workspace = service.workspace("source")
    project = workspace.projects[SMALL_PROJECT]
    source_lines, source_actuals = len(project.nodes), len(project.actuals)
    if not depth:
        planted = plant_all(service, SMALL_PROJECT, CASES)
    else:
        chain = deep_chain(service, SMALL_PROJECT, depth)
        # The emulator computes its totals recursively; done here once with room to spare, then cached for
        # the project's version, so the bridge itself runs at the interpreter's normal recursion limit.
        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(4 * depth)
        try:
            service.totals(workspace, workspace.projects[SMALL_PROJECT])
        finally:
            sys.setrecursionlimit(limit)
        planted = {"deep": Planted("line", chain[MAX_DEPTH], SMALL_PROJECT)}
    world = world_over(service, tmp / "state.db", (SMALL_PROJECT,))
    settings = world.settings()
    extra: tuple[str, ...] = ()
    if depth:
        # Each legacy account carries its whole path, so the account list of a chain 5,000 deep is about 200 MB:
        # above the default max_response_bytes, a size the bridge refuses (exit 3) unless told it is expected.
        settings = settings.model_copy(update={"max_response_bytes": DEEP_RESPONSE_BYTES})
        config = tmp / "bridge.toml"
        config.write_text(f"max_response_bytes = {DEEP_RESPONSE_BYTES}\n", encoding="utf-8")
        extra = ("--config", str(config))
    wires = world.transports()
    # The deep tree costs one read per account (5,000): its world is migrated once, without a dry run first.
    plan = None if depth else asyncio.run(migrate(settings, dry_run=True, progress=Progress(), transports=wires))
    outcome = asyncio.run(migrate(settings, dry_run=False, progress=Progress(), transports=wires))
    report_dir = tmp / "reports"
    code, _report, output = run_cli(world, report_dir, *extra)
    return Result(world, planted, outcome, plan, code, output, report_dir, source_lines, source_actuals)


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Result:
    return _run(tmp_path_factory.mktemp("hostile"))


@pytest.fixture(scope="module")
def deep(tmp_path_factory: pytest.TempPathFactory) -> Result:
    return _run(tmp_path_factory.mktemp("deep"), depth=DEPTH)


def test_at_least_forty_hostile_values() -> None:
    """The table covers the hostile values the issue lists, at least forty of them."""
    assert len(CASES) >= 40
    assert len({case.name for case in CASES}) == len(CASES)


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_each_hostile_value_is_quarantined_with_its_code_or_migrated(hostile: Result, case: Case) -> None:
    """A hostile value is quarantined under its record with its catalogue code; a legitimate one migrates."""
    planted = hostile.planted[case.name]
    entries = hostile.entries(planted)
    if case.expected == MIGRATED:
        assert entries == [], f"{case.name} is legitimate and must migrate: {entries}"
        return
    assert case.expected in {q.code for q in entries}, f"{case.name}: {[(q.code, q.message) for q in entries]}"
    for entry in entries:
        # Whatever the value holds (a surrogate, NUL, an escape sequence), the message shows it escaped.
        assert entry.message.isprintable(), ascii(entry.message)
        assert len(entry.message) < 1_000
        assert entry.field is None or entry.field.isprintable()


@pytest.mark.slow
def test_nothing_else_is_quarantined(hostile: Result) -> None:
    """Besides the planted records (and what stands under them), every record of the project migrates."""
    planted = {(p.kind, p.legacy_id) for p in hostile.planted.values()}
    others = [q for q in hostile.outcome.ledger.quarantine if (q.kind, q.legacy_id) not in planted]
    assert all(q.code == ErrorCode.TREE_CYCLE for q in others), [(q.kind, q.legacy_id, q.code) for q in others]
    (project,) = hostile.world.list_all("/projects")
    lines = hostile.world.list_all(f"/projects/{project['id']}/budget/lines")
    transactions = hostile.world.list_all("/transactions", {"projectId": str(project["id"])})
    migrated = [case.place for case in CASES if case.expected == MIGRATED]
    legit_lines = sum(place.startswith("line.") for place in migrated)
    legit_actuals = sum(place.startswith("actual.") for place in migrated)
    assert len(lines) == hostile.source_lines + legit_lines
    assert len(transactions) == hostile.source_actuals + legit_actuals


@pytest.mark.slow
def test_legitimate_values_arrive_unchanged(hostile: Result) -> None:
    """A bidi override or a byte-order mark in a name is text like any other: carried as it is; -0 is 0."""
    (project,) = hostile.world.list_all("/projects")
    descriptions = {line["description"] for line in hostile.world.list_all(f"/projects/{project['id']}/budget/lines")}
    spaces = {space["name"] for space in hostile.world.list_all("/spaces")}
    for case in CASES:
        if case.expected == MIGRATED and case.place == "line.description":
            assert case.value in descriptions, case.name
        if case.expected == MIGRATED and case.place == "space.name":
            assert case.value in spaces, case.name
    transactions = hostile.world.list_all("/transactions", {"projectId": str(project["id"])})
    zero = [t for t in transactions if t["description"] == "Hostile actual" and t["amount"]["amount"] == 0]
    assert len(zero) == 1


@pytest.mark.slow
def test_plan_sets_aside_exactly_what_the_run_does(hostile: Result) -> None:
    """The dry run reads the same hostile source and quarantines the same records with the same codes."""

    def entries(outcome: Outcome) -> set[tuple[str, str, str, str]]:
        return {(q.kind, q.scope, q.legacy_id, q.code) for q in outcome.ledger.quarantine}

    assert hostile.plan is not None
    assert entries(hostile.plan) == entries(hostile.outcome)


@pytest.mark.slow
def test_verify_writes_every_report_without_a_traceback(hostile: Result) -> None:
    """verify answers with a verdict (not a crash) and writes the JSON, Markdown and HTML reports."""
    assert "Traceback" not in hostile.verify_output
    assert hostile.verify_exit in {0, 1}, hostile.verify_output
    for name in REPORTS:
        assert (hostile.report_dir / name).is_file(), name


@pytest.mark.slow
def test_a_tree_five_thousand_deep_migrates_to_the_depth_limit_and_quarantines_below(deep: Result) -> None:
    """The levels within MAX_DEPTH migrate; the first one below is tree.too_deep, the rest wait under it."""
    codes = {q.code for q in deep.entries(deep.planted["deep"])}
    assert codes == {ErrorCode.TREE_TOO_DEEP}
    below = [q for q in deep.outcome.ledger.quarantine if q.code == ErrorCode.TREE_ANCESTOR_QUARANTINED]
    assert len(below) == DEPTH - MAX_DEPTH - 1
    assert "Traceback" not in deep.verify_output
    for name in REPORTS:
        assert (deep.report_dir / name).is_file(), name
