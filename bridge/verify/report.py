"""Writing the reconciliation: ``reconciliation.json`` (the schema in ``schema.py``), ``.md`` and ``.html``.

The three are rendered in memory from the one ``Reconciliation`` and published as one set (``publish.py``):
a reader sees the previous three or the new three, never a mix, and never a truncated file.

The Markdown is for a person signing off: the answer first, then per project the phase totals with the
rate used beside each converted figure, every difference with its location, and the ledger per kind.
Amounts print in major units of the workspace currency, computed from the integer minor units exactly.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from bridge.terminal import plain
from bridge.verify import amounts, remarks_report
from bridge.verify.amounts import number
from bridge.verify.closing import closing, ledger_line, plural, totals_compared
from bridge.verify.compare import Verdict
from bridge.verify.headline import (
    Entry,
    by_severity,
    differences,
    fix_for,
    money_rows,
    phases_not_compared,
)
from bridge.verify.html import render_html
from bridge.verify.inventory import figures, summary
from bridge.verify.publish import PublishObserver, publish
from bridge.verify.schema import Figure, KindLedger, LibraryDifference, ProjectReport, Reconciliation

JSON_NAME = "reconciliation.json"
MD_NAME = "reconciliation.md"
HTML_NAME = "reconciliation.html"


def write_reports(report: Reconciliation, directory: Path, observer: PublishObserver | None = None) -> list[Path]:
    """Publish the three reports of ``report`` into ``directory`` (created if needed) as one set; their paths
    (``observer``: told of each point of the publication, see ``publish``)."""
    rendered = {
        JSON_NAME: report.model_dump_json(indent=2) + "\n",
        MD_NAME: render_markdown(report),
        HTML_NAME: render_html(report),
    }
    return publish(directory, rendered, observer)


def money(minor: int | None, currency: str) -> str:
    """Minor units with the currency code, e.g. ``1,234.56 USD`` (``amounts.amount``), as Markdown text."""
    return _text(amounts.amount(minor, currency))


def signed(minor: int | None, currency: str) -> str:
    """A difference with its sign (``amounts.signed``), as Markdown text."""
    return _text(amounts.signed(minor, currency))


def render_markdown(report: Reconciliation) -> str:
    """The answer and the next step, the money per currency, the totals compared, the ledger, the differences
    largest first; then the projects, the quarantine, what it holds back, what is not carried, and the notes."""
    said = closing(report)
    answer = "RECONCILED" if report.reconciled else "NOT RECONCILED"
    lines = [
        f"# Reconciliation: {answer}",
        "",
        f"**{_text(said.answer)}**",
        "",
        _text(said.next_step),
        "",
        f"- migration {_code(report.migration)}: {_code(report.source_workspace)} -> {_code(report.target_workspace)}",
        f"- generated {report.generated_at}; schema {report.schema_version}; fails on `{report.fail_on}` and worse",
        f"- {_text(report.held_back.summary)}",
        f"- amounts in {_text(report.currency)}; each legacy figure converted at the rate shown beside it",
        f"- requests sent: {', '.join(f'{k} {n}' for k, n in sorted(report.requests.items())) or 'none'}",
        f"- relies on assumptions: {'; '.join(report.assumptions) or 'none'}",
        "",
    ]
    lines += _money_md(report)
    lines += ["## Ledger", "", _text(ledger_line(report.ledger)), "", *_ledger_md(report.ledger), ""]
    lines += _differences_md(report)
    if report.documents:
        lines += [
            f"## Documents that do not prove their legacy file ({len(report.documents)})",
            "",
            "| kind | scope | legacy id | v1 id | problem | legacy | v1 |",
            "|---|---|---|---|---|---|---|",
            *(
                f"| {_text(d.kind)} | {_text(d.scope)} | {_code(d.legacy_id)} | {_code(d.v1_id)} | "
                f"{_text(d.problem)} | {_text(d.legacy)} | {_text(d.v1)} |"
                for d in report.documents
            ),
            "",
        ]
    if report.library:
        lines += [
            f"## Workspace library items that differ from what the runs wrote ({len(report.library)})",
            "",
            *_library_md(report.library, "written"),
            "",
        ]
    lines += remarks_report.markdown(report.remarks, _code)
    for project in by_severity(report.projects):
        lines += _project_md(project, report.currency)
    if report.quarantine:
        lines += [
            "## Quarantined source records",
            "",
            "| kind | scope | id | code | fix | message |",
            "|---|---|---|---|---|---|",
        ]
        lines += [
            f"| {_text(q.kind)} | {_text(q.scope)} | {_text(q.legacy_id)} | {_code(q.code)} | "
            f"{_text(fix_for(q.code))} | {_text(q.message)} |"
            for q in report.quarantine
        ]
        lines.append("")
    lines += _held_back_md(report)
    lines += _inventory_md(report)
    lines += _notes_md("Notes", report.notes)
    return "\n".join(lines).rstrip("\n") + "\n"


def _notes_md(heading: str, notes: Sequence[str], level: str = "##") -> list[str]:
    """Notes as a list, one item each: consecutive quoted lines would run together into one paragraph."""
    return [f"{level} {heading}", "", *(f"- {_text(note)}" for note in notes), ""] if notes else []


def _money_md(report: Reconciliation) -> list[str]:
    """Per currency and phase the money on both sides; then how many totals were compared, and which not."""
    v = report.verdicts
    out = [
        "## Money per currency and phase",
        "",
        "| currency | phase | legacy | v1 | difference | held back by quarantine | verdict |",
        "|---|---|---:|---:|---:|---:|---|",
    ]
    out += [
        f"| {_text(r.label)} | {_text(r.phase)} | {money(r.legacy_minor, r.currency)} | "
        f"{money(r.v1_minor, r.currency) if r.reached_v1 else 'not on v1'} | "
        f"{signed(r.difference_minor, r.currency)} | {money(r.held_back_minor, r.currency)} | {r.verdict} |"
        for r in money_rows(report)
    ]
    out += [
        "",
        f"{plural(totals_compared(report), 'total')} compared: {v.exact} exact, {v.rounding} explained by rounding, "
        f"{v.quarantine} explained by quarantine, {v.mismatch} mismatch; {plural(v.not_carried, 'figure')} not "
        "carried (no published write on v1: see Not carried).",
        "",
    ]
    skipped = phases_not_compared(report)
    out += [f"- not compared: phase {_text(s.name)} {_text(s.why)}" for s in skipped]
    return [*out, ""] if skipped else out


def _differences_md(report: Reconciliation) -> list[str]:
    """Every total that is not exact, largest first, with where the drill-down pinned it."""
    entries = differences(report)
    out = [f"## Differences, largest first ({len(entries)})", ""]
    if not entries:
        return [*out, "None: every total compared is exact.", ""]
    out += [
        "| # | difference | verdict | project | total | legacy | v1 | where |",
        "|---:|---:|---|---|---|---:|---:|---|",
    ]
    out += [
        f"| {n} | {signed(e.difference_minor, e.currency)} | {e.verdict} | {_text(e.project.name)} | {_text(e.what)} | "
        f"{money(e.legacy_minor, e.currency)} | {money(e.v1_minor, e.currency)} | {_places(e)} |"
        for n, e in enumerate(entries, 1)
    ]
    return [*out, ""]


def _places(entry: Entry) -> str:
    """Where the drill-down pinned it: accounts and lines, then the transactions quarantine holds back."""
    held = [f"held back by {_text(entry.held_back_by)}"] if entry.held_back_by else []
    steps = [
        f"{_text(d.location.kind)} {_text(d.location.description or d.location.line_id or '')} "
        f"({_text(d.location.account_code or '—')}, {_text(d.location.path or '—')})"
        for d in entry.steps
    ]
    moved = [f"transaction {_text(t.said())}" for t in entry.moved]
    refused = [f"held back: {_text(q.kind)} {_text(q.legacy_id)} ({_code(q.code)})" for q in entry.transactions]
    return "; ".join([*held, *steps, *moved, *refused]) or _text(entry.alone)


def _project_md(project: ProjectReport, currency: str) -> list[str]:
    out = [
        f"## {_text(project.name)} ({_code(project.project_id)} -> {_code(project.v1_project_id or '—')}): "
        f"{project.verdict}",
        "",
        "| phase | type | legacy (as computed) | rate | legacy converted | v1 | difference | verdict | fringe |",
        "|---|---|---:|---:|---:|---:|---:|---|---|",
    ]
    out += [
        f"{_figure_row(phase.name, phase.type, phase.total, currency)} {phase.fringe_text()} |"
        for phase in project.phases
    ]
    out.append("")
    if project.actuals:
        out += [
            "| actuals currency | legacy count | v1 count | legacy | v1 | verdict |",
            "|---|---:|---:|---:|---:|---|",
        ]
        out += [
            f"| {_text(a.currency)} | {number(a.legacy_count)} | {number(a.v1_count)} | "
            f"{money(a.legacy_minor, a.currency)} | "
            f"{money(a.v1_minor, a.currency)} | {a.verdict} |"
            for a in project.actuals
        ]
        out.append("")
    if project.differences:
        out += ["### Differences", "", "| phase | account | path | line | legacy | v1 | verdict | what |"]
        out.append("|---|---|---|---|---:|---:|---|---|")
        for diff in project.differences:
            loc = diff.location
            line = loc.line_id if loc.kind != "account" else ""
            out.append(
                f"| {_text(loc.phase_name)} | {_text(loc.account_code or '')} | {_text(loc.path or '')} | "
                f"{_text(line or '')} | {money(diff.figure.legacy_minor, currency)} | "
                f"{money(diff.figure.v1_minor, currency)} | {diff.figure.verdict} | {_text(diff.summary)} |"
            )
        out.append("")
    figures = project.inexact_tag_figures()
    differing = [t for t in figures if t[3].verdict is not Verdict.NOT_CARRIED]
    left = [t for t in figures if t[3].verdict is Verdict.NOT_CARRIED]
    out += _tags_md("Tag totals that are not exact", differing, currency)
    # Its own section: money v1 cannot hold is said, never mistaken for a difference in the project's money.
    out += _tags_md("Not carried: tag totals (v1 publishes no write for a line's tags)", left, currency)
    if project.transactions:
        out += ["### Transactions that differ", "", *(f"- {_text(t.said())}" for t in project.transactions), ""]
    if project.purchase_orders is not None:
        out += ["### Purchase orders", "", *(f"- {_text(line)}" for line in project.purchase_orders.lines()), ""]
    if project.library:
        out += ["### Settings that differ (likely causes)", "", *_library_md(project.library, "legacy"), ""]
    return [*out, *_notes_md("Notes", project.notes, "###")]


def _tags_md(heading: str, figures: Sequence[tuple[str, str, str, Figure]], currency: str) -> list[str]:
    if not figures:
        return []
    return [
        f"### {heading}",
        "",
        "| tag | figure | phase | rate | legacy | v1 | bound | verdict |",
        "|---|---|---|---:|---:|---:|---:|---|",
        *(
            f"| {_text(name)} | {what} | {_text(phase)} | {_text(f.rate)} | {money(f.legacy_minor, currency)} | "
            f"{money(f.v1_minor, currency)} | {f.rounding_bound_minor} | {f.verdict} |"
            for name, what, phase, f in figures
        ),
        "",
    ]


def _library_md(differences: Sequence[LibraryDifference], written: str) -> list[str]:
    """Settings that differ as a table: ``written`` heads the column of the value the source or the runs gave."""
    return [
        f"| kind | name | field | {written} | v1 |",
        "|---|---|---|---|---|",
        *(
            f"| {_text(d.kind)} | {_text(d.name)} | {_text(d.field)} | {_text(d.legacy or '—')} | "
            f"{_text(d.v1 or '—')} |"
            for d in differences
        ),
    ]


def _figure_row(label: str, kind: str, figure: Figure, currency: str) -> str:
    legacy = _text(amounts.as_computed(figure.legacy_amount, figure.legacy_currency))
    return (
        f"| {_text(label)} | {_text(kind)} | {legacy} | {_text(figure.rate)} | "
        f"{money(figure.legacy_minor, currency)} | {money(figure.v1_minor, currency)} | "
        f"{signed(figure.difference_minor, currency)} | {figure.verdict} |"
    )


def _held_back_md(report: Reconciliation) -> list[str]:
    """What quarantine keeps off v1: the money per project and phase, then each refused record's share."""
    held = report.held_back
    if not held.money and not held.groups:
        return []
    out = ["## Held back by quarantine", "", _text(held.summary), ""]
    if held.money:
        out += [
            "| project | phase | type | legacy currency | rate | held back | held back by |",
            "|---|---|---|---|---:|---:|---|",
        ]
        out += [
            f"| {_text(m.project_name)} ({_code(m.project_id)}) | {_text(m.phase_name)} | {_text(m.phase_type)} | "
            f"{_text(m.legacy_currency)} | {_text(m.rate)} | {money(m.minor, m.currency)} | "
            f"{_text(m.held_back_by or 'the quarantined records inside it')} |"
            for m in held.money
        ]
        out.append("")
    if held.groups:
        out += ["| refused record | records not on v1 (itself included) |", "|---|---|"]
        out += [f"| {_text(g.label)} | {_counts(g.records)} |" for g in held.groups]
        out.append("")
    return out


