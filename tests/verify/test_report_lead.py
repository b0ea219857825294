"""What the reports lead with: the money per currency, every difference largest first with where it sits,
projects by severity, the quarantine list with fixes, and source text that stays text in both formats."""

from __future__ import annotations

import re

import pytest
from markdown_it import MarkdownIt

from bridge.verify.compare import Verdict
from bridge.verify.html import render_html
from bridge.verify.report import render_markdown
from bridge.verify.schema import (
    ActualsSum,
    HeldBack,
    HeldBackGroup,
    PhaseSummary,
    ProjectReport,
    QuarantinedRecord,
    Reconciliation,
)
from bridge.verify.svg import Bar, difference_chart
from mappings.errors import CATALOGUE, ErrorCode
from tests.verify.conftest import figure

HOSTILE = "<img src=x onerror=alert(1)>"


def _quarantined_project() -> ProjectReport:
    """A project whose actual phase and actuals are short by exactly two quarantined transactions."""
    held = figure(900000, 400000, Verdict.QUARANTINE).model_copy(update={"quarantined_minor": 500000})
    return ProjectReport(
        project_id="p2",
        v1_project_id="prj_2",
        name="Harbour",
        verdict=Verdict.QUARANTINE,
        phases=[
            PhaseSummary(
                legacy_phase_id="act", v1_phase_id="phs_9", name="Actual", type="actual", total=held, fringe=None
            )
        ],
        accounts=[],
        tags=[],
        actuals=[
            ActualsSum(
                currency="USD",
                legacy_count=5,
                v1_count=3,
                legacy_amount="9000.00",
                legacy_minor=900000,
                v1_minor=400000,
                verdict=Verdict.QUARANTINE,
                held_back_minor=500000,
            )
        ],
        differences=[],
        library=[],
        tree=[],
        notes=["phase 'Committed' (ph_c) is hidden on v1 (v1 totals list visible phases only)"],
    )


def _calm_project() -> ProjectReport:
    exact = figure(1000, 1000, Verdict.EXACT)
    phase = PhaseSummary(
        legacy_phase_id="e", v1_phase_id="phs_e", name="Estimate", type="estimate", total=exact, fringe=None
    )
    return _quarantined_project().model_copy(
        update={
            "project_id": "p0",
            "name": "Calm",
            "verdict": Verdict.EXACT,
            "phases": [phase],
            "actuals": [],
            "notes": [],
        }
    )


def _workspace(report: Reconciliation) -> Reconciliation:
    """The fixture's mismatching project between an exact one and a quarantined one, in that source order."""
    records = [
        QuarantinedRecord(kind="actual", scope="p2", legacy_id=f"txn_{n}", code="number.nan", message=f"actual {n}")
        for n in (1, 2)
    ]
    group = HeldBackGroup(
        label="actual txn_1 (number.nan)",
        kind="actual",
        scope="p2",
        legacy_id="txn_1",
        code="number.nan",
        records={"actual": 1, "split": 2},
    )
    held = HeldBack(summary="held back by quarantine: 2 actuals", records={"actual": 2}, money=[], groups=[group])
    return report.model_copy(
        update={
            "projects": [_calm_project(), *report.projects, _quarantined_project()],
            "quarantine": records,
            "held_back": held,
        }
    )


def _rows(page: str, table: str) -> list[str]:
    """The body rows of one table of the page, as text without tags."""
    body = re.search(rf'<table class="{table}(?: [^"]*)?">.*?<tbody>(.*?)</tbody>', page, re.S)
    assert body, f"no {table} table"
    return [re.sub(r"<[^>]+>", "|", row) for row in re.findall(r"<tr.*?</tr>", body.group(1), re.S)]


def test_the_page_leads_with_money_per_currency_then_differences_largest_first(report: Reconciliation) -> None:
    """Before any project: both totals, the difference and what quarantine holds back; then the -5,000.00
    held back before the +30.00 mismatch, each with the account, line or transactions that explain it."""
    page = render_html(_workspace(report))
    assert page.index('id="money"') < page.index('id="differences"') < page.index('id="projects"')
    money = _rows(page, "money")
    assert any("|USD|" in r and "|Working|" in r and "1,700.00 USD" in r and "+30.00 USD" in r for r in money)
    assert any("|Actual|" in r and "-5,000.00 USD" in r and "|5,000.00 USD|" in r for r in money)
    lead = _rows(page, "lead")
    assert ["-5,000.00 USD" in r for r in lead] == [True, True, False, False]
    working = next(r for r in lead if "phase Working" in r)
    assert "+30.00 USD" in working
    assert "account 1110" in working
    assert "/1000/1100/1110" in working
    assert "legacy l1 &rarr; v1 lin_1" in working
    actual = next(r for r in lead if "phase Actual" in r)
    assert "transaction held back: actual txn_1" in actual
    assert "transaction held back: actual txn_2" in actual


