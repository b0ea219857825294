"""Writing the reconciliation: ``reconciliation.json`` (the schema in ``schema.py``), ``.md`` and ``.html``.

The three are rendered in memory from the one ``Reconciliation`` and published as one set (``publish.py``):
a reader sees the previous three or the new three, never a mix, and never a truncated file.

The Markdown is for a person signing off: the answer first, then per project the phase totals with the
rate used beside each converted figure, every difference with its location, and the ledger per kind.
Amounts print in major units of the workspace currency, computed from the integer minor units exactly.
"""

from __future__ import annotations

from pathlib import Path

from bridge.verify.convert import format_minor
from bridge.verify.html import render_html
from bridge.verify.publish import publish
from bridge.verify.schema import Figure, KindLedger, ProjectReport, Reconciliation

JSON_NAME = "reconciliation.json"
MD_NAME = "reconciliation.md"
HTML_NAME = "reconciliation.html"


def write_reports(report: Reconciliation, directory: Path) -> list[Path]:
    """Publish the three reports of ``report`` into ``directory`` (created if needed) as one set; their paths."""
    rendered = {
        JSON_NAME: report.model_dump_json(indent=2) + "\n",
        MD_NAME: render_markdown(report),
        HTML_NAME: render_html(report),
    }
    return publish(directory, rendered)


def money(minor: int | None, currency: str) -> str:
    """Minor units with the currency code, e.g. ``1,234.56 USD``; an absent figure prints as a dash."""
    return "—" if minor is None else f"{format_minor(minor, currency)} {currency}"


def signed(minor: int | None, currency: str) -> str:
    if minor is None:
        return "—"
    return ("+" if minor > 0 else "") + money(minor, currency)


def render_markdown(report: Reconciliation) -> str:
    v = report.verdicts
    answer = "RECONCILED" if report.reconciled else "NOT RECONCILED"
    lines = [
        f"# Reconciliation: {answer}",
        "",
        f"- migration `{report.migration}`: `{report.source_workspace}` -> `{report.target_workspace}`",
        f"- generated {report.generated_at}; schema {report.schema_version}; fails on `{report.fail_on}` and worse",
        f"- totals compared: {v.exact} exact, {v.rounding} explained by rounding, "
        f"{v.quarantine} explained by quarantine, {v.not_carried} not carried (no published write on v1), "
        f"{v.mismatch} mismatch",
        f"- {_cell(report.held_back.summary)}",
        f"- amounts in {report.currency}; each legacy figure converted at the rate shown beside it",
        f"- requests sent: {', '.join(f'{k} {n}' for k, n in sorted(report.requests.items())) or 'none'}",
        f"- relies on assumptions: {'; '.join(report.assumptions) or 'none'}",
        "",
    ]
    lines += [f"> {note}" for note in report.notes]
    lines += [""] if report.notes else []
    for project in report.projects:
        lines += _project_md(project, report.currency)
    lines += _held_back_md(report)
    lines += ["## Ledger", "", *_ledger_md(report.ledger)]
    if report.quarantine:
        lines += [
            "",
            "## Quarantined source records",
            "",
            "| kind | scope | id | code | message |",
            "|---|---|---|---|---|",
        ]
        lines += [
            f"| {q.kind} | {_cell(q.scope)} | {_cell(q.legacy_id)} | {q.code} | {_cell(q.message)} |"
            for q in report.quarantine
        ]
    return "\n".join(lines) + "\n"


