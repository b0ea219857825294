"""`bridge verify`: compare the totals both surfaces compute, close the ledger, write the reports.

It ends reconciled or with differences (``bridge.cli`` turns that, or the error that stopped it, into the exit
codes of ``bridge.commands.exits``); a stopped verification wrote nothing anywhere but the report directory.
"""

from __future__ import annotations

import json
from pathlib import Path

import click
import uvloop
from rich.table import Table
from rich.text import Text

from bridge.commands import Ending
from bridge.commands.options import connection_options, settings_from
from bridge.engine.progress import display
from bridge.errors import BridgeError
from bridge.terminal import console, plain, shown
from bridge.verify import remarks_report
from bridge.verify.amounts import amount, number, signed
from bridge.verify.closing import closing, ledger_line, plural, totals_compared
from bridge.verify.compare import FailOn, Verdict
from bridge.verify.headline import Entry, by_severity, differences, money_rows
from bridge.verify.inventory import summary as not_carried
from bridge.verify.publish import PublishObserver
from bridge.verify.reconcile import VerifyOptions, verify
from bridge.verify.report import write_reports
from bridge.verify.schema import Reconciliation
from bridge.verify.summary import summary

TERMINAL_DIFFERENCES = 20
_STYLE = {Verdict.EXACT: "green", Verdict.ROUNDING: "yellow", Verdict.QUARANTINE: "magenta", Verdict.MISMATCH: "red"}


@click.command("verify")
@connection_options
@click.option(
    "--report-dir",
    type=click.Path(path_type=Path, file_okay=False),
    help="Where the reports go [default: ./reports/run-<latest run id>].",
)
@click.option("--phase", "phases", multiple=True, help="Legacy phase id or name to compare (repeatable). [all]")
@click.option(
    "--fail-on",
    type=click.Choice([f.value for f in FailOn]),
    default=FailOn.MISMATCH.value,
    show_default=True,
    help="Least severe verdict that fails: 'rounding' also fails rounding- and quarantine-explained totals.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the verdict summary as JSON on stdout, and nothing else.")
def verify_command(
    report_dir: Path | None, phases: tuple[str, ...], fail_on: str, as_json: bool, **options: object
) -> Ending:
    """Verify a migration: legacy totals against v1 totals per project, phase and account, plus the ledger."""
    settings = settings_from(options)
    choice = VerifyOptions(projects=settings.projects, phases=phases, fail_on=FailOn(fail_on))
    try:
        with display(console(stderr=True)):
            report = uvloop.run(verify(settings, choice))
    except BridgeError as stopped:
        stopped.add_note("verification could not finish: no report was written; run the same command again")
        raise
    directory = report_dir or settings.report_dir / f"run-{report.run or 'none'}"
    # Whoever runs the command may hand it an observer of the report writer as click's context object (the
    # crash tests do, to stop the process at a chosen point of the publication); a shell gives none.
    found = click.get_current_context().obj
    written = write_reports(report, directory, found if isinstance(found, PublishObserver) else None)
    ending = Ending.DONE if report.reconciled else Ending.DIFFERENCES
    if as_json:
        # JSON escapes every control character; the secrets are masked like everywhere else.
        click.echo(plain(json.dumps(summary(report, written), indent=2)))
        return ending
    terminal = console()
    # Amounts are never truncated: an accountant reads every digit, so the tables may be wider than 80 columns.
    terminal.width = max(terminal.width, 120)
    for renderable in screen(report):
        terminal.print(renderable)
    for path in written:
        click.echo(f"report: {path}")
    # The answer comes last, where the eye lands when the command returns: the verdict, then what to do.
    ending_said = closing(report)
    terminal.print(Text(ending_said.answer, "green" if report.reconciled else "red"))
    terminal.print(Text(plain(ending_said.next_step)))
    return ending


def document_lines(report: Reconciliation) -> list[Text]:
    """The documents that do not prove their legacy file, one line each (the first few; the rest in the
    reports). Their ids and names are source text: plain, never markup."""
    shown_here = report.documents[:TERMINAL_DIFFERENCES]
    lines = [
        Text(plain(f"document {d.kind} {d.legacy_id} (v1 {d.v1_id}): {d.problem}: legacy {d.legacy}, v1 {d.v1}"), "red")
        for d in shown_here
    ]
    if len(report.documents) > len(shown_here):
        lines.append(Text(f"... and {len(report.documents) - len(shown_here)} more documents in reconciliation.md"))
    return lines


