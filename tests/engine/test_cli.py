"""`bridge plan` and `bridge run` as a user drives them: options, files, messages and exit codes."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner

from bridge.cli import cli
from bridge.config import Settings
from bridge.engine.inventory import HELD
from bridge.engine.plan import PLAN_SCHEMA_VERSION
from mappings.kinds import Kind
from state import open_state
from state.runs import report_of
from tests.support.inventory import bank_files, inventory_counts
from tests.support.world import SMALL_PROJECT, World, fresh_world


@pytest.fixture
def served(tmp_path: Path) -> Iterator[World]:
    """The `small` emulator (dirty catalogue included) on a loopback port, a token, an empty state file."""
    with fresh_world(tmp_path / "state.sqlite", dirty=True, hostile=True).served() as world:
        yield world


def _bridge(world: World, *args: str, **env: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, list(args), env=world.env(**env), catch_exceptions=False)
    return result.exit_code, result.output


def _writes(world: World) -> int:
    return int(httpx.get(f"{world.base_url}/_emulator/stats").json()["writes"])


@pytest.mark.wire
def test_plan_prints_the_table_writes_plan_json_and_nothing_to_v1(served: World, tmp_path: Path) -> None:
    """The plan lists kinds and assumptions, writes plan.json, and the target's writes counter stays at zero."""
    out, log = tmp_path / "plan.json", tmp_path / "bridge.log"
    code, output = _bridge(served, "plan", "--project", SMALL_PROJECT, "--out", str(out), "--log-file", str(log))
    assert code == 0, output
    events = [json.loads(line)["event"] for line in log.read_text().splitlines()]
    assert "bridge.run.started" in events
    assert "bridge.run.finished" in events
    for secret in (served.token, served.legacy_key):
        assert secret not in log.read_text()
        assert secret not in output
    assumes = [line for line in output.splitlines() if "assumes" in line]
    assert len(assumes) == 1, assumes
    assert "A20," in assumes[0]
    assert "`bridge assumptions`" in assumes[0]
    plan = json.loads(out.read_text())
    assert plan["schema_version"] == PLAN_SCHEMA_VERSION == 6
    assert plan["kinds"]["line"]["to_create"] > 0
    assert plan["requests"] > 0
    assert _writes(served) == 0


@pytest.mark.wire
@pytest.mark.slow
def test_run_with_bad_records_exits_1_and_lists_them(served: World) -> None:
    """Dirty source records are quarantined with their code, the rest migrates, and the run exits 1."""
    code, output = _bridge(served, "run")
    assert code == 1, output
    assert "records quarantined:" in output
    listed = [line for line in output.splitlines() if line.startswith("  ") and ": " in line]
    assert listed
    again, _ = _bridge(served, "run")
    assert again == 1


def test_missing_settings_exit_2_naming_what_to_set(tmp_path: Path) -> None:
    """Without a legacy URL the command says which variable to set, and exits 2 before any request."""
    result = CliRunner().invoke(cli, ["run", "--state", str(tmp_path / "s.sqlite")], env={"BRIDGE_LEGACY_URL": ""})
    assert result.exit_code == 2
    assert "BRIDGE_LEGACY_URL" in result.output


@pytest.mark.wire
def test_state_file_of_another_target_is_refused_with_exit_2(served: World) -> None:
    """A state file bound to one target is not resumed against another workspace."""
    code, output = _bridge(served, "plan", "--project", SMALL_PROJECT)
    assert code == 0, output
    assert _bridge(served, "run", "--project", SMALL_PROJECT)[0] in (0, 1)
    other = httpx.post(f"{served.base_url}/_emulator/tokens", json={"workspace": "source"}).json()["token"]
    code, output = _bridge(served, "run", "--project", SMALL_PROJECT, BRIDGE_V1_TOKEN=other)
    assert code == 2
    assert "belongs to source" in output


@pytest.mark.wire
def test_revoked_token_exits_5_naming_the_variable_to_fix(served: World) -> None:
    """A revoked token is refused credentials (exit 5): the message names the variable to set, never "resume"."""
    assert httpx.delete(f"{served.base_url}/_emulator/tokens/{served.token}").status_code == 204
    code, output = _bridge(served, "run", "--project", SMALL_PROJECT)
    assert code == 5
    assert "BRIDGE_V1_TOKEN" in output
    assert "resume with" not in output
    assert served.token not in output


@pytest.mark.wire
def test_a_record_removed_at_source_is_named_by_plan_and_run(served: World) -> None:
    """After a legacy actual is deleted, plan and run say it was removed at source and is left on the target."""
    assert _bridge(served, "run", "--project", SMALL_PROJECT)[0] == 1  # the dirty seed quarantines some records
    legacy = f"{served.base_url}/api/v1/projects/{SMALL_PROJECT}/actuals"
    headers = {"X-API-Key": served.legacy_key}
    actuals = httpx.get(legacy, params={"idMode": "system"}, headers=headers).json()["actuals"]
    with open_state(str(served.state), read_only=True) as store:
        migrated = next(a["id"] for a in actuals if store.crosswalk.lookup(Kind.ACTUAL, a["id"], SMALL_PROJECT))
    assert httpx.delete(f"{legacy}/{migrated}", headers=headers).status_code == 204
    for command in ("plan", "run"):
        _code, output = _bridge(served, command, "--project", SMALL_PROJECT)
        assert "removed at source, left on target: actual 1" in output


