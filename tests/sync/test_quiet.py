"""A watch's memory (``sync.cycle.Watch``): a project that reads as the last cycle found it is read, not mapped
again (``engine.quiet``), and anything that could change what it would write makes it processed again; a
document a verify proved is not downloaded again while v1 lists it the same.

Each test runs cycles as one `bridge sync --watch` does (one ``Watch`` across them) on the whole `small`
workspace in process, edits legacy between cycles through its published surface, and checks what a user would:
which projects a cycle found quiet, what reached v1, drift, the verdict, and that a quiet project's snapshot
roots are the ones a fresh process computes from the state.
"""

from __future__ import annotations

import asyncio
import json
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from bridge.cli import cli
from bridge.sync.cycle import Cycle, Watch, run_cycle
from bridge.sync.log import SyncLog
from state import open_state
from state.crosswalk import CrosswalkEntry
from tests.support.world import World, fast_controls, fresh_world

pytestmark = pytest.mark.wire


def _cycle(world: World, watch: Watch) -> Cycle:
    with SyncLog.open(Path(f"{world.state}.sync.jsonl")) as log:
        return asyncio.run(
            run_cycle(world.settings(), log, transports=world.transports(), controls=fast_controls(), watch=watch)
        )


def _legacy(world: World, method: str, path: str, body: object = None) -> Any:
    async def send() -> Any:
        async with world.client("/api/v1", {"X-API-Key": world.legacy_key}) as legacy:
            answer = await legacy.request(method, path, json=body, params={"idMode": "system"})
            answer.raise_for_status()
            return answer.json() if answer.content else None

    return asyncio.run(send())


@pytest.fixture
def watched(tmp_path: Path) -> tuple[World, Watch, list[str]]:
    """The whole `small` workspace migrated, then two cycles of one watch: the second finds every project quiet."""
    world = fresh_world(tmp_path / "state.sqlite", projects=())
    outcome = asyncio.run(world.run())
    assert not outcome.ledger.quarantine
    projects = list(outcome.projects)
    assert len(projects) > 1
    watch = Watch()
    assert _cycle(world, watch).outcome.quiet == ()
    assert list(_cycle(world, watch).outcome.quiet) == projects
    return world, watch, projects


def _legacy_reads(world: World) -> int:
    stats: Any = asyncio.run(world.control("GET", "/stats"))
    return int(stats["requests"]["bySurface"]["legacy"])


def _at(stamp: object) -> datetime:
    assert isinstance(stamp, str)
    return datetime.fromisoformat(stamp.replace("Z", "+00:00"))


def _first_plain_actual(world: World, project: str) -> dict[str, Any]:
    rows: list[dict[str, Any]] = _legacy(world, "GET", f"/projects/{project}/actuals")["actuals"]
    return next(row for row in rows if not row.get("subactuals"))


def test_an_idle_cycle_maps_nothing_and_its_roots_are_the_states(
    watched: tuple[World, Watch, list[str]],
) -> None:
    world, watch, projects = watched
    cycle = _cycle(world, watch)
    assert list(cycle.outcome.quiet) == projects
    assert cycle.writes == 0
    # Every record is still counted as unchanged: the tally is the last processing's, not an empty one.
    assert cycle.outcome.ledger.counts() == _cycle(world, Watch()).outcome.ledger.counts()
    fresh = _cycle(world, Watch())
    assert fresh.outcome.quiet == ()
    assert cycle.record["roots"] == fresh.record["roots"]


def test_an_edited_actual_is_written_and_only_its_project_is_mapped_again(
    watched: tuple[World, Watch, list[str]],
) -> None:
    world, watch, projects = watched
    project = projects[0]
    actual = _first_plain_actual(world, project)
    before = _legacy_reads(world)
    assert _cycle(world, watch).writes == 0
    idle = _legacy_reads(world) - before
    _legacy(world, "PUT", f"/projects/{project}/actuals/{actual['id']}", {"amount": 4321.5})
    before = _legacy_reads(world)
    changed = _cycle(world, watch)
    assert changed.writes == 1
    assert list(changed.outcome.quiet) == projects[1:]
    # The project found changed is processed from the answers its check just read, not read twice: about what a
    # cycle finding every project quiet reads (a read the processing itself repeats is asked again).
    checked = len(watch.quiet.known[project].reads)
    assert idle <= _legacy_reads(world) - before < idle + checked // 2
    transactions = world.list_all("/transactions", {"limit": "200"})
    assert 432150 in {row["amount"]["amount"] for row in transactions}
    # Its lag, as the cycle measured it: from the legacy write to the write decided, then to the write done.
    lag: Any = changed.record["lag"]
    assert lag[project]["records"] == 1
    assert lag[project]["unstamped"] == 0
    (source,) = lag[project]["sourceMs"]
    edited = datetime.fromisoformat(_first_plain_actual(world, project)["lastModified"].replace("Z", "+00:00"))
    assert 0 <= source <= (_at(changed.record["finished"]) - edited).total_seconds() * 1000
    # `sync status` reads the state and the log only (the in-process world's URLs are no address).
    unused = {"BRIDGE_LEGACY_URL": "http://127.0.0.1:9/api/v1", "BRIDGE_V1_URL": "http://127.0.0.1:9/v1"}
    status = CliRunner().invoke(cli, ["sync", "status", "--json"], env=world.env(**unused), catch_exceptions=False)
    (shown,) = [p for p in json.loads(status.output)["projects"] if p["project"] == project]
    assert shown["source_lag_seconds"]["max"] == source / 1000
    # The next cycle finds every project quiet, and counts them as a fresh process mapping them all does.
    settled = _cycle(world, watch)
    assert list(settled.outcome.quiet) == projects
    fresh = _cycle(world, Watch())
    assert fresh.outcome.quiet == ()
    assert settled.outcome.ledger.counts() == fresh.outcome.ledger.counts()
    assert settled.record["roots"] == fresh.record["roots"]


