"""`bridge sync` and `bridge conflicts` as an operator drives them against a served emulator.

Every edit goes through the published surfaces (legacy with the key, v1 with the token); the writes counted are
the emulator's (``/_emulator/stats``), never the bridge's.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from click.testing import CliRunner

from bridge.cli import cli
from bridge.sync.log import verify_chain
from state import open_state
from tests.support.census import v1_writes_by_route
from tests.support.world import SMALL_PROJECT, World, fresh_world

pytestmark = pytest.mark.wire


@pytest.fixture
def served(tmp_path: Path) -> Iterator[World]:
    """The `small` emulator on a loopback port, migrated once by `bridge run`, then synced once (the baseline)."""
    with fresh_world(tmp_path / "state.sqlite").served() as world:
        assert _bridge(world, "run", "--project", SMALL_PROJECT)[0] == 0
        code, output = _bridge(world, "sync", "--once", "--project", SMALL_PROJECT)
        assert code == 0, output
        yield world


def _bridge(world: World, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, list(args), env=world.env(), catch_exceptions=False)
    return result.exit_code, result.output


def _writes(world: World) -> int:
    return sum(v1_writes_by_route(httpx.get(f"{world.base_url}/_emulator/stats").json()).values())


def _legacy(world: World) -> httpx.Client:
    return httpx.Client(base_url=world.legacy_url, headers={"X-API-Key": world.legacy_key})


def _v1(world: World) -> httpx.Client:
    return httpx.Client(base_url=world.v1_url, headers={"Authorization": f"Bearer {world.token}"})


def _entry(world: World, kind: str, *, index: int = 5) -> tuple[str, str, str]:
    """(legacy id, v1 id, v1 project id) of one crosswalked record of ``kind`` in the small project."""
    store = open_state(str(world.state), read_only=True)
    try:
        rows = sorted(r for r in store.crosswalk.mappings(SMALL_PROJECT) if r[0] == kind)
        project = store.crosswalk.get("project", SMALL_PROJECT)
        assert project is not None
        return rows[index][1], rows[index][2], project.v1_id
    finally:
        store.close()


def _line(world: World, project: str, line: str) -> dict[str, Any]:
    with _v1(world) as v1:
        rows = v1.get(f"/projects/{project}/budget/lines", params={"limit": "100"}).json()["data"]
    found: dict[str, Any] = next(row for row in rows if row["id"] == line)
    return found


def _both_edit_a_line(world: World) -> tuple[str, str, str]:
    legacy_id, v1_id, project = _entry(world, "line")
    with _v1(world) as v1:
        assert v1.patch(f"/projects/{project}/budget/lines/{v1_id}", json={"description": "edited on v1"}).is_success
    with _legacy(world) as legacy:
        answer = legacy.put(f"/projects/{SMALL_PROJECT}/budget/line/{legacy_id}", json={"description": "from legacy"})
        assert answer.is_success
    return legacy_id, v1_id, project


def test_an_idle_cycle_writes_nothing_and_chains_its_log_line(served: World) -> None:
    before = _writes(served)
    code, output = _bridge(served, "sync", "--once", "--project", SMALL_PROJECT)
    assert code == 0, output
    assert "cycle 2: 0 requests; no change at the source; nothing written" in output
    assert _writes(served) == before
    log = Path(f"{served.state}.sync.jsonl")
    check = verify_chain(log)
    assert check.broken is None
    last = json.loads(log.read_text().splitlines()[-1])["record"]
    assert last["requests"] == "0"
    assert (
        last["roots"][SMALL_PROJECT]["legacy"]
        == json.loads(log.read_text().splitlines()[0])["record"]["roots"][SMALL_PROJECT]["legacy"]
    )


def test_a_v1_edit_is_never_overwritten_and_taking_legacy_writes_it_once(served: World) -> None:
    legacy_id, v1_id, project = _both_edit_a_line(served)
    before = _writes(served)
    code, output = _bridge(served, "sync", "--once", "--project", SMALL_PROJECT)
    assert code == 1, output  # an open conflict is something to look at
    assert "1 open conflicts" in output
    assert _writes(served) == before
    assert _line(served, project, v1_id)["description"] == "edited on v1"
    code, output = _bridge(served, "conflicts", "list", "--json")
    (conflict,) = json.loads(output)
    assert (conflict["kind"], conflict["legacy_id"], conflict["v1_id"]) == ("line", legacy_id, v1_id)
    assert conflict["legacy"]["description"] == "from legacy"
    assert conflict["v1"]["description"] == "edited on v1"
    code, output = _bridge(served, "conflicts", "resolve", str(conflict["id"]), "--take", "legacy")
    assert code == 0, output
    assert _writes(served) == before + 1
    assert _line(served, project, v1_id)["description"] == "from legacy"
    code, output = _bridge(served, "sync", "--once", "--project", SMALL_PROJECT)
    assert code == 0, output
    assert _writes(served) == before + 1
    assert json.loads(_bridge(served, "conflicts", "list", "--json")[1]) == []


def test_taking_v1_writes_nothing_and_keeps_the_v1_value(served: World) -> None:
    _, v1_id, project = _both_edit_a_line(served)
    assert _bridge(served, "sync", "--once", "--project", SMALL_PROJECT)[0] == 1
    (conflict,) = json.loads(_bridge(served, "conflicts", "list", "--json")[1])
    before = _writes(served)
    code, output = _bridge(served, "conflicts", "resolve", str(conflict["id"]), "--take", "v1")
    assert code == 0, output
    assert "0 requests sent" in output
    code, output = _bridge(served, "sync", "--once", "--project", SMALL_PROJECT)
    assert code == 0, output
    assert _writes(served) == before
    assert _line(served, project, v1_id)["description"] == "edited on v1"


def _transaction(world: World, v1_id: str) -> httpx.Response:
    with _v1(world) as v1:
        return v1.get(f"/transactions/{v1_id}")


def test_a_delete_at_source_deletes_only_what_nobody_changed_on_v1(served: World) -> None:
    plain_legacy, plain_v1, _ = _entry(served, "actual", index=2)
    edited_legacy, edited_v1, _ = _entry(served, "actual", index=3)
    with _v1(served) as v1:
        assert v1.patch(f"/transactions/{edited_v1}", json={"description": "checked on v1"}).is_success
    with _legacy(served) as legacy:
        for actual in (plain_legacy, edited_legacy):
            assert legacy.delete(f"/projects/{SMALL_PROJECT}/actuals/{actual}").status_code == 204
    code, output = _bridge(served, "sync", "--once", "--project", SMALL_PROJECT)
    assert code == 1, output
    assert "deleted on target 1" in output
    assert _transaction(served, plain_v1).status_code == 404
    assert _transaction(served, edited_v1).json()["description"] == "checked on v1"
    (conflict,) = json.loads(_bridge(served, "conflicts", "list", "--json")[1])
    assert (conflict["legacy_id"], conflict["legacy_change"]) == (edited_legacy, "delete")
    code, output = _bridge(served, "conflicts", "resolve", str(conflict["id"]), "--take", "legacy")
    assert code == 0, output
    assert _transaction(served, edited_v1).status_code == 404


def test_status_says_the_read_age_and_check_fails_on_a_conflict_or_an_old_read(served: World) -> None:
    code, output = _bridge(served, "sync", "status", "--json")
    assert code == 0, output
    (project,) = json.loads(output)["projects"]
    assert (project["project"], project["cycles"], project["open_conflicts"]) == (SMALL_PROJECT, 1, 0)
    assert 0 <= project["read_age_seconds"] < 600
    assert _bridge(served, "sync", "status", "--check", "--max-lag", "1h")[0] == 0
    code, output = _bridge(served, "sync", "status", "--check", "--max-lag", "1ms")
    assert code == 1
    assert f"{SMALL_PROJECT} was last read more than" in output
    _both_edit_a_line(served)
    assert _bridge(served, "sync", "--once", "--project", SMALL_PROJECT)[0] == 1
    code, output = _bridge(served, "sync", "status", "--check", "--max-lag", "1h")
    assert code == 1
    assert "has open conflicts" in output
    assert "1 open conflicts" in _bridge(served, "sync", "status")[1]


def test_sigterm_lets_the_watch_finish_its_cycle_and_exit_0(served: World) -> None:
    """A watch stopped by SIGTERM ends after a whole cycle: exit 0, its last line chained."""
    process = subprocess.Popen(
        [
            str(Path(sys.executable).parent / "bridge"),
            "sync",
            "--watch",
            "--interval",
            "200ms",
            "--project",
            SMALL_PROJECT,
        ],
        env=served.env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    assert process.stdout is not None
    first = process.stdout.readline()
    assert first.startswith("cycle 2:"), first
    process.send_signal(signal.SIGTERM)
    rest = process.communicate(timeout=120)[0]
    assert process.returncode == 0, rest
    assert "stopped on SIGTERM after a whole cycle" in rest
    check = verify_chain(Path(f"{served.state}.sync.jsonl"))
    assert check.broken is None
    assert check.lines >= 2
