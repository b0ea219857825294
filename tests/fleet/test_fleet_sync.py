"""Bridge mode in a fleet: `bridge fleet sync` runs each workspace's sync cycles as a durable DBOS workflow, and
`bridge fleet status` shows each one's cycles, lag and conflicts. Real PostgreSQL and real processes."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import httpx
import pytest

from bridge.fleet.manifest import load_manifest
from bridge.fleet.rehearsal import rehearsal
from bridge.localpg import LocalPostgres

pytestmark = pytest.mark.timeout(600)


def test_fleet_sync_runs_cycles_durably_and_status_shows_their_lag(pg: LocalPostgres, tmp_path: Path) -> None:
    state = pg.create_database(f"fleet_{uuid.uuid4().hex[:8]}")
    with rehearsal(tmp_path, state, 1) as fleet:
        assert "1 started" in fleet.submit().stdout
        worker = fleet.start_worker("--until-idle")
        assert worker.wait(timeout=300) == 0, (tmp_path / "worker-1.out").read_text()
        (spec,) = load_manifest(fleet.manifest)
        assert spec.legacy_key_file is not None
        headers = {"X-API-Key": spec.legacy_key_file.read_text().strip()}
        with httpx.Client(base_url=spec.legacy_url, headers=headers) as legacy:
            project = legacy.get("/projects", params={"idMode": "system"}).json()["projects"][0]["id"]
            rows = legacy.get(f"/projects/{project}/actuals", params={"idMode": "system"}).json()["actuals"]
            plain = next(row for row in rows if not row.get("subactuals"))
            assert legacy.put(f"/projects/{project}/actuals/{plain['id']}", json={"amount": 77.25}).is_success
        started = fleet.bridge("fleet", "sync", str(fleet.manifest), "--interval", "1s", "--cycles", "2")
        assert started.returncode == 0, started.stderr
        assert "1 started" in started.stdout
        again = fleet.bridge("fleet", "sync", str(fleet.manifest), "--interval", "1s", "--cycles", "2")
        assert "already syncing" in again.stdout
        worker = fleet.start_worker("--until-idle")
        assert worker.wait(timeout=300) == 0, (tmp_path / "worker-2.out").read_text()
        (row,) = fleet.status()
        sync = row["sync"]
        logs = [p.read_text() for p in tmp_path.rglob("sync.jsonl")]
        changes = [json.loads(line)["record"]["changes"] for text in logs for line in text.splitlines()]
        assert (sync["state"], sync["cycles"], sync["requests"], sync["open_conflicts"]) == ("done", 2, 1, 0), changes
        assert sync["verdict"] == "reconciled"  # the second cycle wrote nothing and verified the first's change
        assert 0 <= sync["lag_s"] < 300
        assert "2 cycles" in fleet.bridge("fleet", "status").stdout