def test_a_renamed_contact_maps_again_the_projects_whose_lines_show_it(
    watched: tuple[World, Watch, list[str]],
) -> None:
    world, watch, _ = watched
    contacts: list[dict[str, Any]] = _legacy(world, "GET", "/contacts")["contacts"]
    _legacy(world, "PUT", f"/contacts/{contacts[0]['id']}", {"firstName": "Renamed"})
    assert _cycle(world, watch).outcome.quiet == ()


def test_a_record_booked_by_another_process_maps_its_project_again(
    watched: tuple[World, Watch, list[str]],
) -> None:
    world, watch, projects = watched
    project = projects[-1]
    # Another process (a conflict resolved, a `bridge run`) books another source hash for one of its records,
    # while legacy reads the same: the project is processed, and the record brought back to its source.
    store = open_state(str(world.state))
    try:
        kind, legacy_id, v1_id, _ = next(row for row in store.crosswalk.mappings(project) if row[0] == "actual")
        store.crosswalk.put([CrosswalkEntry(kind, legacy_id, v1_id, project, "0" * 64)])
    finally:
        store.close()
    cycle = _cycle(world, watch)
    assert list(cycle.outcome.quiet) == projects[:-1]
    assert cycle.writes == 1


def test_a_line_edited_on_v1_only_is_found_drifted_by_the_quiet_cycle_and_left_as_it_is(
    watched: tuple[World, Watch, list[str]],
) -> None:
    world, watch, projects = watched
    project = projects[0]
    store = open_state(str(world.state))
    try:
        _, _, line, _ = next(row for row in store.crosswalk.mappings(project) if row[0] == "line")
        v1_project = store.crosswalk.get("project", project)
    finally:
        store.close()
    assert v1_project is not None
    path = f"/projects/{v1_project.v1_id}/budget/lines/{line}"
    assert world.call("PATCH", path, json={"description": "edited on v1"}).is_success
    actual = _first_plain_actual(world, project)
    _legacy(world, "PUT", f"/projects/{project}/actuals/{actual['id']}", {"amount": 55.5})
    # The cycle that writes the actual reads back what it wrote; the next one, writing nothing, scans the project
    # whole before its verify, and says which records moved on v1 alone.
    assert _cycle(world, watch).writes == 1
    scanned = _cycle(world, watch)
    assert scanned.writes == 0
    assert scanned.record["drifted"] == {project: {"line": 1}}
    verdict: Any = scanned.record["verdict"]
    assert verdict["verified"] is True
    assert world.call("GET", path).json()["description"] == "edited on v1"
    # The next verify of the watch takes the documents it proved (v1 lists them as it did), and still reconciles.
    _legacy(world, "PUT", f"/projects/{project}/actuals/{actual['id']}", {"amount": 66.5})
    assert _cycle(world, watch).writes == 1
    again: Any = _cycle(world, watch).record["verdict"]
    assert again["reconciled"] is True
    assert again["documentsProvedEarlier"] > 0


def test_a_watch_verifies_beside_its_cycles_and_drops_a_verdict_a_write_overtook(tmp_path: Path) -> None:
    world = fresh_world(tmp_path / "state.sqlite", projects=())
    assert not asyncio.run(world.run()).ledger.quarantine
    log_path = Path(f"{world.state}.sync.jsonl")
    project = min(row["id"] for row in _legacy(world, "GET", "/projects")["projects"])
    actual = _first_plain_actual(world, project)["id"]

    async def edit(project: str, actual: str, amount: float) -> None:
        async with world.client("/api/v1", {"X-API-Key": world.legacy_key}) as legacy:
            path = f"/projects/{project}/actuals/{actual}"
            (await legacy.put(path, json={"amount": amount}, params={"idMode": "system"})).raise_for_status()

    async def cycles() -> list[dict[str, Any]]:
        watch = Watch(background=True)
        seen: list[dict[str, Any]] = []

        async def cycle() -> dict[str, Any]:
            with SyncLog.open(log_path) as log:
                found = await run_cycle(
                    world.settings(), log, transports=world.transports(), controls=fast_controls(), watch=watch
                )
            seen.append(found.record)
            return found.record

        assert project in (await cycle())["projects"]
        await edit(project, actual, 71.5)
        assert (await cycle())["requests"] == 1
        started = await cycle()  # quiet: the verify of the project begins beside the next cycles
        assert started["verifying"] == [project]
        assert started["verdict"]["verified"] is False
        assert watch.verifying is not None
        await asyncio.wait([watch.verifying.task])
        taken = await cycle()  # the verify ended with no write in its project: its verdict is this cycle's
        assert taken["verdict"]["verified"] is True
        assert taken["verdict"]["projects"] == [project]
        assert taken["unverified"] == []
        await edit(project, actual, 72.5)
        assert (await cycle())["requests"] == 1
        assert (await cycle())["verifying"] == [project]
        await edit(project, actual, 73.5)
        overtaken = await cycle()  # it writes in the project the verify was proving: that verdict is dropped
        assert overtaken["requests"] == 1
        assert overtaken["verdict"]["verified"] is False
        assert overtaken["unverified"] == [project]
        assert (await cycle())["verifying"] == [project]  # the next quiet cycle begins another
        watch.verifying.task.cancel()  # as a watch stopped does
        await asyncio.gather(watch.verifying.task, return_exceptions=True)
        return seen

    records = asyncio.run(cycles())
    assert [r["verdict"]["verified"] for r in records].count(True) == 1
    assert all(r["verdict"]["reconciled"] for r in records if r["verdict"]["verified"])
