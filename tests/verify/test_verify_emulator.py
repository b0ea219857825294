"""`bridge verify` on a migrated emulator: a clean target reconciles; each damage is found and located.

Every test damages its own copy of the target through the v1 surface (as a user or a stray script would),
then runs the real command over HTTP and reads the report it wrote.
"""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from bridge.cli import cli, exit_code
from bridge.clients.http import RunControls
from bridge.clients.retry import Timing
from bridge.errors import BridgeError
from bridge.verify.compare import FailOn, Verdict
from bridge.verify.drill import Presence
from bridge.verify.reconcile import VerifyOptions, verify
from bridge.verify.schema import Difference, Reconciliation
from state import open_state
from tests.support.migrated import LEGACY_KEY, TOKEN, run_cli
from tests.support.world import SMALL_PROJECT, World, fresh_world

Row = dict[str, Any]


def _v1_project(world: World) -> str:
    with open_state(str(world.state), read_only=True) as store:
        v1_id = store.crosswalk.lookup("project", world.project_id)
    assert v1_id is not None
    return v1_id


def _legacy_id(world: World, kind: str, v1_id: str) -> str:
    with open_state(str(world.state), read_only=True) as store:
        rows = [row for row in store.crosswalk.find_legacy(v1_id) if row.kind == kind]
    assert rows, f"{kind} {v1_id} is not in the crosswalk"
    return rows[0].legacy_id


def _budget(world: World) -> tuple[list[Row], dict[str, Row]]:
    """Every v1 line with its phase data and totals, and the visible phases by id."""
    project = _v1_project(world)
    lines = world.list_all(f"/projects/{project}/budget/lines", {"expand": "phaseData,phaseTotals"})
    phases = {p["id"]: p for p in world.list_all(f"/projects/{project}/budget/phases") if not p.get("isHidden")}
    return lines, phases


def _priced_line(lines: list[Row], phases: dict[str, Row]) -> tuple[Row, str]:
    """A plain line with a numeric rate and money in a visible estimate phase: (line, v1 phase id)."""
    for line in lines:
        for phase_id, data in line["phaseData"].items():
            priced = isinstance(data.get("rate"), float | int) and line["phaseTotals"].get(phase_id, {}).get("amount")
            if line["type"] == "line" and phases.get(phase_id, {}).get("type") == "estimate" and priced:
                return line, phase_id
    raise AssertionError("the seeded project has no priced line")


def _mismatches_on(
    report: Reconciliation, *, legacy_line: str | None = None, v1_line: str | None = None
) -> list[Difference]:
    found = [
        d
        for p in report.projects
        for d in p.differences
        if d.figure.verdict is Verdict.MISMATCH
        and (legacy_line is None or d.location.line_id == legacy_line)
        and (v1_line is None or d.location.v1_line_id == v1_line)
    ]
    everything = [d.summary for p in report.projects for d in p.differences]
    assert found, f"no mismatch located on line {legacy_line or v1_line}; the report says {everything}"
    return found


def _places(differences: list[Difference]) -> set[tuple[str | None, str]]:
    return {(d.location.account_code, d.location.phase_name) for d in differences}


def test_a_clean_migration_reconciles_with_every_total_exact_or_rounding(world: World, tmp_path: Path) -> None:
    """Right after the migration, verify exits 0, no total is a mismatch and the ledger is closed."""
    code, report, output = run_cli(world, tmp_path / "reports")
    assert report is not None, output
    assert code == 0, [d.summary for p in report.projects for d in p.differences]
    assert report.reconciled
    assert report.verdicts.mismatch == 0
    assert all(f.total.verdict in (Verdict.EXACT, Verdict.ROUNDING) for p in report.projects for f in p.phases)
    assert all(entry.closed and not entry.missing and not entry.unexpected for entry in report.ledger)
    assert "RECONCILED" in output
    written = [path.read_text() for path in (tmp_path / "reports").iterdir() if path.is_file()]
    assert len(written) == 3
    assert not [text for text in written if TOKEN in text or LEGACY_KEY in text]


