"""Operating a fleet: submit, cancel, retry, a workspace that stops and why, and what the database keeps.

Real PostgreSQL and real processes (`bridge emulate --workspaces 2`, `bridge fleet ...`), as an operator runs
them.
"""

from __future__ import annotations

import base64
import json
import signal
import subprocess
import time
import uuid
from pathlib import Path

import pytest
import sqlalchemy as sa
from click.testing import CliRunner

from bridge.cli import cli
from bridge.fleet.manifest import WorkspaceSpec, load_manifest
from bridge.fleet.rehearsal import Rehearsal, bridge_command, rehearsal
from bridge.localpg import LocalPostgres
from tests.support.fleet_tables import text_of_database
from tests.support.world import SMALL_PROJECT

pytestmark = pytest.mark.timeout(600)


def secrets_of(spec: WorkspaceSpec) -> list[str]:
    assert spec.legacy_key_file is not None
    assert spec.token_file is not None
    return [spec.legacy_key_file.read_text().strip(), spec.token_file.read_text().strip()]


def states(fleet: Rehearsal) -> dict[str, str]:
    return {row["name"]: row["state"] for row in fleet.status()}


def test_cancel_retry_and_a_stopped_workspace(pg: LocalPostgres, tmp_path: Path) -> None:
    state = pg.create_database(f"fleet_{uuid.uuid4().hex[:8]}")
    with rehearsal(tmp_path, state, 2) as fleet:
        assert "2 started" in fleet.submit().stdout
        specs = {spec.name: spec for spec in load_manifest(fleet.manifest)}

        # The queue and the fleet's tables hold file paths, never a key or a token, in any common encoding.
        stored = text_of_database(state)
        assert str(specs["ws-01"].token_file) in stored
        for spec in specs.values():
            for secret in secrets_of(spec):
                for form in (secret, base64.b64encode(secret.encode()).decode(), secret.encode().hex()):
                    assert form not in stored

        # A name is one migration: the same name with other settings is refused, naming the workspace.
        changed = fleet.manifest.read_text().replace('name = "ws-02"', 'name = "ws-02"\nconcurrency = 3', 1)
        other = tmp_path / "changed.toml"
        other.write_text(changed)
        for spec in specs.values():  # the secrets' files are named relative to the manifest's folder
            assert spec.token_file is not None
            assert spec.token_file.parent == tmp_path
        refused = fleet.bridge("fleet", "submit", str(other))
        assert refused.returncode == 2
        assert "workspace ws-02 was submitted before with other settings" in refused.stderr

        # Cancel a queued workspace, then retry it: a new attempt, a new workflow id, queued again.
        cancelled = fleet.bridge("fleet", "cancel", "ws-01")
        assert cancelled.returncode == 0, cancelled.stderr
        assert states(fleet)["ws-01"] == "cancelled"
        assert fleet.bridge("fleet", "retry", "ws-02").returncode == 2  # queued: nothing to retry
        again = fleet.bridge("fleet", "retry", "ws-01")
        assert again.returncode == 0, again.stderr
        row = next(r for r in fleet.status() if r["name"] == "ws-01")
        assert (row["state"], row["attempt"], row["workflow_id"].endswith("-2")) == ("queued", 2, True)
        unknown = fleet.bridge("fleet", "cancel", "ws-99")
        assert unknown.returncode == 2
        assert "submitted: ws-01, ws-02" in unknown.stderr

        # ws-02's token is revoked before it runs: it stops, and status says why (without the token).
        token_file = specs["ws-02"].token_file
        assert token_file is not None
        good = token_file.read_text()
        token_file.write_text("tok_revoked_in_this_test")
        worker = fleet.start_worker("--until-idle")
        assert worker.wait(timeout=300) == 0, (tmp_path / "worker-1.out").read_text()
        rows = {r["name"]: r for r in fleet.status()}
        assert (rows["ws-01"]["state"], rows["ws-01"]["reconciled"]) == ("verified", True)
        assert rows["ws-02"]["state"] == "stopped"
        assert "workspace: AuthenticationLost" in rows["ws-02"]["reason"]
        assert "tok_revoked_in_this_test" not in rows["ws-02"]["reason"]
        table = fleet.bridge("fleet", "status").stdout
        assert "stopped" in table
        assert "AuthenticationLost" in table

        # The operator fixes the token and retries: it resumes and ends verified.
        token_file.write_text(good)
        assert fleet.bridge("fleet", "retry", "ws-02").returncode == 0
        worker = fleet.start_worker("--until-idle")
        assert worker.wait(timeout=300) == 0, (tmp_path / "worker-2.out").read_text()
        rows = {r["name"]: r for r in fleet.status()}
        assert (rows["ws-02"]["state"], rows["ws-02"]["reconciled"], rows["ws-02"]["attempt"]) == ("verified", True, 2)


