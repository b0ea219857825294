"""``reconciliation.html``: one self-contained page (inline CSS and SVG, no script, no network).

Per project: a bar chart of legacy against v1 totals per phase, the phase table with the rate used beside
each converted figure, the differences, and the differing accounts as a tree. Every piece of text from
either workspace is escaped: a line description is data, never markup.
"""

from __future__ import annotations

from html import escape

from bridge.verify.convert import format_minor
from bridge.verify.schema import KindLedger, PhaseSummary, ProjectReport, Reconciliation, TreeNode

_STYLE = """
body{font:14px/1.45 system-ui,sans-serif;margin:2em;color:#1f2933}
h1.ok{color:#1b7f3b}h1.fail{color:#b42318}
table{border-collapse:collapse;margin:.6em 0 1.2em}
th,td{border:1px solid #cbd2d9;padding:.25em .6em;text-align:left;vertical-align:top}
td.num{text-align:right;white-space:nowrap}
.exact{color:#1b7f3b}.rounding{color:#8a6d00}.quarantine{color:#6941c6}.mismatch{color:#b42318;font-weight:600}
ul.tree{font-family:ui-monospace,monospace}
svg.chart text{font:11px system-ui,sans-serif}
"""
_WIDTH = 640
_HEIGHT = 260
_PAD = 48
_LEGACY_COLOUR = "#3e7cb1"
_V1_COLOUR = "#f29e4c"


def render_html(report: Reconciliation) -> str:
    status = "ok" if report.reconciled else "fail"
    answer = "Reconciled" if report.reconciled else "Not reconciled"
    v = report.verdicts
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>Reconciliation: {escape(report.migration)}</title>",
        f"<style>{_STYLE}</style></head><body>",
        f'<h1 class="{status}" id="answer">{answer}</h1>',
        f"<p>{escape(report.source_workspace)} &rarr; {escape(report.target_workspace)}; amounts in "
        f"{escape(report.currency)}; generated {escape(report.generated_at)}; schema {report.schema_version}; "
        f"fails on {report.fail_on} and worse.</p>",
        f'<p id="verdicts">{v.exact} exact, {v.rounding} explained by rounding, {v.quarantine} explained by '
        f"quarantine, {v.not_carried} not carried (no published write on v1), {v.mismatch} mismatch.</p>",
        f'<p id="held-back">{escape(report.held_back.summary)}</p>',
        *(f'<p class="note">{escape(n)}</p>' for n in report.notes),
    ]
    for index, project in enumerate(report.projects):
        parts += _project(project, report.currency, index)
    parts += _held_back(report)
    parts += ["<h2>Ledger</h2>", _ledger(report.ledger), "</body></html>"]
    return "\n".join(parts) + "\n"