def test_a_changed_rate_is_pinned_on_its_line_account_and_phase(world: World, tmp_path: Path) -> None:
    """A rate changed on v1 after the migration: exit 1, the report names that line, its account and phase."""
    lines, phases = _budget(world)
    line, phase_id = _priced_line(lines, phases)
    url = f"/projects/{_v1_project(world)}/budget/lines/{line['id']}/phase-data/{phase_id}"
    assert world.call("PUT", url, json={"rate": float(line["phaseData"][phase_id]["rate"]) + 100}).status_code == 200
    code, report, _ = run_cli(world, tmp_path / "reports")
    assert code == 1
    assert report is not None
    assert not report.reconciled
    differences = _mismatches_on(report, legacy_line=_legacy_id(world, "line", line["id"]))
    assert (line["accountId"], phases[phase_id]["name"]) in _places(differences)
    assert {d.location.presence for d in differences} == {Presence.BOTH}
    assert all(d.figure.legacy_amount is not None and d.figure.rate for d in differences)
    routes = world.call("GET", "/_emulator/stats").json()["requests"]["byRoute"]
    assert routes.get("GET /v1/projects/{project_id}/budget") == 1, "only the one differing branch is read"


def test_a_deleted_line_is_reported_missing_with_its_account_and_phase(world: World, tmp_path: Path) -> None:
    """A line deleted on v1: exit 1, the report lists it missing, and the ledger's set check misses it."""
    lines, phases = _budget(world)
    line, phase_id = _priced_line(lines, phases)
    assert world.call("DELETE", f"/projects/{_v1_project(world)}/budget/lines/{line['id']}").status_code == 204
    code, report, _ = run_cli(world, tmp_path / "reports")
    assert code == 1
    assert report is not None
    legacy_line = _legacy_id(world, "line", line["id"])
    differences = _mismatches_on(report, legacy_line=legacy_line)
    assert (line["accountId"], phases[phase_id]["name"]) in _places(differences)
    assert {d.location.presence for d in differences} == {Presence.MISSING}
    assert f"{world.project_id}/{legacy_line}" in next(e for e in report.ledger if e.kind == "line").missing


def test_a_duplicated_line_is_reported_unexpected_and_duplicated(world: World, tmp_path: Path) -> None:
    """The same line created twice on v1: exit 1, the stray is located and the ledger calls it a duplicate."""
    lines, phases = _budget(world)
    line, phase_id = _priced_line(lines, phases)
    data = line["phaseData"][phase_id]
    body = {
        "description": line["description"],
        "type": "line",
        "accountId": line["accountId"],
        "parentId": line["parentId"],
        "phaseData": {phase_id: {"rate": data["rate"], "quantity": data["quantity"], "multiplier": data["multiplier"]}},
    }
    key = {"Idempotency-Key": "verify-tests-duplicate-line-0001"}
    created = world.call("POST", f"/projects/{_v1_project(world)}/budget/lines", json=body, headers=key)
    assert created.status_code == 201, created.text
    stray = created.json()["id"]
    code, report, _ = run_cli(world, tmp_path / "reports")
    assert code == 1
    assert report is not None
    differences = _mismatches_on(report, v1_line=stray)
    assert {d.location.presence for d in differences} == {Presence.UNEXPECTED}
    assert (line["accountId"], phases[phase_id]["name"]) in _places(differences)
    duplicated = next(e for e in report.ledger if e.kind == "line").duplicated
    assert [(d.legacy_id, d.v1_ids) for d in duplicated] == [
        (_legacy_id(world, "line", line["id"]), [line["id"], stray])
    ]


