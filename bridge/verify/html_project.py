"""The detail part of ``reconciliation.html``: one section per project, what quarantine holds back, the ledger.

Per project: the difference chart (``svg.py``), the phase table with the rate used beside each converted
figure, the located differences, tag totals that are not exact, actuals, settings that differ and the
differing accounts as a tree. Every piece of text from either workspace is escaped.
"""

from __future__ import annotations

from collections.abc import Sequence

from bridge.verify.amounts import amount, as_computed, number, signed
from bridge.verify.compare import Verdict
from bridge.verify.safe import escape
from bridge.verify.schema import Figure, KindLedger, LibraryDifference, ProjectReport, Reconciliation, TreeNode
from bridge.verify.svg import Bar, difference_chart


def project_bars(project: ProjectReport) -> list[Bar]:
    """The chart's rows: every phase total, then the actuals per currency."""
    bars = [
        Bar(
            p.name, p.total.legacy_minor, p.total.v1_minor, p.total.quarantined_minor, p.total.currency, p.total.verdict
        )
        for p in project.phases
    ]
    bars += [
        Bar(
            f"actuals {a.currency}",
            a.legacy_minor,
            a.v1_minor if project.v1_project_id else None,
            a.held_back_minor,
            a.currency,
            a.verdict,
        )
        for a in project.actuals
    ]
    return bars


def project_section(project: ProjectReport, currency: str, index: int) -> list[str]:
    out = [
        f'<section class="project" id="project-{index}">',
        f'<h2>{escape(project.name)} <span class="{project.verdict}">{project.verdict}</span></h2>',
        f"<p>legacy <code>{escape(project.project_id)}</code> &rarr; v1 "
        f"<code>{escape(project.v1_project_id or '—')}</code></p>",
        difference_chart(project_bars(project), f"chart-{index}"),
        '<table class="totals"><thead><tr><th>phase</th><th>type</th><th>legacy as computed</th><th>rate</th>'
        "<th>legacy converted</th><th>v1</th><th>difference</th><th>verdict</th><th>fringe</th></tr></thead><tbody>",
    ]
    for phase in project.phases:
        f = phase.total
        legacy = as_computed(f.legacy_amount, f.legacy_currency)
        out.append(
            f"<tr><td>{escape(phase.name)}</td><td>{escape(phase.type)}</td>{num(escape(legacy))}"
            f"{num(escape(f.rate))}{num(money(f.legacy_minor, currency))}{num(money(f.v1_minor, currency))}"
            f'{num(escape(signed(f.difference_minor, currency)))}<td class="{f.verdict}">{f.verdict}</td>'
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
                f"{num(money(diff.figure.legacy_minor, currency))}{num(money(diff.figure.v1_minor, currency))}"
                f'<td class="{diff.figure.verdict}">{diff.figure.verdict}</td><td>{escape(diff.summary)}</td></tr>'
            )
        out.append("</tbody></table>")
    figures = project.inexact_tag_figures()
    out += _tags("Tag totals that are not exact", [t for t in figures if t[3].verdict is not Verdict.NOT_CARRIED])
    # Its own section: money v1 cannot hold is said, never mistaken for a difference in the project's money.
    out += _tags(
        "Not carried: tag totals (v1 publishes no write for a line's tags)",
        [t for t in figures if t[3].verdict is Verdict.NOT_CARRIED],
    )
    if project.actuals:
        out.append(
            '<table class="actuals"><thead><tr><th>actuals currency</th><th>legacy count</th><th>v1 count</th>'
            "<th>legacy</th><th>v1</th><th>verdict</th></tr></thead><tbody>"
        )
        out += [
            f"<tr><td>{escape(a.currency)}</td>{num(a.legacy_count)}{num(a.v1_count)}"
            f"{num(money(a.legacy_minor, a.currency))}{num(money(a.v1_minor, a.currency))}"
            f'<td class="{a.verdict}">{a.verdict}</td></tr>'
            for a in project.actuals
        ]
        out.append("</tbody></table>")
    if project.transactions:
        out += [
            '<h3>Transactions that differ</h3><ul class="transactions">',
            *(f"<li>{escape(t.said())}</li>" for t in project.transactions),
            "</ul>",
        ]
    if project.library:
        out += ["<h3>Settings that differ</h3>", library_table(project.library, "legacy")]
    if project.tree:
        out += ["<h3>Differing accounts</h3>", f'<ul class="tree">{"".join(_tree(n) for n in project.tree)}</ul>']
    if project.purchase_orders is not None:
        lines = project.purchase_orders.lines()
        out += ['<h3>Purchase orders</h3><ul class="orders">', *(f"<li>{escape(line)}</li>" for line in lines), "</ul>"]
    out += [f'<p class="note">{escape(n)}</p>' for n in project.notes]
    out.append("</section>")
    return out