def _project(project: ProjectReport, currency: str, index: int) -> list[str]:
    out = [
        f'<section class="project" id="project-{index}">',
        f'<h2>{escape(project.name)} <span class="{project.verdict}">{project.verdict}</span></h2>',
        f"<p>legacy <code>{escape(project.project_id)}</code> &rarr; v1 "
        f"<code>{escape(project.v1_project_id or '—')}</code></p>",
        _chart(project.phases, currency, f"chart-{index}"),
        '<table class="totals"><thead><tr><th>phase</th><th>type</th><th>legacy as computed</th><th>rate</th>'
        "<th>legacy converted</th><th>v1</th><th>difference</th><th>verdict</th><th>fringe</th></tr></thead><tbody>",
    ]
    for phase in project.phases:
        f = phase.total
        legacy = f"{f.legacy_amount} {f.legacy_currency}" if f.legacy_amount is not None else "—"
        out.append(
            f"<tr><td>{escape(phase.name)}</td><td>{escape(phase.type)}</td><td>{escape(legacy)}</td>"
            f"{_num(escape(f.rate))}{_num(_money(f.legacy_minor, currency))}{_num(_money(f.v1_minor, currency))}"
            f'{_num(_money(f.difference_minor, currency))}<td class="{f.verdict}">{f.verdict}</td>'
            f"<td>{escape(phase.fringe_text())}</td></tr>"
        )
    out.append("</tbody></table>")
    if project.differences:
        out.append(
            '<table class="differences"><thead><tr><th>phase</th><th>account</th><th>path</th><th>line</th>'
            "<th>legacy</th><th>v1</th><th>verdict</th><th>what</th></tr></thead><tbody>"
        )
        for diff in project.differences:
            loc = diff.location
            out.append(
                f"<tr><td>{escape(loc.phase_name)}</td><td>{escape(loc.account_code or '')}</td>"
                f"<td>{escape(loc.path or '')}</td><td>{escape(loc.line_id or loc.v1_line_id or '')}</td>"
                f"{_num(_money(diff.figure.legacy_minor, currency))}{_num(_money(diff.figure.v1_minor, currency))}"
                f'<td class="{diff.figure.verdict}">{diff.figure.verdict}</td><td>{escape(diff.summary)}</td></tr>'
            )
        out.append("</tbody></table>")
    tag_rows = project.inexact_tag_figures()
    if tag_rows:
        out.append(
            '<h3>Tag totals that are not exact</h3><table class="tags"><thead><tr><th>tag</th><th>figure</th>'
            "<th>phase</th><th>rate</th><th>legacy converted</th><th>v1</th><th>bound</th><th>verdict</th></tr>"
            "</thead><tbody>"
        )
        out += [
            f"<tr><td>{escape(name)}</td><td>{what}</td><td>{escape(phase)}</td>{_num(escape(f.rate))}"
            f"{_num(_money(f.legacy_minor, currency))}{_num(_money(f.v1_minor, currency))}"
            f'<td>{escape(f.rounding_bound_minor)}</td><td class="{f.verdict}">{f.verdict}</td></tr>'
            for name, what, phase, f in tag_rows
        ]
        out.append("</tbody></table>")
    if project.actuals:
        out.append(
            '<table class="actuals"><thead><tr><th>actuals currency</th><th>legacy count</th><th>v1 count</th>'
            "<th>legacy</th><th>v1</th><th>verdict</th></tr></thead><tbody>"
        )
        out += [
            f"<tr><td>{escape(a.currency)}</td>{_num(a.legacy_count)}{_num(a.v1_count)}"
            f"{_num(_money(a.legacy_minor, a.currency))}{_num(_money(a.v1_minor, a.currency))}"
            f'<td class="{a.verdict}">{a.verdict}</td></tr>'
            for a in project.actuals
        ]
        out.append("</tbody></table>")
    if project.library:
        out.append(
            '<h3>Settings that differ</h3><table class="library"><thead><tr><th>kind</th><th>name</th><th>field</th>'
            "<th>legacy</th><th>v1</th></tr></thead><tbody>"
        )
        out += [
            f"<tr><td>{escape(d.kind)}</td><td>{escape(d.name)}</td><td>{escape(d.field)}</td>"
            f"<td>{escape(d.legacy or '—')}</td><td>{escape(d.v1 or '—')}</td></tr>"
            for d in project.library
        ]
        out.append("</tbody></table>")
    if project.tree:
        out += ["<h3>Differing accounts</h3>", f'<ul class="tree">{"".join(_tree(n) for n in project.tree)}</ul>']
    out += [f'<p class="note">{escape(n)}</p>' for n in project.notes]
    out.append("</section>")
    return out


def _tree(node: TreeNode) -> str:
    verdicts = ", ".join(f'{escape(phase)}: <span class="{v}">{v}</span>' for phase, v in node.verdicts.items())
    label = escape(node.label)
    children = f"<ul>{''.join(_tree(c) for c in node.children)}</ul>" if node.children else ""
    presence = "" if node.presence == "both" else f" <em>({node.presence} on v1)</em>"
    return f"<li><strong>{label}</strong>{presence} — {verdicts}{children}</li>"