def test_a_fringe_missing_from_the_project_copy_is_located_on_the_lines_using_it(world: World, tmp_path: Path) -> None:
    """A project fringe copy removed on v1: exit 1, a line it applied to is named, the ledger misses the copy."""
    lines, phases = _budget(world)
    used = [
        (line, phase_id, fringe)
        for line in lines
        for phase_id, data in line["phaseData"].items()
        for fringe in data.get("fringeIds") or []
        if phase_id in phases and line["phaseTotals"].get(phase_id, {}).get("fringe")
    ]
    assert used, "the seeded project applies no fringe"
    line, phase_id, fringe = used[0]
    assert world.call("DELETE", f"/projects/{_v1_project(world)}/library/fringes/{fringe}").status_code == 204
    code, report, _ = run_cli(world, tmp_path / "reports")
    assert code == 1
    assert report is not None
    differences = _mismatches_on(report, legacy_line=_legacy_id(world, "line", line["id"]))
    assert (line["accountId"], phases[phase_id]["name"]) in _places(differences)
    fringes = next(e for e in report.ledger if e.kind == "project_fringe")
    legacy_fringe = _legacy_id(world, "fringe", fringe)
    assert fringes.missing == [f"{world.project_id}/{legacy_fringe}"]
    assert [(d.kind, d.legacy_id, d.field) for p in report.projects for d in p.library] == [
        ("fringe", legacy_fringe, "(copy)")
    ]
    fringe_totals = {p.name: p.fringe for r in report.projects for p in r.phases}
    fringe_total = fringe_totals[phases[phase_id]["name"]]
    assert fringe_total is not None
    assert fringe_total.verdict is Verdict.MISMATCH


def test_a_changed_global_is_located_on_the_lines_whose_formula_uses_it(world: World, tmp_path: Path) -> None:
    """A project global's formula changed on v1: exit 1, a line computed from it is named with its phase."""
    lines, phases = _budget(world)
    project = _v1_project(world)
    symbols = {g["symbol"]: g for g in world.list_all(f"/projects/{project}/library/globals")}
    using = [
        (line, phase_id, cell.lstrip("=").strip())
        for line in lines
        for phase_id, data in line["phaseData"].items()
        for cell in (data.get("quantity"), data.get("rate"))
        if isinstance(cell, str) and cell.lstrip("=").strip() in symbols and phase_id in phases
        if line["phaseTotals"].get(phase_id, {}).get("amount")
    ]
    assert using, "no line of the seeded project computes from a global"
    line, phase_id, symbol = using[0]
    patched = world.call(
        "PATCH", f"/projects/{project}/library/globals/{symbols[symbol]['id']}", json={"formula": "999"}
    )
    assert patched.status_code == 200, patched.text
    code, report, _ = run_cli(world, tmp_path / "reports")
    assert code == 1
    assert report is not None
    differences = _mismatches_on(report, legacy_line=_legacy_id(world, "line", line["id"]))
    assert (line["accountId"], phases[phase_id]["name"]) in _places(differences)
    assert [(d.name, d.field, d.v1) for p in report.projects for d in p.library] == [(symbol, "formula", "999")]


def test_a_changed_exchange_rate_is_named_with_its_phase(world: World, tmp_path: Path) -> None:
    """A phase's currency rate changed on v1: exit 1, that phase's totals mismatch and the rate is named."""
    project = _v1_project(world)
    _, phases = _budget(world)
    currencies = {c["id"]: c for c in world.list_all(f"/projects/{project}/library/currencies")}
    converted = [p for p in phases.values() if p.get("baseCurrencyId") in currencies and p["type"] == "estimate"]
    assert converted, "no visible estimate phase of the seeded project is in another currency"
    phase = converted[0]
    copy = currencies[phase["baseCurrencyId"]]
    patched = world.call("PATCH", f"/projects/{project}/library/currencies/{copy['id']}", json={"rateToUSD": 0.5})
    assert patched.status_code == 200, patched.text
    code, report, _ = run_cli(world, tmp_path / "reports")
    assert code == 1
    assert report is not None
    totals = {p.name: p.total.verdict for r in report.projects for p in r.phases}
    assert totals[phase["name"]] is Verdict.MISMATCH
    assert ("phase", phase["name"], "currency.exchangeRate", "0.5") in {
        (d.kind, d.name, d.field, d.v1) for p in report.projects for d in p.library
    }
    assert any(d.location.phase_name == phase["name"] and d.location.line_id for d in _mismatches_on(report))