def _project_md(project: ProjectReport, currency: str) -> list[str]:
    out = [
        f"## {_cell(project.name)} (`{project.project_id}` -> `{project.v1_project_id or '—'}`): {project.verdict}",
        "",
        "| phase | type | legacy (as computed) | rate | legacy converted | v1 | difference | verdict | fringe |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    out += [
        f"{_figure_row(phase.name, phase.type, phase.total, currency)} {phase.fringe_text()} |"
        for phase in project.phases
    ]
    out.append("")
    if project.actuals:
        out += ["| actuals currency | legacy count | v1 count | legacy | v1 | verdict |", "|---|---|---|---|---|---|"]
        out += [
            f"| {a.currency} | {a.legacy_count} | {a.v1_count} | {money(a.legacy_minor, a.currency)} | "
            f"{money(a.v1_minor, a.currency)} | {a.verdict} |"
            for a in project.actuals
        ]
        out.append("")
    if project.differences:
        out += ["### Differences", "", "| phase | account | path | line | legacy | v1 | verdict | what |"]
        out.append("|---|---|---|---|---|---|---|---|")
        for diff in project.differences:
            loc = diff.location
            line = loc.line_id if loc.kind != "account" else ""
            out.append(
                f"| {_cell(loc.phase_name)} | {_cell(loc.account_code or '')} | {_cell(loc.path or '')} | "
                f"{_cell(line or '')} | {money(diff.figure.legacy_minor, currency)} | "
                f"{money(diff.figure.v1_minor, currency)} | {diff.figure.verdict} | {_cell(diff.summary)} |"
            )
        out.append("")
    tag_rows = [
        f"| {_cell(name)} | {what} | {_cell(phase)} | {f.rate} | {money(f.legacy_minor, currency)} | "
        f"{money(f.v1_minor, currency)} | {f.rounding_bound_minor} | {f.verdict} |"
        for name, what, phase, f in project.inexact_tag_figures()
    ]
    if tag_rows:
        out += [
            "### Tag totals that are not exact",
            "",
            "| tag | figure | phase | rate | legacy | v1 | bound | verdict |",
        ]
        out += ["|---|---|---|---|---|---|---|---|", *tag_rows, ""]
    if project.library:
        out += [
            "### Settings that differ (likely causes)",
            "",
            "| kind | name | field | legacy | v1 |",
            "|---|---|---|---|---|",
        ]
        out += [
            f"| {d.kind} | {_cell(d.name)} | {d.field} | {_cell(d.legacy or '—')} | {_cell(d.v1 or '—')} |"
            for d in project.library
        ]
        out.append("")
    out += [f"> {note}" for note in project.notes]
    return out


def _figure_row(label: str, kind: str, figure: Figure, currency: str) -> str:
    legacy = f"{figure.legacy_amount} {figure.legacy_currency}" if figure.legacy_amount is not None else "—"
    return (
        f"| {_cell(label)} | {kind} | {legacy} | {figure.rate} | {money(figure.legacy_minor, currency)} | "
        f"{money(figure.v1_minor, currency)} | {signed(figure.difference_minor, currency)} | {figure.verdict} |"
    )


def _held_back_md(report: Reconciliation) -> list[str]:
    """What quarantine keeps off v1: the money per project and phase, then each refused record's share."""
    held = report.held_back
    if not held.money and not held.groups:
        return []
    out = ["## Held back by quarantine", "", held.summary, ""]
    if held.money:
        out += [
            "| project | phase | type | legacy currency | rate | held back | held back by |",
            "|---|---|---|---|---|---|---|",
        ]
        out += [
            f"| {_cell(m.project_name)} (`{_cell(m.project_id)}`) | {_cell(m.phase_name)} | {_cell(m.phase_type)} | "
            f"{m.legacy_currency} | {m.rate} | {money(m.minor, m.currency)} | "
            f"{_cell(m.held_back_by or 'the quarantined records inside it')} |"
            for m in held.money
        ]
        out.append("")
    if held.groups:
        out += ["| refused record | records not on v1 (itself included) |", "|---|---|"]
        out += [f"| {_cell(g.label)} | {_counts(g.records)} |" for g in held.groups]
        out.append("")
    return out


def _counts(records: dict[str, int]) -> str:
    return ", ".join(f"{kind} {n}" for kind, n in records.items())


def _ledger_md(entries: list[KindLedger]) -> list[str]:
    out = [
        "| kind | source | migrated | unchanged | quarantined | held back | pending | closed | ok | missing | "
        "unexpected | dup |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for e in entries:
        quarantined = ", ".join(f"{code} {n}" for code, n in e.quarantined.items()) or "0"
        held_back = ", ".join(f"by {_cell(by)} {n}" for by, n in e.held_back.items()) or "0"
        checked = "" if e.checked_on_target else " (target not listed)"
        out.append(
            f"| {e.kind} | {e.source} | {e.migrated} | {e.unchanged} | {quarantined} | {held_back} | {e.pending} | "
            f"{'yes' if e.closed else f'NO ({e.unaccounted:+d})'} | {e.ok}{checked} | {len(e.missing)} | "
            f"{len(e.unexpected)} | {len(e.duplicated)} |"
        )
    for e in entries:
        for label, ids in (("missing", e.missing), ("unexpected", e.unexpected)):
            if ids:
                out.append(f"\n- {e.kind} {label}: {', '.join(f'`{i}`' for i in ids[:50])}{_more(ids)}")
        out.extend(
            f"\n- {e.kind} `{d.legacy_id}` duplicated on the target as {', '.join(d.v1_ids)}" for d in e.duplicated
        )
    return out


def _more(ids: list[str]) -> str:
    return f" and {len(ids) - 50} more (see reconciliation.json)" if len(ids) > 50 else ""


def _cell(text: str) -> str:
    """Text safe inside a Markdown table cell."""
    return text.replace("|", "\\|").replace("\n", " ")
