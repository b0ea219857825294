"""``reconciliation.html``: one self-contained page (inline CSS and SVG, no script, no network).

It answers "is my money the same, and if not, where?" before anything else (``headline.py``): the answer,
then per currency and phase the legacy total, the v1 total, the difference and what quarantine holds back,
then every difference largest first, each opening (a ``<details>``, no script) onto the accounts, lines
and transactions that explain it. Below: the projects by severity (``html_project.py``), the quarantine
list with each code's fix, and the ledger. Every piece of text from either workspace is escaped: a line
description is data, never markup.
"""

from __future__ import annotations

from bridge.verify import remarks_report
from bridge.verify.amounts import signed
from bridge.verify.closing import closing, ledger_line, plural, totals_compared
from bridge.verify.headline import (
    Entry,
    MoneyRow,
    by_severity,
    committed_compared,
    differences,
    money_rows,
    phases_not_compared,
    quarantine_rows,
)
from bridge.verify.html_project import held_back_section, ledger_table, library_table, money, num, project_section
from bridge.verify.inventory import figures, summary
from bridge.verify.safe import escape
from bridge.verify.schema import NOTHING_HELD_BACK, Difference, QuarantinedRecord, Reconciliation

_STYLE = """
body{font:14px/1.4 system-ui,sans-serif;margin:1em 2em;color:#1f2933}
h1{margin:.2em 0}h1.ok{color:#1b7f3b}h1.fail{color:#b42318}h2{margin:.8em 0 .3em;font-size:1.2em}
p{margin:.3em 0}.meta{color:#52606d}#closing{font-weight:600}
table{border-collapse:collapse;margin:.3em 0 1em}
th,td{border:1px solid #cbd2d9;padding:.15em .5em;text-align:left;vertical-align:top}
th.num,td.num{text-align:right;white-space:nowrap;font-variant-numeric:tabular-nums}
.exact{color:#1b7f3b}.not_carried{color:#52606d}.rounding{color:#8a6d00}.quarantine{color:#6941c6}
.mismatch{color:#b42318;font-weight:600}
details summary{cursor:pointer}table.lead td:last-child{min-width:18em}details ul{margin:.2em 0;padding-left:1.2em}
ul.tree{font-family:ui-monospace,monospace}
svg.chart{max-width:100%;height:auto}svg.chart text{font:11px system-ui,sans-serif}
.wide{max-width:100%;overflow-x:auto}
@media (max-width:640px){
body{margin:.5em;font-size:13px;overflow-wrap:anywhere}
table:not(.cards){display:block;max-width:100%;overflow-x:auto}
table.cards,table.cards tbody,table.cards tr,table.cards td{display:block;width:auto}
table.cards thead{display:none}table.cards{width:100%}
table.cards tr{border:1px solid #cbd2d9;margin:0 0 .5em;padding:.2em 0}
table.cards td{border:0;display:flex;flex-wrap:wrap;justify-content:space-between;gap:0 .8em;min-width:0;
white-space:normal;overflow-wrap:anywhere;text-align:right}
table.cards td::before{content:attr(data-label);color:#52606d;text-align:left}
table.lead td:last-child{min-width:0;display:block;text-align:left}table.lead td:last-child::before{display:block}
}
@media print{
body{margin:0;font-size:11px}.wide{overflow:visible}
details::details-content{content-visibility:visible;display:block}details>summary{list-style:none}
.internal{display:none}a{color:inherit;text-decoration:none}
section,tr{break-inside:avoid}
}
"""