def test_a_revoked_token_stops_verification_naming_the_variable(world: World, tmp_path: Path) -> None:
    """With the v1 token revoked, verify cannot finish: exit 5 (refused credentials), a message saying so, and
    no report."""
    assert world.call("DELETE", f"/_emulator/tokens/{TOKEN}").status_code == 204
    code, report, output = run_cli(world, tmp_path / "reports")
    assert code == 5
    assert report is None
    assert "could not finish" in output
    assert TOKEN not in output


def test_a_reconciled_project_costs_a_few_reads_no_drill_down_and_no_write(world: World) -> None:
    """Verifying a reconciled project writes nothing, reads no branch document, and counts requests right."""
    before = world.call("GET", "/_emulator/stats").json()
    report = asyncio.run(verify(world.settings(), VerifyOptions(projects=(world.project_id,)), world.transports()))
    after = world.call("GET", "/_emulator/stats").json()
    assert report.reconciled
    assert after["writes"] == before["writes"]
    assert after["requests"]["byRoute"].get("GET /v1/projects/{project_id}/budget", 0) == 0
    for surface in ("legacy", "v1"):
        sent = after["requests"]["bySurface"].get(surface, 0) - before["requests"]["bySurface"].get(surface, 0)
        assert report.requests[surface] == sent
    # The actuals are read in date windows of about a thousand, with the days before and after in two open-ended
    # reads: memory holds one window, at two more reads for a small project.
    windows = after["requests"]["byRoute"]["GET /api/v1/projects/{project_id}/actuals"] - before["requests"][
        "byRoute"
    ].get("GET /api/v1/projects/{project_id}/actuals", 0)
    assert windows <= 3
    # One of them recognises the legacy workspace (A62); one lists the project's tags, from which the ledger
    # counts the workspace's tags as a run plans them; one reads its purchase orders' attachments for the
    # documents' ledger, two count its comments and its budget note; one reads its purchase orders with their
    # items, contact and actuals, to compare them; one reads the bank feed for the files of the bank
    # transactions its actuals came from.
    assert report.requests["legacy"] - windows <= 12


def test_fail_on_rounding_fails_exactly_when_some_total_is_not_exact(world: World, tmp_path: Path) -> None:
    """With --fail-on rounding a rounding-explained total fails too; an all-exact migration still passes."""
    code, report, _ = run_cli(world, tmp_path / "reports", "--fail-on", "rounding")
    assert report is not None
    assert report.fail_on is FailOn.ROUNDING
    not_exact = report.verdicts.rounding + report.verdicts.quarantine + report.verdicts.mismatch
    assert (code, report.reconciled) == ((1, False) if not_exact else (0, True))


def test_usage_errors_exit_2_without_reading_anything(tmp_path: Path) -> None:
    """A bad option or a state file that does not exist is a usage error (exit 2) naming what to fix."""
    bad_option = CliRunner().invoke(cli, ["verify", "--fail-on", "sometimes"])
    assert bad_option.exit_code == 2
    env = {
        "BRIDGE_LEGACY_URL": "http://127.0.0.1:9/api/v1",
        "BRIDGE_V1_URL": "http://127.0.0.1:9/v1",
        "BRIDGE_LEGACY_KEY": LEGACY_KEY,
        "BRIDGE_V1_TOKEN": TOKEN,
        "BRIDGE_STATE": str(tmp_path / "absent.db"),
    }
    no_state = CliRunner().invoke(cli, ["verify", "--report-dir", str(tmp_path / "r")], env=env)
    assert no_state.exit_code == 2
    assert "no state file" in no_state.output
    assert not (tmp_path / "absent.db").exists()


def test_phase_option_narrows_the_comparison_to_the_named_phases(world: World) -> None:
    """--phase Working compares that phase only, at every level, and says so for no other."""
    _, phases = _budget(world)
    wanted = next(p["name"] for p in phases.values() if p["type"] == "estimate")
    options = VerifyOptions(projects=(world.project_id,), phases=(wanted,))
    report = asyncio.run(verify(world.settings(), options, world.transports()))
    compared = {p.name for r in report.projects for p in r.phases}
    assert compared == {wanted}
    per_account = {phase for r in report.projects for a in r.accounts for phase in a.totals}
    assert per_account == {p["id"] for p in phases.values() if p["name"] == wanted}