def _tags(heading: str, figures: Sequence[tuple[str, str, str, Figure]]) -> list[str]:
    if not figures:
        return []
    rows = "".join(
        f"<tr><td>{escape(name)}</td><td>{what}</td><td>{escape(phase)}</td>{num(escape(f.rate))}"
        f"{num(money(f.legacy_minor, f.currency))}{num(money(f.v1_minor, f.currency))}"
        f'{num(escape(f.rounding_bound_minor))}<td class="{f.verdict}">{f.verdict}</td></tr>'
        for name, what, phase, f in figures
    )
    return [
        f'<h3>{escape(heading)}</h3><table class="tags"><thead><tr><th>tag</th><th>figure</th><th>phase</th>'
        '<th class="num">rate</th><th class="num">legacy converted</th><th class="num">v1</th>'
        f'<th class="num">bound</th><th>verdict</th></tr></thead><tbody>{rows}</tbody></table>'
    ]


def _tree(node: TreeNode) -> str:
    verdicts = ", ".join(f'{escape(phase)}: <span class="{v}">{v}</span>' for phase, v in node.verdicts.items())
    label = escape(node.label)
    children = f"<ul>{''.join(_tree(c) for c in node.children)}</ul>" if node.children else ""
    presence = "" if node.presence == "both" else f" <em>({node.presence} on v1)</em>"
    return f"<li><strong>{label}</strong>{presence} — {verdicts}{children}</li>"


def held_back_section(report: Reconciliation) -> list[str]:
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
                f"{num(escape(m.rate))}{num(money(m.minor, m.currency))}"
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


def ledger_table(entries: list[KindLedger]) -> str:
    """Per kind where every source record went (migrated counts every run: the crosswalk), then the set check."""
    rows = "".join(
        f"<tr><td>{escape(e.kind)}</td>{num(number(e.source))}{num(number(e.migrated + e.unchanged))}"
        f"{num(number(e.migrated))}{num(number(sum(e.quarantined.values())))}"
        f"{num(number(sum(e.held_back.values())))}{num(number(sum(e.not_carried.values())))}{num(number(e.pending))}"
        f"<td>{'yes' if e.closed else 'no'}</td>"
        f"{num(number(e.ok))}{num(number(len(e.missing)))}{num(number(len(e.unexpected)))}"
        f"{num(number(len(e.duplicated)))}</tr>"
        for e in entries
    )
    heads = "".join(
        f'<th class="num">{h}</th>'
        for h in ("source", "migrated (all runs)", "by the last run", "quarantined", "held back", "not carried")
    )
    checks = "".join(f'<th class="num">{h}</th>' for h in ("ok on v1", "missing", "unexpected", "duplicated"))
    return (
        f'<table class="ledger"><thead><tr><th>kind</th>{heads}<th class="num">pending</th><th>closed</th>{checks}'
        f"</tr></thead><tbody>{rows}</tbody></table>"
    )


def num(value: object) -> str:
    """A right-aligned cell for a figure (already escaped, or a number); figures never wrap."""
    return f"<td class=num>{value}</td>"


def money(minor: int | None, currency: str) -> str:
    """An amount with its currency (``amounts.amount``), escaped."""
    return escape(amount(minor, currency))


def library_table(differences: Sequence[LibraryDifference], written: str) -> str:
    """Settings that differ as a table: ``written`` heads the column of the value the source or the runs gave."""
    rows = "".join(
        f"<tr><td>{escape(d.kind)}</td><td>{escape(d.name)}</td><td>{escape(d.field)}</td>"
        f"<td>{escape(d.legacy or '—')}</td><td>{escape(d.v1 or '—')}</td></tr>"
        for d in differences
    )
    return (
        '<table class="library"><thead><tr><th>kind</th><th>name</th><th>field</th>'
        f"<th>{written}</th><th>v1</th></tr></thead><tbody>{rows}</tbody></table>"
    )