def render_html(report: Reconciliation) -> str:
    status = "ok" if report.reconciled else "fail"
    answer = "Reconciled" if report.reconciled else "Not reconciled"
    v = report.verdicts
    projects = by_severity(report.projects)
    index = {id(p): n for n, p in enumerate(projects)}
    entries = differences(report)
    said = closing(report)
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>Reconciliation: {escape(report.migration)}</title>",
        f"<style>{_STYLE}</style></head><body>",
        f'<header id="verdict"><h1 class="{status}" id="answer">{answer}</h1>',
        f'<p id="closing">{escape(said.answer)}</p><p id="next">{escape(said.next_step)}</p></header>',
        # The workspaces are named by the addresses the bridge read them at: for the screen, not for paper.
        f'<p class="meta"><span class="internal">{escape(report.source_workspace)} &rarr; '
        f"{escape(report.target_workspace)}; </span>amounts in "
        f"{escape(report.currency)} unless a row names another; generated {escape(report.generated_at)}; schema "
        f"{report.schema_version}; fails on {report.fail_on} and worse.</p>",
        _held_back_line(report),
        *_money_section(money_rows(report)),
        f'<p id="verdicts">{plural(totals_compared(report), "total")} compared: {v.mismatch} mismatch, '
        f"{v.quarantine} explained by quarantine, {v.rounding} explained by rounding, {v.exact} exact; "
        f"{plural(v.not_carried, 'figure')} not carried (no published write on v1: see Not carried).</p>",
        *_not_compared(report),
        '<details id="ledger"><summary><strong>Ledger</strong>: ',
        f"{escape(ledger_line(report.ledger))}</summary>",
        f'<div class="wide">{ledger_table(report.ledger)}</div></details>',
        *_differences_section(entries, index),
        *_documents_section(report),
        *_workspace_library(report),
        *remarks_report.html(report.remarks),
        '<h2 id="projects">Projects, most severe first</h2>',
    ]
    for project in projects:
        parts += project_section(project, report.currency, index[id(project)])
    parts += _quarantine_section(report)
    parts += _inventory_section(report)
    parts += [*(f'<p class="note">{escape(n)}</p>' for n in report.notes), "</body></html>"]
    return "\n".join(parts) + "\n"


def _documents_section(report: Reconciliation) -> list[str]:
    """Each v1 document that does not prove its legacy file (bytes, size, type, link)."""
    if not report.documents:
        return []
    rows = "".join(
        f"<tr><td>{escape(d.kind)}</td><td>{escape(d.scope)}</td><td><code>{escape(d.legacy_id)}</code></td>"
        f"<td><code>{escape(d.v1_id)}</code></td><td>{escape(d.problem)}</td><td>{escape(d.legacy)}</td>"
        f"<td>{escape(d.v1)}</td></tr>"
        for d in report.documents
    )
    return [
        f'<section id="documents"><h2>Documents that do not prove their legacy file ({len(report.documents)})</h2>',
        "<table><tr><th>kind</th><th>scope</th><th>legacy id</th><th>v1 id</th><th>problem</th><th>legacy</th>"
        f"<th>v1</th></tr>{rows}</table></section>",
    ]


def _inventory_section(report: Reconciliation) -> list[str]:
    """Every kind the bridge does not write: what the source holds of it and why it stays behind."""
    rows = "".join(
        f"<tr><td>{escape(e.label)}</td>{num(escape(figures(e)))}<td>{escape(e.why)}</td></tr>"
        for e in report.inventory
    )
    return [
        '<section id="inventory"><h2>Not carried</h2>',
        f'<p id="not-carried">{escape(summary(report.inventory))}</p>',
        f"<table><thead><tr><th>kind</th><th>held at source</th><th>why</th></tr></thead><tbody>{rows}</tbody></table>",
        f"<p>Not counted: {escape(report.unlisted)}.</p></section>",
    ]


def _workspace_library(report: Reconciliation) -> list[str]:
    if not report.library:
        return []
    heading = f"Workspace library items that differ from what the runs wrote ({len(report.library)})"
    return [f'<section id="library"><h2>{heading}</h2>', library_table(report.library, "written"), "</section>"]