def test_a_rate_limit_that_does_not_lift_stops_verification_resumably(world: World) -> None:
    """Every totals read answered 429: once its retries are spent verify stops with a resumable error (exit 3)."""
    plan = {"rules": [{"kind": "rate_limit", "rate": 1.0, "route": "*/budget/totals", "retryAfterS": 0}]}
    assert world.call("POST", "/_emulator/faults", json=plan).status_code in (200, 204)

    async def no_wait(_seconds: float) -> None:
        return None

    controls = RunControls(timing=Timing(sleep=no_wait))
    with pytest.raises(BridgeError) as stopped:
        asyncio.run(verify(world.settings(), VerifyOptions(projects=(world.project_id,)), world.transports(), controls))
    assert exit_code(stopped.value) == 3
    assert "429" in str(stopped.value) or "rate" in str(stopped.value).lower()


def test_a_v1_project_that_cannot_be_read_is_a_mismatch_not_a_crash(world: World) -> None:
    """A crosswalk naming a v1 project the target does not hold: that project fails, verification completes."""
    with sqlite3.connect(world.state) as db:
        db.execute("UPDATE crosswalk SET v1_id = 'prj_gone00000000' WHERE kind = 'project'")
    report = asyncio.run(verify(world.settings(), VerifyOptions(projects=(world.project_id,)), world.transports()))
    assert not report.reconciled
    [project] = report.projects
    assert project.verdict is Verdict.MISMATCH
    assert "prj_gone00000000" in project.notes[0] or "could not be read" in project.notes[0]
    assert next(e for e in report.ledger if e.kind == "project").missing == [world.project_id]


def test_a_second_top_level_account_with_the_same_code_is_caught_despite_the_ambiguous_path(
    world: World, tmp_path: Path
) -> None:
    """Two top-level accounts share a code (the totals path turns ambiguous): verify falls back to the whole
    document, still compares every account, and the ledger names the stray as a duplicate."""
    lines, _ = _budget(world)
    top = next(line for line in lines if line["type"] == "account" and line["parentId"] is None)
    body = {"description": top["description"], "type": "account", "accountId": top["accountId"]}
    key = {"Idempotency-Key": "verify-tests-duplicate-account-01"}
    created = world.call("POST", f"/projects/{_v1_project(world)}/budget/lines", json=body, headers=key)
    assert created.status_code == 201, created.text
    code, report, _ = run_cli(world, tmp_path / "reports")
    assert code == 1
    assert report is not None
    [project] = report.projects
    topsheet = {a.line_id: a for a in project.accounts}
    legacy_top = _legacy_id(world, "line", top["id"])
    assert all(f.verdict is Verdict.EXACT for f in topsheet[legacy_top].totals.values())
    duplicated = next(e for e in report.ledger if e.kind == "line").duplicated
    assert [(d.legacy_id, d.v1_ids) for d in duplicated] == [(legacy_top, [top["id"], created.json()["id"]])]
    routes = world.call("GET", "/_emulator/stats").json()["requests"]["byRoute"]
    assert routes.get("GET /v1/projects/{project_id}/budget") == 1, "one whole-document read after the 409"


def test_a_split_item_added_twice_on_v1_is_a_duplicate_in_the_split_ledger(world: World, tmp_path: Path) -> None:
    """A second copy of a migrated split item: exit 1, the split ledger names both v1 items for one legacy part."""
    transactions = world.list_all("/transactions", {"projectId": _v1_project(world)})
    split = next(t for t in transactions if t["items"])
    first: Row = split["items"][0]
    body = {k: first[k] for k in ("amount", "budgetLineId", "description") if first.get(k) is not None}
    key = {"Idempotency-Key": "verify-tests-duplicate-item-0001"}
    created = world.call("POST", f"/transactions/{split['id']}/items", json=body, headers=key)
    assert created.status_code == 201, created.text
    code, report, _ = run_cli(world, tmp_path / "reports")
    assert code == 1
    assert report is not None
    ledger = next(e for e in report.ledger if e.kind == "split")
    assert ledger.source > 0
    assert [(d.legacy_id, d.v1_ids) for d in ledger.duplicated] == [
        (_legacy_id(world, "split", first["id"]), [first["id"], created.json()["id"]])
    ]