@pytest.mark.wire
def test_run_json_and_verify_json_print_their_summary_and_nothing_else_on_stdout(served: World, tmp_path: Path) -> None:
    """A script reads stdout as JSON: the run's report (what the state keeps for `status`) and verify's
    verdicts; the progress and the log stay on stderr."""
    result = CliRunner().invoke(
        cli, ["run", "--project", SMALL_PROJECT, "--json", "--log-level", "INFO"], env=served.env()
    )
    assert result.exit_code == 1, result.output  # the dirty seed quarantines some records
    report = json.loads(result.stdout)
    assert report["run_id"] == 1
    assert report["kinds"]["line"]["to_create"] > 0
    assert report["quarantine"]
    assert "bridge.run.finished" in result.stderr  # --log-level INFO: the terminal shows INFO events
    with open_state(str(served.state), read_only=True) as store:
        kept = report_of(store.runs.last_runs(1)[0])
    assert {k: v for k, v in report.items() if k in ("kinds", "requests")} == kept
    reports = tmp_path / "reports"
    result = CliRunner().invoke(
        cli, ["verify", "--project", SMALL_PROJECT, "--json", "--report-dir", str(reports)], env=served.env()
    )
    assert result.exit_code in (0, 1), result.output
    summary = json.loads(result.stdout)
    assert summary["reconciled"] is (result.exit_code == 0)
    assert summary["run"] == "1"
    assert sum(summary["verdicts"].values()) > 0
    assert [p["project_id"] for p in summary["projects"]] == [SMALL_PROJECT]
    assert {Path(p).name for p in summary["reports"]} == {f"reconciliation.{e}" for e in ("json", "md", "html")}
    assert all(Path(p).parent == reports for p in summary["reports"])
    assert "bridge.run" not in result.stderr  # the default --log-level WARNING keeps INFO off the terminal


def test_piped_plan_prints_every_column_of_its_table(served: World) -> None:
    """A pipe is no terminal: the table and each reason's line are whole, never cut to 80 columns with an
    ellipsis."""
    code, output = _bridge(served, "plan", "--project", SMALL_PROJECT)
    assert code == 0, output
    header = next(line for line in output.splitlines() if "kind" in line and "requests" in line)
    assert "quarantined" in header
    assert any(len(line) > 80 for line in output.splitlines() if line.startswith("  "))
    assert "\u2026" not in output


def test_run_with_a_plan_that_is_not_a_plan_json_exits_2_naming_it(served: World, tmp_path: Path) -> None:
    """`run --plan` takes what `plan --out` wrote; anything else is a usage error saying how to make one."""
    bad = tmp_path / "plan.json"
    bad.write_text('{"kinds": {"nonsense": {}}}', encoding="utf-8")
    code, output = _bridge(served, "run", "--plan", str(bad))
    assert code == 2, output
    assert f"--plan {bad} is not a plan.json" in output
    assert "bridge plan --out plan.json" in output
    assert _writes(served) == 0


@pytest.mark.wire
def test_plan_counts_every_kind_it_does_not_carry_one_line_each(served: World, tmp_path: Path) -> None:
    """Purchase orders, tax documents, comments, notes, rates...: each counted as the source holds it (the emulator's
    own store is the oracle), with money and bytes, in one terminal line per kind, never one per record."""
    out = tmp_path / "plan.json"
    code, output = _bridge(served, "plan", "--out", str(out))
    assert code == 0, output
    workspace = served.service.workspace("source")
    projects = [p for p in workspace.projects.values() if not p.deleted]
    actuals = [a for p in projects for a in p.actuals.values()]
    expected = inventory_counts(workspace, projects)
    inventory = {entry["kind"]: entry for entry in json.loads(out.read_text())["inventory"]}
    assert {kind: entry["count"] for kind, entry in inventory.items()} == expected
    assert all(entry["carried"] is False and entry["why"] for entry in inventory.values())
    orders = [order for p in projects for order in p.purchase_orders.values()]
    carried = json.loads(out.read_text())["purchase_orders"]["statuses"]  # carried now: in the status table
    assert sum(row["count"] for row in carried) == len(orders)
    assert sum(Decimal(v) for row in carried for v in row["money"].values()) == sum(o.amount for o in orders)
    receipts = [f for a in actuals for f in workspace.files.files_of("actual", a.id)]
    attachments = [f for c in workspace.contacts for f in workspace.files.files_of("contact.attachment", c)]
    quotes = [f for o in orders for f in workspace.files.files_of("purchaseOrder", o.id)]
    # Every receipt, contact and order attachment, and every file of an actual's bank transaction the actual does
    # not hold, is an upload, but one above max_file_bytes (the dirty 12 MiB scan); a file on two records is two.
    documents = receipts + attachments + quotes + bank_files(workspace, projects)
    uploaded = [f for f in documents if f.size <= Settings().max_file_bytes]
    uploads = json.loads(out.read_text())["uploads"]
    assert uploads == {"count": len(uploaded), "bytes": sum(f.size for f in uploaded), "billable": True}
    assert f"uploads {len(uploaded):,} documents, {uploads['bytes']:,} bytes, billable on v1" in output
    after = output[output.index("not carried (") :].splitlines()
    # The section: its heading, then its indented lines (the quarantine's codes and the orders follow).
    shown = after[:1] + list(itertools.takewhile(lambda line: line.startswith("  "), after[1:]))
    for held in HELD:
        (line,) = [text for text in shown if text.startswith(f"  {held.label}: ")]
        assert f"{expected[held.kind]:,}" in line
    assert len(shown) < 40, "values not carried are grouped by kind, field and reason, never listed per record"
