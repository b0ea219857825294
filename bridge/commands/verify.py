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
from bridge.verify.compare import FailOn, Verdict
from bridge.verify.convert import format_minor
from bridge.verify.inventory import summary as not_carried
from bridge.verify.publish import PublishObserver
from bridge.verify.reconcile import VerifyOptions, verify
from bridge.verify.report import write_reports
from bridge.verify.schema import Reconciliation
from bridge.verify.summary import open_ledgers, summary

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
    # Amounts are never truncated: an accountant reads every digit, so the table may be wider than 80 columns.
    terminal.width = max(terminal.width, 120)
    terminal.print(summary_table(report))
    for project in report.projects:
        if project.purchase_orders is not None:
            click.echo(f"purchase orders of {shown(project.name)}:")
            for said in project.purchase_orders.lines():
                click.echo(f"  {shown(said)}")
    for line in document_lines(report):
        terminal.print(line)
    for path in written:
        click.echo(f"report: {path}")
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


def summary_table(report: Reconciliation) -> Table:
    """Per project and phase: both totals, the difference and the verdict; the caption gives the answer."""
    table = Table(title="reconciliation", title_justify="left", caption_justify="left")
    for header in ("project", "phase", "rate", "legacy", "v1", "difference", "verdict"):
        left = header in ("project", "phase", "verdict")
        table.add_column(header, justify="left" if left else "right", no_wrap=not left)
    for project in report.projects:
        table.add_section()
        for index, phase in enumerate(project.phases):
            f = phase.total
            style = _STYLE[f.verdict]
            table.add_row(
                Text(shown(project.name)) if index == 0 else "",
                Text(shown(phase.name)),
                f.rate,
                format_minor(f.legacy_minor, f.currency),
                format_minor(f.v1_minor, f.currency),
                format_minor(f.difference_minor, f.currency),
                f"[{style}]{f.verdict}[/]",
            )
        located = [d for d in project.differences if d.location.kind != "project"]
        for diff in located[:TERMINAL_DIFFERENCES]:
            style = _STYLE[diff.figure.verdict]
            table.add_row("", Text(shown(diff.location.phase_name)), "", "", "", "", Text(shown(diff.summary), style))
        if len(located) > TERMINAL_DIFFERENCES:
            more = len(located) - TERMINAL_DIFFERENCES
            table.add_row("", "", "", "", "", "", f"... and {more} more in reconciliation.md")
    v = report.verdicts
    answer = Text("RECONCILED", "green") if report.reconciled else Text("NOT RECONCILED", "red")
    still_open = open_ledgers(report)
    # The second line is the held-back summary, built from source text (phase names, ids): plain, never markup.
    table.caption = Text.assemble(
        answer,
        f": {v.exact} exact, {v.rounding} rounding, {v.quarantine} quarantine, "
        f"{v.not_carried} not carried, {v.mismatch} mismatch"
        + (f"; ledger open for {', '.join(still_open)}" if still_open else "; ledger closed")
        + f"; amounts in {report.currency}\n",
        plain(report.held_back.summary),
        "\n",
        plain(not_carried(report.inventory)),
        "\n",
        plain(remarks_report.terminal_line(report.remarks)),
    )
    return table
