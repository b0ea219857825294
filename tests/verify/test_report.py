"""The report writers: versioned JSON that round-trips, Markdown a person can read, self-contained HTML."""

from __future__ import annotations

import json
import re
from pathlib import Path

from bridge.verify.html import render_html
from bridge.verify.report import HTML_NAME, JSON_NAME, MD_NAME, render_markdown, write_reports
from bridge.verify.schema import SCHEMA_VERSION, Reconciliation, json_schema


def test_the_json_report_round_trips_through_its_schema(report: Reconciliation, tmp_path: Path) -> None:
    """reconciliation.json carries its schema version and reads back into the same model."""
    write_reports(report, tmp_path)
    raw = (tmp_path / JSON_NAME).read_text()
    assert json.loads(raw)["schema_version"] == SCHEMA_VERSION
    assert Reconciliation.model_validate_json(raw) == report


def test_the_json_schema_documents_units_and_the_version() -> None:
    """The published JSON Schema names its version and says which unit each amount is in."""
    schema = json.loads(json_schema())
    assert schema["$id"].endswith(SCHEMA_VERSION)
    figure = schema["$defs"]["Figure"]["properties"]
    assert "minor units" in figure["legacy_minor"]["description"]
    assert "A09" in figure["rate"]["description"]


def test_markdown_names_the_answer_the_rate_and_the_exact_place(report: Reconciliation) -> None:
    """The Markdown says NOT RECONCILED first, shows the rate beside the figures, and locates the line."""
    text = render_markdown(report)
    assert text.startswith("# Reconciliation: NOT RECONCILED")
    assert "| Working | estimate | 1,700.00 USD | 1 | 1,700.00 USD | 1,730.00 USD | +30.00 USD | mismatch |" in text
    assert "| Working | 1110 | /1000/1100/1110 | l1 |" in text
    assert "| global | SHOOT_WEEKS | formula | 7.8 | 4.6 |" in text
    assert "| Night | total | Working | 0.0067 | 40.00 USD | 40.01 USD | 0 | rounding |" in text


def test_html_is_self_contained_and_escapes_workspace_text(report: Reconciliation, tmp_path: Path) -> None:
    """The page loads nothing from the network and renders a hostile project name as text."""
    write_reports(report, tmp_path)
    page = (tmp_path / HTML_NAME).read_text()
    assert not re.search(r"""(src|href)\s*=\s*["']?https?:""", page)
    assert "<script>" not in page
    assert "&lt;script&gt;" in page
    assert (tmp_path / MD_NAME).exists()


def test_the_published_schema_document_matches_the_models() -> None:
    """docs/reconciliation-schema.md embeds the schema the code writes: the two cannot drift apart."""
    document = (Path(__file__).resolve().parents[2] / "docs" / "reconciliation-schema.md").read_text()
    assert f"schema {SCHEMA_VERSION}" in document
    assert json_schema() in document


def test_bidi_and_control_characters_in_source_text_are_escaped_everywhere(report: Reconciliation) -> None:
    """A project name, a workspace and a migration holding a right-to-left override and an escape sequence:
    every heading and cell of both documents shows them escaped, none raw."""
    hostile = "Feature \u202egnp.exe\u202c \x1b[31m"
    project = report.projects[0].model_copy(update={"name": hostile})
    tampered = report.model_copy(
        update={"projects": [project], "source_workspace": hostile, "target_workspace": hostile, "migration": hostile}
    )
    for document in (render_markdown(tampered), render_html(tampered)):
        assert "\u202e" not in document
        assert "\x1b" not in document
        assert "\\u202e" in document