def _inventory_md(report: Reconciliation) -> list[str]:
    """Every kind the bridge does not write: what the source holds of it and why it stays behind."""
    out = [
        "## Not carried",
        "",
        _text(summary(report.inventory)),
        "",
        "| kind | held at source | why |",
        "|---|---:|---|",
    ]
    out += [f"| {_text(e.label)} | {figures(e)} | {_text(e.why)} |" for e in report.inventory]
    return [*out, "", f"Not counted: {_text(report.unlisted)}.", ""]


def _counts(records: dict[str, int]) -> str:
    return ", ".join(f"{_text(kind)} {n}" for kind, n in records.items())


def _ledger_md(entries: list[KindLedger]) -> list[str]:
    """Per kind where every source record went (migrated counts every run: the crosswalk), then the set check."""
    out = [
        "| kind | source | migrated (all runs) | by the last run | quarantined | held back | not carried | pending | "
        "closed | ok on v1 | missing | unexpected | dup |",
        "|---|---:|---:|---:|---|---|---:|---:|---|---:|---:|---:|---:|",
    ]
    for e in entries:
        quarantined = ", ".join(f"{_text(code)} {n}" for code, n in e.quarantined.items()) or "0"
        held_back = ", ".join(f"by {_text(by)} {n}" for by, n in e.held_back.items()) or "0"
        checked = "" if e.checked_on_target else " (target not listed)"
        out.append(
            f"| {_text(e.kind)} | {number(e.source)} | {number(e.migrated + e.unchanged)} | {number(e.migrated)} | "
            f"{quarantined} | {held_back} | {number(sum(e.not_carried.values()))} | {number(e.pending)} | "
            f"{'yes' if e.closed else f'NO ({e.unaccounted:+d})'} | {number(e.ok)}{checked} | {len(e.missing)} | "
            f"{len(e.unexpected)} | {len(e.duplicated)} |"
        )
    for e in entries:
        for label, ids in (("missing", e.missing), ("unexpected", e.unexpected)):
            if ids:
                out.append(f"\n- {_text(e.kind)} {label}: {', '.join(_code(i) for i in ids[:50])}{_more(ids)}")
        out.extend(
            f"\n- {_text(e.kind)} {_code(d.legacy_id)} duplicated on the target as {', '.join(map(_code, d.v1_ids))}"
            for d in e.duplicated
        )
    return out