@pytest.mark.parametrize("state", ["fleet.db", "sqlite:///fleet.db", "postgres-is-a-typo://x/y"])
def test_a_fleet_needs_postgresql(state: str, tmp_path: Path) -> None:
    manifest = tmp_path / "m.toml"
    manifest.write_text(
        '[[workspace]]\nname = "a"\nlegacy_url = "x"\nv1_url = "y"\ntoken_env = "T"\nlegacy_key_env = "K"\n'
    )
    for args in (["submit", str(manifest)], ["status"], ["worker"], ["retry", "a"], ["cancel", "a"]):
        result = CliRunner().invoke(cli, ["fleet", *args, "--state", state])
        assert result.exit_code == 2, (args, result.output)
        assert "pass --state postgresql://" in result.output


def test_a_workers_concurrency_caps_every_workspace_it_runs(pg: LocalPostgres, tmp_path: Path) -> None:
    """Each workspace's own limiter would let 8 requests fly; the worker's --concurrency 3 holds all of them."""
    state = pg.create_database(f"fleet_{uuid.uuid4().hex[:8]}")
    with rehearsal(tmp_path, state, 2, ("--size", "small", "--latency-ms", "20")) as fleet:
        assert "2 started" in fleet.submit().stdout
        worker = fleet.start_worker("--workspaces", "2", "--concurrency", "3", "--until-idle")
        assert worker.wait(timeout=300) == 0, (tmp_path / "worker-1.out").read_text()
        assert {row["state"] for row in fleet.status()} == {"verified"}
        peaks = {use["userAgent"]: use["requests"] for use in fleet.stats()["peakInFlight"]}
        mine = [peak for agent, peak in peaks.items() if agent and agent.endswith(f"pid {worker.pid})")]
        assert mine == [3]


def test_a_database_without_a_fleet_or_out_of_reach(pg: LocalPostgres) -> None:
    empty = pg.create_database(f"empty_{uuid.uuid4().hex[:8]}")
    for args in (["status"], ["retry", "ws-01"], ["cancel", "ws-01"]):
        result = CliRunner().invoke(cli, ["fleet", *args, "--state", empty])
        assert result.exit_code == 2, result.output
        assert "no fleet in" in result.output
    # Nothing was created by looking.
    assert "bridge_fleet" not in text_of_schemas(empty)
    away = "postgresql://bridge:pw-never-shown@127.0.0.1:1/fleet"
    for args in (["status"], ["worker"], ["cancel", "ws-01"]):
        result = CliRunner().invoke(cli, ["fleet", *args, "--state", away])
        assert result.exit_code == 3, result.output
        assert "pw-never-shown" not in result.output


def text_of_schemas(url: str) -> str:
    engine = sa.create_engine(url)
    try:
        with engine.connect() as connection:
            names = connection.execute(sa.text("SELECT schema_name FROM information_schema.schemata")).scalars()
            return " ".join(names)
    finally:
        engine.dispose()


def test_a_worker_stopped_with_sigterm_leaves_its_workspace_to_another(pg: LocalPostgres, tmp_path: Path) -> None:
    state = pg.create_database(f"fleet_{uuid.uuid4().hex[:8]}")
    with rehearsal(tmp_path, state, 1, ("--size", "small", "--latency-ms", "40")) as fleet:
        assert "1 started" in fleet.submit().stdout
        first = fleet.start_worker("--workspaces", "1")
        deadline = time.monotonic() + 120
        while fleet.status()[0]["steps_done"] < 2:
            assert time.monotonic() < deadline, "the first worker never finished two steps"
            time.sleep(0.3)
        first.send_signal(signal.SIGTERM)
        assert first.wait(timeout=60) == 0
        (row,) = fleet.status()
        # Not failed, not cancelled: still running, on a worker that left, for another to take over.
        assert (row["state"], row["worker"]["state"]) == ("running", "left")
        # Mid-run: steps of a total (the workspace step listed the 4 projects: 1 + 4 + verify), time so far.
        assert row["steps_total"] == 6
        assert row["elapsed_s"] > 0
        assert f"{row['steps_done']} of 6" in fleet.bridge("fleet", "status").stdout
        second = fleet.start_worker("--until-idle")
        assert second.wait(timeout=300) == 0, (tmp_path / "worker-2.out").read_text()
        (row,) = fleet.status()
        assert (row["state"], row["reconciled"], row["steps_done"], row["steps_total"]) == ("verified", True, 6, 6)
        said = json.loads(fleet.bridge("fleet", "status", "--json").stdout)
        migrated = sum(info["migrated"] for info in row["counts"].values())
        summary = said["summary"]
        assert (summary["done"], summary["failed"], summary["records"], summary["steps_total"]) == (1, 0, migrated, 6)
        lines = fleet.bridge("fleet", "status").stdout.splitlines()
        assert lines[-2].startswith(
            f"1 workspace: 1 done, 0 running, 0 queued, 0 failed; {migrated:,} records migrated"
        )
        assert "steps 6 of 6" in lines[-2]
        assert lines[-1].startswith("next: nothing")


