"""A state never decides alone that a record is new (issue 31): a state restored from a backup taken mid-run,
or a state file that is gone, after the target forgot its Idempotency-Keys, writes nothing twice. What v1
already holds is found by its natural fields and adopted; `bridge crosswalk rebuild` rebuilds a lost state."""

from __future__ import annotations

import asyncio
import sqlite3
from collections import Counter
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner

from bridge.cli import cli
from bridge.engine.plan import Plan
from bridge.engine.progress import Progress
from bridge.engine.run import migrate
from mappings.kinds import Kind
from tests.engine.test_stale_resume import age_in_flight
from tests.pg import StateTarget
from tests.support.forked import KILLED, run_forked
from tests.support.world import SMALL_PROJECT, World, fresh_world


def _copy(source: Path, target: Path) -> None:
    """A consistent copy of a SQLite state as a backup tool takes it (committed pages, WAL included)."""
    with sqlite3.connect(source) as live, sqlite3.connect(target) as copy:
        live.backup(copy)


def _remove(state: Path) -> None:
    for suffix in ("", "-wal", "-shm"):
        Path(f"{state}{suffix}").unlink(missing_ok=True)


def _forget_keys(world: World) -> None:
    """The target's key retention has passed: it answers every old key as new."""
    httpx.post(f"{world.base_url}/_emulator/settings", json={"idempotencyRetentionS": 0}).raise_for_status()


def _fates(plan: Plan, fate: str) -> dict[Kind, int]:
    return {row.kind: getattr(row, fate) for row in plan.ordered() if getattr(row, fate)}


@pytest.mark.wire
def test_a_state_restored_from_a_mid_run_backup_adopts_what_was_written_after_it(
    tmp_path: Path, reference: Counter[tuple[str, ...]]
) -> None:
    """Backup taken while lines were being written; the run finishes; the backup is restored a day later. The
    rerun creates nothing: what the backup does not know is found on v1 and adopted (counted), the census
    equals a clean run's, and the plan said so first."""
    state, backup = tmp_path / "state.sqlite", tmp_path / "backup.sqlite"
    with fresh_world(state).served() as world:
        assert run_forked(world, "line:response:2") == KILLED
        _copy(state, backup)
        assert run_forked(world) == 0
        assert asyncio.run(world.census()) == reference

        _remove(state)
        _copy(backup, state)
        age_in_flight(StateTarget("sqlite", str(state)), hours=25)
        _forget_keys(world)
        plan = asyncio.run(world.run(dry_run=True)).ledger
        done = asyncio.run(world.run()).ledger

        assert asyncio.run(world.census()) == reference
        assert not done.quarantine
        assert _fates(done, "to_create") == {}
        adopted = _fates(done, "adopted")
        # Written after the backup: the other lines, and every kind that comes after them.
        assert {Kind.LINE, Kind.ACTUAL, Kind.SPLIT, Kind.COMMENT, Kind.RECEIPT} <= adopted.keys()
        assert plan.to_json()["kinds"] == done.to_json()["kinds"]
        assert done.unmatched_on_target == {}
        # Adopted once: a third run finds everything in the state and leaves it.
        again = asyncio.run(world.run()).ledger
        assert _fates(again, "adopted") == {}
        assert again.requests == 0


@pytest.mark.wire
def test_a_lost_state_is_rebuilt_from_both_surfaces_then_the_run_writes_nothing_twice(
    tmp_path: Path, reference: Counter[tuple[str, ...]]
) -> None:
    """The state file is deleted after a finished run and the keys are forgotten: `bridge crosswalk rebuild`
    books every record from v1 (sending nothing), and the run after it creates nothing."""
    state = tmp_path / "state.sqlite"
    with fresh_world(state).served() as world:
        assert run_forked(world) == 0
        _remove(state)
        _forget_keys(world)
        writes = httpx.get(f"{world.base_url}/_emulator/stats").json()["writes"]

        result = CliRunner().invoke(
            cli, ["crosswalk", "rebuild", "--project", SMALL_PROJECT], env=world.env(), catch_exceptions=False
        )

        assert result.exit_code == 0, result.output
        assert "nothing was sent" in result.output
        assert httpx.get(f"{world.base_url}/_emulator/stats").json()["writes"] == writes
        done = asyncio.run(world.run()).ledger
        assert asyncio.run(world.census()) == reference
        assert not done.quarantine
        assert _fates(done, "to_create") == {}
        assert _fates(done, "adopted") == {}  # the rebuild adopted them all


@pytest.mark.wire
def test_a_lost_state_without_rebuild_adopts_on_the_run_itself(
    tmp_path: Path, reference: Counter[tuple[str, ...]]
) -> None:
    """Without the rebuild, the run adopts by itself: preflight sees v1 objects the new state does not know,
    and the plan says what the run will adopt."""
    state = tmp_path / "state.sqlite"
    with fresh_world(state).served() as world:
        assert run_forked(world) == 0
        _remove(state)
        _forget_keys(world)
        planned = CliRunner().invoke(cli, ["plan", "--project", SMALL_PROJECT], env=world.env())
        assert planned.exit_code == 0, planned.output
        adopts = [line for line in planned.output.splitlines() if "the state did not know" in line]
        assert len(adopts) == 1, planned.output
        assert "adopts " in adopts[0]
        assert "line " in adopts[0]
        _remove(state)  # the plan recognised the source in a new state file: start again from none
        done = asyncio.run(world.run()).ledger
        assert asyncio.run(world.census()) == reference
        assert _fates(done, "to_create") == {}
        assert Kind.PROJECT in _fates(done, "adopted")


def test_a_project_written_after_its_workspace_stage_looks_each_kind_up_once(tmp_path: Path) -> None:
    """A fleet writes the workspace stage in one run and each project in another: the project is then known to
    the state before its run, so its creates look for their kind on v1 first; that is one listing per kind,
    never a read per receipt, transaction or order (their parents were made by this run)."""
    world = fresh_world(tmp_path / "state.sqlite")

    async def both() -> dict[str, int]:
        settings = world.settings()
        await migrate(settings, dry_run=False, progress=Progress(), transports=world.transports(), pipelines=False)
        before = Counter(world.emulator.stats.by_route)
        done = await migrate(settings, dry_run=False, progress=Progress(), transports=world.transports())
        assert _fates(done.ledger, "adopted") == {}
        reads = Counter(world.emulator.stats.by_route) - before
        return {route: n for route, n in reads.items() if route.startswith("GET /v1/")}

    reads = asyncio.run(both())
    per_record = [route for route in reads if "_id}" in route.replace("{project_id}", "")]
    assert per_record == [], reads
    assert max(reads.values()) <= 3, reads