def _more(ids: list[str]) -> str:
    return f" and {len(ids) - 50} more (see reconciliation.json)" if len(ids) > 50 else ""


# Characters that would make source text into Markdown or HTML: a tag or an entity, a link or an image
# (``[x](y)``, ``![x](y)``), a code span, an escape, a table cell's end. Emphasis (``*`` ``_``) only
# changes the look of a word, so ids like SHOOT_WEEKS stay readable in the raw file.
_ENTITY = re.compile(r"&(?=#?[0-9A-Za-z]+;)")  # a bare "&" is literal in Markdown; one starting an entity is not
_MARKDOWN = str.maketrans(
    {
        "<": "&lt;",
        ">": "&gt;",
        "\\": "\\\\",
        "`": "\\`",
        "[": "\\[",
        "]": "\\]",
        "|": "\\|",
        "\n": " ",
        "\r": " ",
    }
)


def _text(text: str) -> str:
    """Source text as Markdown that renders as exactly that text, on one line (safe in a table cell), what a
    terminal would escape (a control character, a bidi override) shown as its escape."""
    return _ENTITY.sub("&amp;", plain(text)).translate(_MARKDOWN)


def _code(text: str) -> str:
    """An id in a code span (where nothing is markup) when it can be one; as escaped text otherwise."""
    if "`" in text or "\n" in text or "\r" in text:
        return _text(text)
    cell = plain(text).replace("|", "\\|")  # GFM ends a table cell at a bare pipe even inside a code span
    return f"`{cell}`"


markdown_text = _text
"""The public name of the Markdown escape, for the renderers outside this module (the cutover certificate's)."""