def screen(report: Reconciliation) -> list[Table | Text]:
    """What the terminal shows before the answer: the verdict, the money per currency and phase, the ledger,
    each project's verdict, what quarantine holds back and what is not carried, then the differences largest
    first, last, so that nothing with money in it follows "Differences: none"."""
    answer = Text("RECONCILED", "bold green") if report.reconciled else Text("NOT RECONCILED", "bold red")
    orders = [
        Text(shown(line))
        for project in report.projects
        if project.purchase_orders is not None
        for line in (
            f"purchase orders of {project.name}:",
            *(f"  {said}" for said in project.purchase_orders.lines()),
        )
    ]
    found = differences(report)
    return [
        answer,
        money_table(report),
        Text(f"ledger: {ledger_line(report.ledger)}"),
        project_table(report),
        # Built from source text (phase names, ids): plain, never markup.
        Text(plain(report.held_back.summary)),
        Text(plain(not_carried(report.inventory))),
        Text(plain(remarks_report.terminal_line(report.remarks))),
        *orders,
        *document_lines(report),
        differences_table(report) if found else Text("Differences: none, every total compared is exact"),
    ]


def _table(title: str, *headers: str, left: tuple[str, ...]) -> Table:
    """A table whose figures are right-aligned and never wrap (a header in ``left`` is text)."""
    table = Table(title=title, title_justify="left")
    for header in headers:
        table.add_column(header, justify="left" if header in left else "right", no_wrap=header not in left)
    return table


def money_table(report: Reconciliation) -> Table:
    """Per currency and phase over every project: legacy, v1, the difference and what quarantine holds back."""
    table = _table(
        f"money per currency and phase ({plural(totals_compared(report), 'total')} compared)",
        *("currency", "phase", "legacy", "v1", "difference", "held back", "verdict"),
        left=("currency", "phase", "verdict"),
    )
    for row in money_rows(report):
        table.add_row(
            Text(plain(row.label)),
            Text(shown(row.phase)),
            amount(row.legacy_minor, row.currency),
            amount(row.v1_minor, row.currency) if row.reached_v1 else "not on v1",
            signed(row.difference_minor, row.currency),
            amount(row.held_back_minor, row.currency),
            Text(str(row.verdict), _STYLE.get(row.verdict, "")),
        )
    return table


def project_table(report: Reconciliation) -> Table:
    """Each project's verdict (about its money), most severe first, with its largest difference."""
    table = _table("projects", "project", "verdict", "largest difference", left=("project", "verdict"))
    largest: dict[str, Entry] = {}
    for entry in differences(report):
        largest.setdefault(entry.project.project_id, entry)
    for project in by_severity(report.projects):
        top = largest.get(project.project_id)
        table.add_row(
            Text(shown(project.name)),
            Text(str(project.verdict), _STYLE.get(project.verdict, "")),
            Text(plain(f"{signed(top.difference_minor, top.currency)} {top.what}")) if top else "",
        )
    return table


def differences_table(report: Reconciliation) -> Table:
    """The totals that are not exact, largest first (the first few; every one in the reports)."""
    found = differences(report)
    table = _table(
        f"differences, largest first ({number(len(found))}; the accounts and lines under each in the reports)",
        *("#", "difference", "verdict", "project", "total", "where"),
        left=("verdict", "project", "total", "where"),
    )
    for n, entry in enumerate(found[:TERMINAL_DIFFERENCES], 1):
        table.add_row(
            number(n),
            signed(entry.difference_minor, entry.currency),
            Text(str(entry.verdict), _STYLE.get(entry.verdict, "")),
            Text(shown(entry.project.name)),
            Text(shown(entry.what)),
            Text(shown(_where(entry))),
        )
    if len(found) > TERMINAL_DIFFERENCES:
        table.caption = f"... and {len(found) - TERMINAL_DIFFERENCES:,} more in reconciliation.md"
    return table


def _where(entry: Entry) -> str:
    """What explains one difference, in a cell: the refused record, the first places, or the transactions."""
    if entry.held_back_by:
        return f"held back by {entry.held_back_by}"
    said = [d.summary for d in entry.steps[:2]] + [f"transaction {t.said()}" for t in entry.moved[:2]]
    if entry.transactions:
        said.append(f"{plural(len(entry.transactions), 'transaction')} held back by quarantine")
    return "; ".join(said) or entry.alone
