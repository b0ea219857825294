"""A report an accountant trusts: one amount format in the terminal, the Markdown and the HTML; the answer
first and last; a project's verdict about its money; the ledger over every run; held-back money in the JSON
per currency and reason, exact as strings."""

from __future__ import annotations

import asyncio
import html
import io
import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from rich.console import Console

from bridge.cli import cli
from bridge.commands.verify import screen
from bridge.engine.progress import Progress
from bridge.engine.run import migrate
from bridge.verify.amounts import amount, as_computed, signed
from bridge.verify.closing import closing, totals_compared
from bridge.verify.compare import Verdict
from bridge.verify.headline import differences, money_rows
from bridge.verify.html import render_html
from bridge.verify.report import HTML_NAME, MD_NAME, render_markdown
from bridge.verify.schema import ActualsSum, Reconciliation
from bridge.verify.summary import summary
from tests.support.migrated import Migrated, copy_world, migrate_one, run_cli
from tests.support.world import World
from tests.verify.test_report_lead import _workspace

# Anything that reads as a figure with a currency code after it, however it is written.
FIGURE = re.compile(r"[-+]?\d[\d,.]*(?: ?(?:USD|JPY))\b")
# The one way: separated thousands, the currency's decimals (USD two, JPY none), a space, the code.
ONE_WAY = re.compile(r"[-+]?\d{1,3}(?:,\d{3})*(?:\.\d{2} USD| JPY)")


def _terminal(report: Reconciliation) -> str:
    """What `bridge verify` prints about ``report`` before and as its closing line, as plain text."""
    console = Console(record=True, width=400, file=io.StringIO())
    for part in screen(report):
        console.print(part)
    console.print(closing(report).answer)
    return console.export_text()


def _figures(text: str) -> list[str]:
    return FIGURE.findall(text)


@pytest.fixture
def three_ways(report: Reconciliation) -> tuple[Reconciliation, dict[str, str]]:
    """The lead tests' workspace, with a second actuals currency (JPY: no decimals), rendered three ways."""
    workspace = _workspace(report)
    jpy = ActualsSum(
        currency="JPY",
        legacy_count=2,
        v1_count=2,
        legacy_amount="1234567",
        legacy_minor=1234567,
        v1_minor=1234500,
        verdict=Verdict.MISMATCH,
    )
    harbour = workspace.projects[-1]
    workspace = workspace.model_copy(
        update={"projects": [*workspace.projects[:-1], harbour.model_copy(update={"actuals": [*harbour.actuals, jpy]})]}
    )
    page = html.unescape(re.sub(r"<[^>]+>", " ", render_html(workspace)))
    return workspace, {"terminal": _terminal(workspace), "markdown": render_markdown(workspace), "html": page}


def test_one_report_rendered_three_ways_writes_every_amount_alike(
    three_ways: tuple[Reconciliation, dict[str, str]],
) -> None:
    """Every figure in every rendering is written one way (separators, the currency's decimals, its code), and
    each money row and each difference shows the same strings in the terminal, the Markdown and the HTML."""
    workspace, rendered = three_ways
    for name, text in rendered.items():
        odd = [f for f in _figures(text) if not ONE_WAY.fullmatch(f)]
        assert not odd, f"{name} writes amounts another way: {odd[:5]}"
    expected = [
        said
        for row in money_rows(workspace)
        for said in (
            amount(row.legacy_minor, row.currency),
            amount(row.v1_minor, row.currency),
            signed(row.difference_minor, row.currency),
            amount(row.held_back_minor, row.currency),
        )
    ]
    expected += [signed(e.difference_minor, e.currency) for e in differences(workspace)]
    assert "1,234,567 JPY" in expected
    assert "-67 JPY" in expected
    for name, text in rendered.items():
        assert [said for said in expected if said not in text] == [], name
    shown = {name: set(_figures(text)) for name, text in rendered.items()}
    assert shown["terminal"] <= shown["markdown"]
    assert shown["terminal"] <= shown["html"]


def test_a_legacy_figure_as_computed_keeps_every_digit_it_has() -> None:
    """The legacy surface's own sum is shown separated, never rounded: its float error is the evidence."""
    assert as_computed("879010.5", "USD") == "879,010.50 USD"
    assert as_computed("0.30000000000000004", "USD") == "0.30000000000000004 USD"
    assert as_computed("12.5", "JPY") == "12.5 JPY"
    assert as_computed("9007199254740993", "USD") == "9,007,199,254,740,993.00 USD"
    assert as_computed(None, "USD") == "—"


def test_the_answer_names_its_units_so_the_counts_reconcile(
    three_ways: tuple[Reconciliation, dict[str, str]],
) -> None:
    """The closing line counts totals compared (their verdicts add up to it), then the differences listed and
    what explains them; the next step points at the report; the Markdown and the HTML lead with it."""
    workspace, rendered = three_ways
    said = closing(workspace)
    v = workspace.verdicts
    compared = totals_compared(workspace)
    assert compared == v.exact + v.rounding + v.quarantine + v.mismatch
    assert said.answer.startswith(f"NOT RECONCILED: {compared} totals compared (")
    listed = len(differences(workspace))
    assert f"; {listed} differences listed largest first, explained below them by " in said.answer
    assert said.next_step.startswith("next: open reconciliation.html (the largest difference, ")
    assert rendered["terminal"].rstrip().endswith(said.answer)
    assert rendered["markdown"].split("\n")[2] == f"**{said.answer}**"
    assert f"Differences, largest first ({listed})" in rendered["markdown"]
    assert f"Differences, largest first ({listed})" in rendered["html"]