def _money_section(rows: list[MoneyRow]) -> list[str]:
    """Per currency and phase: both totals, the difference and what quarantine holds back, in money."""
    body = [
        f"<tr>{cell(escape(r.label), 'currency')}{cell(escape(r.phase), 'phase')}"
        f"{cell(money(r.legacy_minor, r.currency), 'legacy', True)}"
        f"{cell(money(r.v1_minor, r.currency) if r.reached_v1 else 'not on v1', 'v1', True)}"
        f"{cell(_signed(r.difference_minor, r.currency), 'difference', True)}"
        f"{cell(money(r.held_back_minor, r.currency), 'held back by quarantine', True)}"
        f"{cell(str(r.verdict), 'verdict', css=str(r.verdict))}</tr>"
        for r in rows
    ]
    return [
        '<section id="money"><table class="money cards"><thead><tr>'
        '<th>currency</th><th>phase</th><th class="num">legacy</th><th class="num">v1</th>'
        '<th class="num">difference</th><th class="num">held back by quarantine</th><th>verdict</th></tr></thead>'
        "<tbody>",
        *body,
        "</tbody></table></section>",
    ]


def _held_back_line(report: Reconciliation) -> str:
    """The held-back sentence, folded to one line on screen (the closing line above says the money already;
    it is long, and the money table and the largest difference come first); printed in full."""
    said = escape(report.held_back.summary)
    if report.held_back.summary == NOTHING_HELD_BACK:
        return f'<p id="held-back" class="meta">{said}</p>'
    return f'<details id="held-back" class="meta"><summary>What quarantine holds back</summary>{said}</details>'


def _not_compared(report: Reconciliation) -> list[str]:
    """The phases verification could not compare and why; the committed phase always gets an answer."""
    said = [
        f"phase {escape(s.name)} {escape(s.why)} (in {s.projects} project{'s' if s.projects > 1 else ''})"
        for s in phases_not_compared(report)
    ]
    committed = committed_compared(report)
    head = f"Committed phases compared: {committed}." if committed else "No committed phase was compared."
    return [f'<p id="not-compared">{head}{" Not compared: " + "; ".join(said) + "." if said else ""}</p>']


def _differences_section(entries: list[Entry], index: dict[int, int]) -> list[str]:
    if not entries:
        return ['<section id="differences"><h2>Differences</h2><p>None: every total compared is exact.</p></section>']
    rows = [_entry_row(n, e, index[id(e.project)]) for n, e in enumerate(entries, 1)]
    return [
        f'<section id="differences"><h2>Differences, largest first ({len(entries)})</h2>',
        '<table class="lead cards"><thead><tr><th class="num">#</th><th class="num">difference</th><th>verdict</th>'
        '<th>project</th><th>total</th><th class="num">legacy<br>v1</th><th class="num">held back</th>'
        "<th>where (open for the accounts, lines and transactions)</th></tr></thead><tbody>",
        *rows,
        "</tbody></table></section>",
    ]


def _entry_row(n: int, entry: Entry, project_index: int) -> str:
    c = entry.currency
    return (
        f'<tr id="difference-{n}">{cell(str(n), "#", True)}'
        f"{cell(_signed(entry.difference_minor, c), 'difference', True)}"
        f"{cell(str(entry.verdict), 'verdict', css=str(entry.verdict))}"
        f"{cell(_link(project_index, entry.project.name), 'project')}"
        f"{cell(escape(entry.what), 'total')}"
        f"{cell(money(entry.legacy_minor, c) + '<br>' + money(entry.v1_minor, c), 'legacy / v1', True)}"
        f"{cell(money(entry.held_back_minor, c), 'held back', True)}"
        f"{cell(_drill(entry), 'where')}</tr>"
    )


def _link(project_index: int, name: str) -> str:
    return f'<a href="#project-{project_index}">{escape(name)}</a>'


def cell(value: str, label: str, numeric: bool = False, css: str = "") -> str:
    """A cell (``value`` already escaped) that names its column, for the narrow layout where each row is a card."""
    classes = " ".join(c for c in ("num" if numeric else "", css) if c)
    attribute = f' class="{classes}"' if classes else ""
    return f'<td data-label="{escape(label)}"{attribute}>{value}</td>'