def _chart(phases: list[PhaseSummary], currency: str, chart_id: str) -> str:
    """Grouped bars, legacy (converted) beside v1, per phase; a zero line so negative rollups read right."""
    values = [x for p in phases for x in (p.total.legacy_minor, p.total.v1_minor) if x is not None]
    top, bottom = max([0, *values]), min([0, *values])
    span = (top - bottom) or 1
    plot_h = _HEIGHT - 2 * _PAD
    group_w = (_WIDTH - 2 * _PAD) / max(len(phases), 1)
    bar_w = group_w * 0.35

    def y(value: int) -> float:
        return _PAD + (top - value) * plot_h / span

    zero = y(0)
    shapes = [
        f'<line x1="{_PAD}" x2="{_WIDTH - _PAD}" y1="{zero:.1f}" y2="{zero:.1f}" stroke="#52606d"/>',
        f'<text x="{_PAD}" y="{_PAD - 24}">{_money(top, currency)}</text>',
    ]
    for i, phase in enumerate(phases):
        x0 = _PAD + i * group_w + group_w * 0.1
        for offset, value, colour, side in (
            (0.0, phase.total.legacy_minor, _LEGACY_COLOUR, "legacy"),
            (bar_w, phase.total.v1_minor, _V1_COLOUR, "v1"),
        ):
            if value is None:
                continue
            top_y, height = min(y(value), zero), abs(y(value) - zero)
            shapes.append(
                f'<rect class="bar {side}" x="{x0 + offset:.1f}" y="{top_y:.1f}" width="{bar_w:.1f}" '
                f'height="{max(height, 0.5):.1f}" fill="{colour}"><title>{escape(phase.name)} {side}: '
                f"{_money(value, currency)}</title></rect>"
            )
        shapes.append(
            f'<text x="{x0:.1f}" y="{_HEIGHT - _PAD + 16}" class="{phase.total.verdict}">'
            f"{escape(phase.name[:18])}</text>"
        )
    legend = (
        f'<rect x="{_WIDTH - 190}" y="8" width="10" height="10" fill="{_LEGACY_COLOUR}"/>'
        f'<text x="{_WIDTH - 175}" y="17">legacy (converted)</text>'
        f'<rect x="{_WIDTH - 70}" y="8" width="10" height="10" fill="{_V1_COLOUR}"/>'
        f'<text x="{_WIDTH - 55}" y="17">v1</text>'
    )
    return (
        f'<svg class="chart" id="{chart_id}" xmlns="http://www.w3.org/2000/svg" width="{_WIDTH}" height="{_HEIGHT}" '
        f'viewBox="0 0 {_WIDTH} {_HEIGHT}" role="img" aria-label="legacy against v1 totals per phase">'
        f"{legend}{''.join(shapes)}</svg>"
    )


def _held_back(report: Reconciliation) -> list[str]:
    """The money quarantine keeps off v1 per project and phase, and each refused record's share of records."""
    held = report.held_back
    out: list[str] = []
    if held.money:
        out += [
            '<h2>Held back by quarantine</h2><table class="held-back"><thead><tr><th>project</th><th>phase</th>'
            "<th>type</th><th>legacy currency</th><th>rate</th><th>held back</th><th>held back by</th></tr></thead>"
            "<tbody>",
            *(
                f"<tr><td>{escape(m.project_name)} <code>{escape(m.project_id)}</code></td>"
                f"<td>{escape(m.phase_name)}</td><td>{escape(m.phase_type)}</td><td>{escape(m.legacy_currency)}</td>"
                f"{_num(escape(m.rate))}{_num(_money(m.minor, m.currency) + ' ' + escape(m.currency))}"
                f"<td>{escape(m.held_back_by or 'the quarantined records inside it')}</td></tr>"
                for m in held.money
            ),
            "</tbody></table>",
        ]
    if held.groups:
        out += [
            '<table class="refused"><thead><tr><th>refused record</th><th>records not on v1 (itself included)</th>'
            "</tr></thead><tbody>",
            *(
                f"<tr><td>{escape(g.label)}</td>"
                f"<td>{escape(', '.join(f'{kind} {n}' for kind, n in g.records.items()))}</td></tr>"
                for g in held.groups
            ),
            "</tbody></table>",
        ]
    return out


def _ledger(entries: list[KindLedger]) -> str:
    rows = "".join(
        f"<tr><td>{escape(e.kind)}</td>{_num(e.source)}{_num(e.migrated)}{_num(e.unchanged)}"
        f"{_num(sum(e.quarantined.values()))}{_num(sum(e.held_back.values()))}{_num(e.pending)}"
        f"<td>{'yes' if e.closed else 'no'}</td>"
        f"{_num(e.ok)}{_num(len(e.missing))}{_num(len(e.unexpected))}{_num(len(e.duplicated))}</tr>"
        for e in entries
    )
    return (
        '<table class="ledger"><thead><tr><th>kind</th><th>source</th><th>migrated</th><th>unchanged</th>'
        "<th>quarantined</th><th>held back</th><th>pending</th><th>closed</th><th>ok</th><th>missing</th>"
        f"<th>unexpected</th><th>duplicated</th></tr></thead><tbody>{rows}</tbody></table>"
    )


def _num(value: object) -> str:
    """A right-aligned cell for a figure (already escaped, or a number); figures never wrap."""
    return f"<td class=num>{value}</td>"


def _money(minor: int | None, currency: str) -> str:
    return escape(format_minor(minor, currency))
