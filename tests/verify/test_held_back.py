"""A refused project, space, phase or account: the ledger still counts the whole source, and what the refused
record keeps off v1 (records and money) is shown in every report and the terminal, adding up to the source."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from html import escape
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner
from fastapi import FastAPI

from bridge.cli import cli
from bridge.emulator.app import create_app
from bridge.emulator.core.seed import seeded_service
from bridge.emulator.core.store import Service
from bridge.engine.progress import Progress
from bridge.engine.run import Transports, migrate
from bridge.verify.compare import Verdict
from bridge.verify.convert import format_minor
from bridge.verify.report import HTML_NAME, JSON_NAME, MD_NAME
from bridge.verify.schema import Reconciliation
from tests.support.inventory import bank_files, inventory_counts, remark_counts
from tests.support.migrated import LEGACY_KEY, TOKEN, settings_for
from tests.support.serving import serving as served

# Not in Unicode NFC: the legacy surface stores it as sent, the bridge's text rule refuses it (text.not_nfc).
NOT_NFC = "Cafe\u0301 budget"
CODE = "text.not_nfc"


@dataclass(frozen=True, slots=True)
class Outcome:
    service: Service
    project_id: str
    refused: tuple[str, str]
    """(kind, legacy id) of the record made bad."""
    code: int
    report: Reconciliation
    markdown: str
    html: str
    terminal: str


def legacy(app: FastAPI, method: str, path: str, body: Mapping[str, str] | None = None) -> httpx.Response:
    """One call to the documented legacy surface, as a workspace user would make it."""

    async def send() -> httpx.Response:
        transport = httpx.ASGITransport(app=app)
        headers = {"X-API-Key": LEGACY_KEY}
        async with httpx.AsyncClient(transport=transport, base_url="http://e/api/v1", headers=headers) as client:
            return await client.request(method, path, params={"idMode": "system"}, json=body)

    return asyncio.run(send())


def refuse(kind: str, app: FastAPI, service: Service, project_id: str) -> tuple[str, str]:
    """Make one record of ``kind`` bad through the legacy routes; its (kind, legacy id)."""
    base = f"/projects/{project_id}"
    if kind == "project":
        path, body = base, {"name": NOT_NFC}
    elif kind == "space":
        path, body = f"/spaces/{service.workspace('source').projects[project_id].space_id}", {"name": NOT_NFC}
    elif kind == "phase":
        phases = legacy(app, "GET", f"{base}/budget/phases").json()["phases"]
        estimate = next(p["id"] for p in phases if p["type"] == "estimate")
        path, body = f"{base}/budget/phases/{estimate}", {"name": NOT_NFC}
    else:
        accounts = legacy(app, "GET", f"{base}/budget/accounts").json()["accounts"]
        top = next(a["id"] for a in accounts if a["parentId"] is None)
        path, body = f"{base}/budget/line/{top}", {"description": NOT_NFC}
    answer = legacy(app, "PUT", path, body)
    assert answer.status_code == 200, answer.text
    return ("line" if kind == "account" else kind), str(answer.json()["id"])


def run_and_verify(kind: str, tmp: Path) -> Outcome:
    """Seed, make the record bad, migrate the whole workspace, then `bridge verify` over HTTP."""
    service = seeded_service(42, "small")
    app = create_app(service, legacy_key=LEGACY_KEY, token=TOKEN)
    project_id = sorted(p.id for p in service.workspace("source").projects.values() if not p.deleted)[0]
    refused = refuse(kind, app, service, project_id)
    state = tmp / "state.db"
    wires = Transports(httpx.ASGITransport(app=app), httpx.ASGITransport(app=app))
    settings = settings_for("http://emulator", state, ())
    asyncio.run(migrate(settings, dry_run=False, progress=Progress(), transports=wires))
    reports = tmp / "reports"
    with served(app) as base:
        env = {
            "BRIDGE_LEGACY_URL": f"{base}/api/v1",
            "BRIDGE_V1_URL": f"{base}/v1",
            "BRIDGE_LEGACY_KEY": LEGACY_KEY,
            "BRIDGE_V1_TOKEN": TOKEN,
            "BRIDGE_STATE": str(state),
        }
        result = CliRunner().invoke(cli, ["verify", "--report-dir", str(reports)], env=env, catch_exceptions=False)
    report = Reconciliation.model_validate_json((reports / JSON_NAME).read_text())
    return Outcome(
        service,
        project_id,
        refused,
        result.exit_code,
        report,
        (reports / MD_NAME).read_text(),
        (reports / HTML_NAME).read_text(),
        result.output,
    )


def source_counts(service: Service) -> dict[str, int]:
    """Every kind the ledger counts, counted in the emulator's own store (the oracle): the workspace library
    items are the projects' records of one name taken once (A18), each project's copies its own records."""
    workspace = service.workspace("source")
    projects = [p for p in workspace.projects.values() if not p.deleted]  # a deleted record leaves its dict
    actuals = [a for p in projects for a in p.actuals.values()]
    codes = [
        {p.currencies[phase.currency_id].code for phase in p.phases.values() if phase.currency_id is not None}
        for p in projects
    ]
    tags = {t.name.casefold() for p in projects for t in p.tags.values()} | {
        label.casefold() for p in projects for label in p.labels
    }
    return {
        "space": sum(1 for s in workspace.spaces.values() if not s.deleted),
        "contact": len(workspace.contacts),
        "currency": len(set().union(*codes)),
        "fringe": len({f.code for p in projects for f in p.fringes.values()}),
        "global": len({g.symbol for p in projects for g in p.globals.values()}),
        "tag": len(tags),
        "project": len(projects),
        "project_currency": sum(len(found) for found in codes),
        "project_fringe": sum(len(p.fringes) for p in projects),
        "project_global": sum(len(p.globals) for p in projects),
        "phase": sum(len(p.phases) for p in projects),
        "line": sum(len(p.nodes) for p in projects),
        "actual": len(actuals),
        "split": sum(len(a.subactuals) for a in actuals),
        "purchase_order": sum(len(p.purchase_orders) for p in projects),
        "purchase_order_link": sum(1 for a in actuals if a.purchase_order_id is not None),
        "receipt": sum(len(workspace.files.files_of("actual", a.id)) for a in actuals),
        "contact_file": sum(len(workspace.files.files_of("contact.attachment", c)) for c in workspace.contacts),
        "bank_file": len(bank_files(workspace, projects)),
        "purchase_order_file": sum(
            len(workspace.files.files_of("purchaseOrder", o)) for p in projects for o in p.purchase_orders
        ),
        **inventory_counts(workspace, projects),
        **remark_counts(workspace, projects),
    }


def words(text: str) -> str:
    """Text with every run of whitespace (a terminal's wrapping) made one space."""
    return " ".join(text.split())


@pytest.fixture(scope="module", params=["project", "space", "phase", "account"])
def outcome(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Outcome:
    return run_and_verify(str(request.param), tmp_path_factory.mktemp(str(request.param)))


def test_the_ledger_counts_the_whole_source_and_every_record_is_in_one_bucket(outcome: Outcome) -> None:
    """Per kind the ledger's source is the store's count, and migrated + quarantined + held back = source."""
    ledger = {entry.kind: entry for entry in outcome.report.ledger}
    assert {kind: entry.source for kind, entry in ledger.items()} == source_counts(outcome.service)
    for entry in ledger.values():
        buckets = entry.migrated + entry.unchanged + sum(entry.quarantined.values()) + sum(entry.held_back.values())
        buckets += sum(entry.not_carried.values())
        assert (buckets, entry.pending, entry.closed) == (entry.source, 0, True), entry
    kind, legacy_id = outcome.refused
    assert ledger[kind].quarantined == {CODE: 1}
    holder = f"{kind} {legacy_id} ({CODE})"
    held = {k: e.held_back[holder] for k, e in ledger.items() if holder in e.held_back}
    group = next(g for g in outcome.report.held_back.groups if g.label == holder)
    assert group.records == {**held, kind: held.get(kind, 0) + 1}  # the refused record and what it holds
    assert outcome.report.held_back.records == group.records
    if kind == "project":  # everything the project holds is held back with it
        project = outcome.service.workspace("source").projects[legacy_id]
        assert held["phase"] == len(project.phases)
        assert held["line"] == len(project.nodes)
        assert held["actual"] == len(project.actuals)
    if kind == "line":  # the account's whole subtree
        assert held["line"] > 0


def test_verify_passes_only_because_the_money_held_back_is_shown_and_adds_up_to_the_source(outcome: Outcome) -> None:
    """Exit 0, every phase total of every source project is v1's plus what quarantine holds back, and the
    held-back money rows are exactly those amounts."""
    report = outcome.report
    assert (outcome.code, report.reconciled, report.verdicts.mismatch) == (0, True, 0), outcome.terminal
    workspace = outcome.service.workspace("source")
    live = {p.id for p in workspace.projects.values() if not p.deleted}
    assert {p.project_id for p in report.projects} == live, "no source project is silently absent"
    shown = 0
    for project in report.projects:
        source = outcome.service.totals(workspace, workspace.projects[project.project_id])
        for phase in project.phases:
            f = phase.total
            assert f.legacy_minor is not None
            assert abs(f.legacy_minor - (f.v1_minor or 0) - f.quarantined_minor) <= Decimal(f.rounding_bound_minor)
            if f.v1_minor is None:  # never reached v1: all of it held back, by the refused record
                assert (f.verdict, f.quarantined_minor, f.held_back_by) == (
                    Verdict.QUARANTINE,
                    f.legacy_minor,
                    f"{outcome.refused[0]} {outcome.refused[1]} ({CODE})",
                )
                assert Decimal(f.legacy_amount or "") == source.phases[phase.legacy_phase_id].amount
            shown += f.quarantined_minor
    money = report.held_back.money
    assert sum(m.minor for m in money if m.phase_name != "actuals") == shown
    if outcome.refused[0] in ("project", "phase", "line"):
        assert shown > 0, "the refused record holds money back"


def test_every_report_and_the_terminal_state_what_is_held_back(outcome: Outcome) -> None:
    """The one held-back summary, naming the refused record and the money, heads JSON, Markdown, HTML and the
    terminal; the Markdown lists each held-back amount with its phase."""
    held = outcome.report.held_back
    holder = f"{outcome.refused[0]} {outcome.refused[1]} ({CODE})"
    assert holder in held.summary
    assert held.summary.startswith("held back by quarantine: ")
    assert list(outcome.report.model_dump())[:3] == ["schema_version", "reconciled", "held_back"]
    assert held.summary in outcome.markdown.split("\n## ")[0]
    assert escape(held.summary) in outcome.html.split("<h2>")[0]
    assert words(held.summary) in words(outcome.terminal)
    for row in held.money:
        amount = f"{format_minor(row.minor, row.currency)} {row.currency}"
        assert re.search(rf"\| {re.escape(row.phase_name)} \|.*\| {re.escape(amount)} \|", outcome.markdown), row
        assert format_minor(row.minor, row.currency) in outcome.html