def test_an_exact_project_is_never_headed_not_carried(world: World, tmp_path: Path) -> None:
    """The small seed's line tags have no v1 write: they are counted and listed in a section of their own,
    while the project, whose every total is exact, is headed exact in the HTML, the Markdown and the JSON."""
    code, report, output = run_cli(world, tmp_path / "reports")
    assert report is not None, output
    assert code == 0
    assert report.verdicts.not_carried > 0
    assert [p.verdict for p in report.projects] == [Verdict.EXACT]
    printed = json.loads(json.dumps(summary(report, [])))  # as `verify --json` prints it
    assert [p["verdict"] for p in printed["projects"]] == ["exact"]
    markdown = (tmp_path / "reports" / MD_NAME).read_text()
    page = (tmp_path / "reports" / HTML_NAME).read_text()
    assert re.search(r"^## .*: exact$", markdown, re.M)
    assert not re.search(r"^## .*not_carried", markdown, re.M)
    assert "### Not carried: tag totals" in markdown
    assert not re.search(r'<section class="project"[^>]*>\s*<h2>[^\n]*not_carried', page)
    assert "<h3>Not carried: tag totals" in page
    # Nothing differs: the list says none, and no money line follows before the next section.
    said = markdown.split("## Differences, largest first (0)\n\n")[1]
    assert said.startswith("None: every total compared is exact.\n\n## ")


def test_the_ledger_counts_what_every_run_migrated(world: World, tmp_path: Path) -> None:
    """A second run has nothing to write: the ledger still says every record migrated (all runs, from the
    crosswalk), none of them by the last run."""
    again = asyncio.run(migrate(world.settings(), dry_run=False, progress=Progress(), transports=world.transports()))
    assert again.run_id == 2
    code, report, output = run_cli(world, tmp_path / "reports")
    assert (code, report is not None) == (0, True), output
    assert report is not None
    line = next(e for e in report.ledger if e.kind == "line")
    assert (line.migrated, line.unchanged) == (0, line.source)
    markdown = (tmp_path / "reports" / MD_NAME).read_text()
    assert f"| line | {line.source:,} | {line.source:,} | 0 |" in markdown
    assert re.search(r"\d[\d,]* migrated \(all runs\)", markdown)


@pytest.fixture(scope="module")
def dirty(tmp_path_factory: pytest.TempPathFactory) -> Migrated:
    return migrate_one(tmp_path_factory.mktemp("dirty"), dirty=True)


@pytest.fixture
def served_dirty(dirty: Migrated, tmp_path: Path) -> Iterator[World]:
    with copy_world(dirty, tmp_path).served() as live:
        yield live


def test_verify_ends_with_its_answer_and_the_json_holds_back_per_currency_and_reason(
    served_dirty: World, tmp_path: Path
) -> None:
    """The terminal's last two lines are the closing line and the next step; `verify --json` gives the money
    held back per currency and reason as strings of minor units that add up to the report's rows, and the
    refused records per code."""
    world = served_dirty
    args = ["verify", "--project", world.project_id, "--report-dir", str(tmp_path / "reports")]
    shown = CliRunner().invoke(cli, args, env=world.env(), catch_exceptions=False)
    assert shown.exit_code == 0, shown.output
    report = Reconciliation.model_validate_json((tmp_path / "reports" / "reconciliation.json").read_text())
    said = closing(report)
    *_, answer, next_step = [line for line in shown.stdout.splitlines() if line.strip()]
    assert (answer, next_step) == (said.answer, said.next_step)
    assert said.answer.startswith("RECONCILED: ")
    assert "0 mismatch" in answer
    assert "ledger closed" in answer
    assert next_step.startswith("next: fix the ")

    printed = CliRunner().invoke(cli, [*args, "--json"], env=world.env(), catch_exceptions=False)
    held = json.loads(printed.stdout)["held_back"]
    assert held["summary"] == report.held_back.summary
    assert held["records"] == report.held_back.records
    actuals = sum(m.minor for m in report.held_back.money if m.phase_id is None)
    assert actuals > 2**53, "the dirty seed holds back an actual beyond a double's exact range"
    assert sum(int(t["actuals_minor"]) for t in held["by_currency"]) == actuals
    assert {t["currency"] for t in held["by_currency"]} == {m.currency for m in report.held_back.money}
    phases = sum(m.minor for m in report.held_back.money if m.phase_id is not None)
    assert sum(int(v) for t in held["by_currency"] for v in t["phase_totals_minor"].values()) == phases
    assert sum(r["refused"] for r in held["by_reason"]) == len(report.held_back.groups)
    assert {r["reason"] for r in held["by_reason"]} == {g.code for g in report.held_back.groups}
    assert json.loads(printed.stdout)["closing"] == said.answer