def test_a_manifest_that_selects_projects_moves_and_verifies_only_those(pg: LocalPostgres, tmp_path: Path) -> None:
    state = pg.create_database(f"fleet_{uuid.uuid4().hex[:8]}")
    with rehearsal(tmp_path, state, 1) as fleet:
        chosen = tmp_path / "chosen.toml"
        chosen.write_text(fleet.manifest.read_text() + f'projects = ["{SMALL_PROJECT}"]\n')
        submitted = fleet.bridge("fleet", "submit", str(chosen))
        assert submitted.returncode == 0, submitted.stderr
        # Queued: its total is known from the manifest's selection (workspace, 1 project, verify), no time yet.
        (row,) = fleet.status()
        assert (row["state"], row["steps_done"], row["steps_total"], row["elapsed_s"]) == ("queued", 0, 3, None)
        assert "1 workspace: 0 done, 0 running, 1 queued, 0 failed" in fleet.bridge("fleet", "status").stdout
        worker = fleet.start_worker("--until-idle")
        assert worker.wait(timeout=300) == 0, (tmp_path / "worker-1.out").read_text()
        (row,) = fleet.status()
        assert (row["state"], row["reconciled"], row["steps_done"]) == ("verified", True, 3)
        assert [p["project_id"] for p in row["verdict"]["projects"]] == [SMALL_PROJECT]
        assert row["counts"]["project"]["migrated"] == 1


def test_two_entries_for_one_target_or_one_source_are_refused_at_submit(pg: LocalPostgres, tmp_path: Path) -> None:
    """Two names whose tokens open one target would write its books twice; two whose keys open one source would
    race: submit refuses the second (exit 2, naming both), in one manifest or across submissions, until the
    first is cancelled."""
    state = pg.create_database(f"fleet_{uuid.uuid4().hex[:8]}")
    with rehearsal(tmp_path, state, 2) as fleet:
        specs = {spec.name: spec for spec in load_manifest(fleet.manifest)}
        text = fleet.manifest.read_text()
        for shared, other in (("token_file", "target"), ("legacy_key_file", "source")):
            first = getattr(specs["ws-01"], shared)
            twin = tmp_path / f"twin-{shared}.toml"
            twin.write_text(text.replace(str(getattr(specs["ws-02"], shared).name), str(first.name)))
            refused = fleet.bridge("fleet", "submit", str(twin))
            assert refused.returncode == 2, refused.stderr
            said = " ".join(refused.stderr.split())
            assert f"workspace ws-02 has the same {other} as workspace ws-01" in said
        assert fleet.status() == []  # nothing was submitted

        # Across submissions: ws-01 alone, then another name for its target; refused until ws-01 is cancelled.
        alone = tmp_path / "alone.toml"
        alone.write_text(text.split("[[workspace]]")[0] + "[[workspace]]" + text.split("[[workspace]]")[1])
        assert fleet.bridge("fleet", "submit", str(alone)).returncode == 0
        renamed = tmp_path / "renamed.toml"
        renamed.write_text(alone.read_text().replace('name = "ws-01"', 'name = "ws-01-again"'))
        again = fleet.bridge("fleet", "submit", str(renamed))
        assert again.returncode == 2
        assert "workspace ws-01-again has the same target as workspace ws-01" in " ".join(again.stderr.split())
        assert fleet.bridge("fleet", "cancel", "ws-01").returncode == 0
        assert fleet.bridge("fleet", "submit", str(renamed)).returncode == 0


RACERS = 6


def test_racing_submits_of_one_new_name_start_it_once(pg: LocalPostgres, tmp_path: Path) -> None:
    """Six `fleet submit`s of one new manifest at once (on a database no fleet used yet): all exit 0, one
    starts the workspace, the others say it was already submitted; one workflow exists."""
    state = pg.create_database(f"fleet_{uuid.uuid4().hex[:8]}")
    with rehearsal(tmp_path, state, 1) as fleet:
        racers = [
            subprocess.Popen(
                bridge_command("fleet", "submit", str(fleet.manifest)),
                env=fleet.env(),
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for _ in range(RACERS)
        ]
        answers = [(racer.wait(timeout=120), *racer.communicate()) for racer in racers]
        assert [code for code, _, _ in answers] == [0] * RACERS, answers
        said = sorted(out.strip().splitlines()[-1] for _, out, _ in answers)
        assert said == ["0 started, 1 already submitted"] * (RACERS - 1) + ["1 started, 0 already submitted"]
        (row,) = fleet.status()
        assert (row["state"], row["attempt"]) == ("queued", 1)