def test_line_tags_are_reported_as_not_carried_with_their_money(world: World, tmp_path: Path) -> None:
    """v1 publishes no write for a line's tags: each tag total is the legacy money not carried (no v1 figure),
    counted and noted, and neither a mismatch nor an exact match."""
    code, report, output = run_cli(world, tmp_path / "reports")
    assert report is not None, output
    assert code == 0
    figures = [f for p in report.projects for t in p.tags for f in (*t.totals.values(), *t.fringes.values())]
    not_carried = [f for f in figures if f.verdict is Verdict.NOT_CARRIED]
    assert not_carried
    assert all(f.v1_minor is None and f.legacy_minor for f in not_carried)
    assert all(f.verdict is Verdict.EXACT and f.legacy_minor == 0 for f in figures if f not in not_carried)
    assert report.verdicts.not_carried == len(not_carried)
    assert any("line tags not carried" in note for note in report.notes)


def test_a_line_note_changed_on_v1_is_a_mismatch_naming_the_line(world: World, tmp_path: Path) -> None:
    """The migrated notes reconcile; one edited on v1 afterwards: exit 1, that line named with both texts."""
    lines, _ = _budget(world)
    noted = [line for line in lines if line.get("notes")]
    assert noted, "the seeded project has no line note to carry"
    line = noted[0]
    patched = world.call(
        "PATCH", f"/projects/{_v1_project(world)}/budget/lines/{line['id']}", json={"notes": "Edited on v1"}
    )
    assert patched.status_code == 200, patched.text
    code, report, _ = run_cli(world, tmp_path / "reports")
    assert code == 1
    assert report is not None
    found = [(d.legacy_id, d.field, d.legacy, d.v1) for p in report.projects for d in p.library]
    assert found == [(_legacy_id(world, "line", line["id"]), "notes", line["notes"], "Edited on v1")]
    assert report.verdicts.mismatch == 1


def test_a_transaction_whose_actual_was_deleted_at_source_is_named_removed_not_unknown(
    world: World, tmp_path: Path
) -> None:
    """The bridge never deletes v1 data: the transaction of an actual deleted on legacy after the migration
    stays on v1, and verify names the actual it was written for instead of calling it unknown."""
    headers = {"X-API-Key": world.legacy_key}
    path = f"/api/v1/projects/{world.project_id}/actuals"

    async def delete_one() -> str:
        async with world.client("") as legacy:
            actuals = (await legacy.get(path, params={"idMode": "system"}, headers=headers)).json()["actuals"]
            with open_state(str(world.state), read_only=True) as store:
                gone = next(a["id"] for a in actuals if store.crosswalk.lookup("actual", a["id"], world.project_id))
            assert (await legacy.delete(f"{path}/{gone}", headers=headers)).status_code == 204
            return str(gone)

    gone = asyncio.run(delete_one())
    code, report, _ = run_cli(world, tmp_path / "reports")
    assert report is not None
    found = [t for p in report.projects for t in p.transactions if t.legacy_id == gone]
    assert [t.presence for t in found] == [Presence.REMOVED]
    assert found[0].said().startswith(f"v1 transaction {found[0].v1_id}: its actual {gone} was removed at source")
    assert code == 1  # the actual phase on v1 still holds its amount: a difference, named


def test_verifying_one_project_of_a_whole_migration_counts_only_that_project(tmp_path: Path) -> None:
    """Every project migrated, one verified: the projects' ledger holds that one (the others' crosswalk entries
    are not "unchanged" records of a source that was not read), and it reconciles."""
    world = fresh_world(tmp_path / "state.sqlite", projects=())
    assert not asyncio.run(world.run()).ledger.quarantine
    options = VerifyOptions(projects=(SMALL_PROJECT,))
    report = asyncio.run(verify(world.settings(), options, world.transports()))
    (projects,) = [row for row in report.ledger if row.kind == "project"]
    assert (projects.source, projects.migrated + projects.unchanged, projects.closed) == (1, 1, True)
    assert report.reconciled