def test_projects_come_most_severe_first(report: Reconciliation) -> None:
    """Mismatch, then quarantine, then exact, whatever the source order."""
    page = render_html(_workspace(report))
    headings = re.findall(r'<section class="project" id="project-\d+">\s*<h2>([^<]*)<', page)
    assert headings == ["Feature &lt;script&gt;alert(1)&lt;/script&gt; ", "Harbour ", "Calm "]


def test_the_quarantine_list_names_each_code_its_fix_and_what_it_holds_back(report: Reconciliation) -> None:
    """Every refused record with its code and the catalogue's fix, in the HTML and the Markdown alike."""
    workspace = _workspace(report)
    fix = CATALOGUE[ErrorCode.NUMBER_NAN][1]
    rows = _rows(render_html(workspace), "quarantine-list")
    assert len(rows) == 2
    assert all("|number.nan|" in r and fix in r for r in rows)
    assert "actual 1, split 2" in rows[0]
    assert "| actual | p2 | txn_1 | `number.nan` | " + fix + " | actual 1 |" in render_markdown(workspace)


def test_a_phase_not_compared_is_said_with_its_reason(report: Reconciliation) -> None:
    """The seed's committed phase is hidden on v1: the first screen says so instead of staying silent."""
    page = render_html(_workspace(report))
    said = re.search(r'<p id="not-compared">(.*?)</p>', page)
    assert said
    assert said.group(1) == (
        "No committed phase was compared. Not compared: phase Committed is hidden on v1 "
        "(v1 totals list visible phases only) (in 1 project)."
    )


def _bar_widths(svg: str) -> list[float]:
    return [float(w) for w in re.findall(r'<rect class="diff [^"]*" x="[^"]*" y="[^"]*" width="([^"]*)"', svg)]


def test_one_outlier_does_not_flatten_a_small_difference() -> None:
    """A 6.70 difference beside one of 2^53 still draws a visible bar, and both carry their exact amounts."""
    bars = [
        Bar("Tokyo unit", 113342859, 113343529, 0, "USD", Verdict.MISMATCH),
        Bar("Actual", 900719925728505600, 254295969, 900719925474209535, "USD", Verdict.QUARANTINE),
        Bar("Estimate", 100, 100, 0, "USD", Verdict.EXACT),
    ]
    svg = difference_chart(bars, "chart-0")
    small, large, exact = _bar_widths(svg)
    assert small >= 0.05 * large, "on a linear scale this bar would be 1e-15 of the other"
    assert exact < 2
    assert "+6.70 USD" in svg
    assert "-9,007,199,254,742,096.31 USD" in svg


def test_source_text_stays_text_in_both_reports(report: Reconciliation) -> None:
    """An image tag, a link and a code-span breakout in a line description render as the same text."""
    hostile = f"{HOSTILE} [click](https://evil.example) `x`<b>"
    project = report.projects[0]
    diff = project.differences[0]
    location = diff.location.model_copy(update={"description": hostile, "path": hostile})
    damaged = project.model_copy(
        update={
            "differences": [diff.model_copy(update={"location": location, "summary": hostile})],
            "notes": [hostile],
            "project_id": f"p`{HOSTILE}",
        }
    )
    quarantine = [QuarantinedRecord(kind="line", scope="p1", legacy_id=HOSTILE, code="text.empty", message=hostile)]
    workspace = report.model_copy(update={"projects": [damaged], "quarantine": quarantine, "notes": [hostile]})
    shown = MarkdownIt("commonmark", {"html": True}).enable("table").render(render_markdown(workspace))
    assert "<img" not in shown
    assert "<b>" not in shown
    assert "evil.example" not in re.findall(r'<a href="([^"]*)"', shown)
    assert shown.count("&lt;img src=x onerror=alert(1)&gt;") >= 5
    assert "[click](https://evil.example)" in shown
    page = render_html(workspace)
    assert "<img" not in page
    assert "<b>" not in page
    assert page.count("&lt;img src=x onerror=alert(1)&gt;") >= 5


def test_a_difference_beyond_any_float_still_draws_with_its_exact_amount() -> None:
    """A hostile source's 400-digit amount gets the longest bar and prints every digit, no overflow."""
    huge = 10**400
    svg = difference_chart([Bar("Actual", huge, 0, 0, "USD", Verdict.MISMATCH)], "chart-0")
    assert _bar_widths(svg) == [pytest.approx(164.0)]
    assert "-1" + "0" * 398 in svg.replace(",", "")