def _drill(entry: Entry) -> str:
    """The deepest place in one line; opened, every account and line with both figures, then transactions."""
    items = [_step(d) for d in entry.steps] + [f"<li>transaction {escape(t.said())}</li>" for t in entry.moved]
    items += [_transaction(q) for q in entry.transactions]
    if entry.held_back_by:
        items.insert(0, f"<li>held back by {escape(entry.held_back_by)}: it never reached v1</li>")
    if not items:
        return escape(entry.alone)
    # The headline names the place that carries most of the difference; the list keeps the tree's order.
    first = max(entry.steps, key=_size, default=None)
    more = len(items) - 1
    if entry.held_back_by and first is None:
        headline = f"held back by {escape(entry.held_back_by)}"
    elif first is not None:
        headline = _where(first) + (f" and {more} more" if more else "")
    elif entry.moved:
        headline = f"transaction {escape(entry.moved[0].said())}" + (f" and {more} more" if more else "")
    else:
        headline = f"{len(entry.transactions)} transactions held back"
    return f"<details><summary>{headline}</summary><ul>{''.join(items)}</ul></details>"


def _size(d: Difference) -> tuple[bool, int]:
    """Known differences first (a node on one side only has none), then by how much."""
    f = d.figure
    return (f.difference_minor is not None, abs(f.difference_minor or f.legacy_minor or f.v1_minor or 0))


def _where(d: Difference) -> str:
    loc = d.location
    parts = [f"{escape(loc.kind)} {escape(repr(loc.description or loc.line_id or loc.v1_line_id or ''))}"]
    if loc.account_code:
        parts.append(f"account {escape(loc.account_code)}")
    if loc.path:
        # The tree path is the bridge's own address of the account: on screen to find it, not on paper.
        parts.append(f'<span class="internal">{escape(loc.path)}</span>')
    if loc.presence != "both":
        parts.append(f"<em>{escape(str(loc.presence))} on v1</em>")
    return ", ".join(parts)


def _step(d: Difference) -> str:
    f, loc = d.figure, d.location
    ids = f"legacy {escape(loc.line_id or '—')} &rarr; v1 {escape(loc.v1_line_id or '—')}"
    return (
        f'<li><span class="{f.verdict}">{f.verdict}</span> {_where(d)} ({ids}): legacy '
        f"{money(f.legacy_minor, f.currency)}, v1 {money(f.v1_minor, f.currency)}, difference "
        f"{_signed(f.difference_minor, f.currency)}"
        f"{'; held back ' + money(f.quarantined_minor, f.currency) if f.quarantined_minor else ''}</li>"
    )


def _transaction(q: QuarantinedRecord) -> str:
    return f"<li>transaction held back: {escape(q.kind)} {escape(q.legacy_id)} <code>{escape(q.code)}</code></li>"


def _quarantine_section(report: Reconciliation) -> list[str]:
    """Each refused record with its code, the fix and what it holds back; then the held-back money."""
    rows = quarantine_rows(report)
    out = [f'<h2 id="quarantine">Quarantine ({len(rows)} refused source records)</h2>']
    if rows:
        out += [
            '<table class="quarantine-list"><thead><tr><th>kind</th><th>project</th><th>legacy id</th><th>code</th>'
            "<th>fix</th><th>holds back</th><th>message</th></tr></thead><tbody>",
            *(
                f"<tr><td>{escape(r.record.kind)}</td><td>{escape(r.project)}</td><td>{escape(r.record.legacy_id)}</td>"
                f"<td><code>{escape(r.record.code)}</code></td><td>{escape(r.fix)}</td>"
                f"<td>{escape(', '.join(f'{kind} {n}' for kind, n in r.holds_back.items()) or '—')}</td>"
                f"<td>{escape(r.record.message)}</td></tr>"
                for r in rows
            ),
            "</tbody></table>",
        ]
    return out + held_back_section(report)


def _signed(minor: int | None, currency: str) -> str:
    return escape(signed(minor, currency))
