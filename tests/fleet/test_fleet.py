"""The fleet end to end on real PostgreSQL: six workspaces, two worker processes, one SIGKILLed and never back.

Everything runs as the operator would run it: `bridge emulate --workspaces 6 --write-manifest`, `bridge fleet
submit`, two `bridge fleet worker` processes; the test kills one while it runs workspaces, then reads the
outcome through the same doors an operator has (fleet status, bridge status, each target's v1 surface, the
emulator's request timeline).
"""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import signal
import time
import uuid
from collections import Counter
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

from bridge.emulator.app import create_app
from bridge.fleet.manifest import WorkspaceSpec, load_manifest
from bridge.fleet.rehearsal import Rehearsal, rehearsal
from bridge.localpg import LocalPostgres
from tests.support.census import census
from tests.support.world import World

pytestmark = pytest.mark.timeout(900)

WORKSPACES = 6
SEED = 42


def wait_for(what: str, check: Callable[[], bool], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(0.5)


def running_on(fleet: Rehearsal, pid: int) -> list[dict[str, Any]]:
    """The workspaces a worker process runs right now and that have recorded a step (so it is mid-run)."""
    return [
        row
        for row in fleet.status()
        if row["state"] == "running" and row["worker"] and row["worker"]["pid"] == pid and row["steps_done"] >= 1
    ]


def token_of(spec: WorkspaceSpec) -> str:
    assert spec.token_file is not None
    return spec.token_file.read_text().strip()


async def census_of(v1_url: str, token: str) -> Counter[tuple[str, ...]]:
    async with httpx.AsyncClient(base_url=v1_url, headers={"Authorization": f"Bearer {token}"}, timeout=60) as v1:
        return await census(v1.get)


async def reference_census(index: int, seed: int, state: Path) -> Counter[tuple[str, ...]]:
    """What one clean `bridge run` of the same workspace leaves on a fresh target, read through v1: the
    ``index``-th tenant of an emulator seeded as the fleet's (its ids, so the order of its projects, are the
    fleet's: the first project by legacy id sets each library item, A18)."""
    app = create_app(seed=seed - index, size="small", workspaces=WORKSPACES)
    return await World.of(app, state, tenant=index, projects=()).clean_census()


def moment(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def overlapping(spans: list[tuple[datetime, datetime, str]]) -> list[tuple[str, str]]:
    """Pairs of clients (User-Agents) whose request spans on one workspace overlap."""
    ordered = sorted(spans)
    return [(a[2], b[2]) for a, b in itertools.pairwise(ordered) if b[0] < a[1]]


def test_six_workspaces_two_workers_one_killed(pg: LocalPostgres, tmp_path: Path) -> None:
    state = pg.create_database(f"fleet_{uuid.uuid4().hex[:8]}")
    with rehearsal(tmp_path, state, WORKSPACES, ("--size", "small", "--latency-ms", "20")) as fleet:
        submitted = fleet.submit()
        assert submitted.returncode == 0, submitted.stderr
        assert f"{WORKSPACES} started, 0 already submitted" in submitted.stdout

        doomed = fleet.start_worker("--workspaces", "3", "--until-idle")
        survivor = fleet.start_worker("--workspaces", "3", "--until-idle")
        wait_for("the first worker to be mid-run", lambda: bool(running_on(fleet, doomed.pid)), 300)
        victims = {row["workflow_id"] for row in running_on(fleet, doomed.pid)}
        os.kill(doomed.pid, signal.SIGKILL)
        killed_at = time.time()
        doomed.wait()

        assert survivor.wait(timeout=600) == 0, (tmp_path / "worker-2.out").read_text()
        rows = {row["name"]: row for row in fleet.status()}

        # Every workspace verified and reconciled, the killed worker's too, by the worker that lived.
        assert sorted(rows) == [f"ws-{i:02d}" for i in range(1, WORKSPACES + 1)]
        for name, row in rows.items():
            assert (row["state"], row["reconciled"]) == ("verified", True), (name, row["reason"])
            assert row["verdict"]["verdicts"]["mismatch"] == 0
        assert victims, "the first worker was killed while running at least one workspace"

        # The take-over came within a minute of the kill, without anyone acting.
        took_over = [
            json.loads(line)
            for line in (tmp_path / "worker-2.log").read_text().splitlines()
            if "bridge.fleet.worker.took_over" in line
        ]
        assert len(took_over) == 1
        taken_at = moment(took_over[0]["timestamp"]).timestamp()
        assert 0 < taken_at - killed_at < 60
        assert victims <= set(took_over[0]["workflows"])

        # `fleet status --json` shows each workspace's own `bridge status` counts.
        for name, row in rows.items():
            own = fleet.bridge("status", "--migration", name, "--json")
            assert own.returncode == 0, own.stderr
            assert row["counts"] == json.loads(own.stdout)["records"], name

        # No target ever had two migrations at once: the clients' spans on each target never overlap.
        stats = fleet.stats()
        for tenant in stats["tenants"]:
            uses = stats["clients"].get(tenant["target"], [])
            spans = [(moment(u["first"]), moment(u["last"]), str(u["userAgent"])) for u in uses]
            assert not overlapping(spans), (tenant["target"], spans)

        # Zero duplicates, zero missing: each target, read through v1, holds what one clean run leaves.
        specs = {spec.name: spec for spec in load_manifest(fleet.manifest)}
        for index, tenant in enumerate(stats["tenants"]):
            spec = specs[tenant["name"]]
            got = asyncio.run(census_of(spec.v1_url, token_of(spec)))
            reference_state = tmp_path / f"ref-{tenant['name']}.db"
            expected = asyncio.run(reference_census(index, int(tenant["seed"]), reference_state))
            assert got == expected, tenant["name"]

        # Submitting the same manifest again starts nothing, and nothing is written.
        writes_before = fleet.stats()["writes"]
        again = fleet.submit()
        assert again.returncode == 0, again.stderr
        assert f"0 started, {WORKSPACES} already submitted" in again.stdout
        assert {row["state"] for row in fleet.status()} == {"verified"}
        assert fleet.stats()["writes"] == writes_before
