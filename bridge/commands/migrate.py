"""`bridge plan` and `bridge run`: the migration's commands (``bridge.cli`` turns how they end into the exit
codes of ``bridge.commands.exits``).

Their options are ``bridge.commands.options``'s, and secrets are never among them, so the resume command this
module prints holds none.
"""

from __future__ import annotations

import asyncio
import json
import re
import shlex
import signal
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import click
import uvloop
from rich.table import Table

from bridge.commands import Ending, exits
from bridge.commands.closing import plan_closing, quarantine_lines, run_closing, say
from bridge.commands.options import connection_options, settings_from
from bridge.commands.orders import show_orders
from bridge.config import Settings
from bridge.engine.choices import LEFT_OUT, option_name
from bridge.engine.inventory import UNLISTED
from bridge.engine.kinds import spec
from bridge.engine.plan import KindPlan, Plan
from bridge.engine.points import WriteObserver
from bridge.engine.progress import Progress, display, planned
from bridge.engine.rate import estimate, last_pace
from bridge.engine.run import Outcome, migrate
from bridge.errors import AuthenticationLost, FatalError, Interrupted, ResumableStop, RetriableError, UsageError
from bridge.files import write_private
from bridge.terminal import console, plain, shown
from mappings.inventory import figures
from state import open_state
from state.errors import StateCorruptError, StateLockedError, StateStorageError
from state.models import RunRow

COLUMNS = (
    "kind",
    "to create",
    "replayed",
    "adopted",
    "to update",
    "unchanged",
    "held back",
    "quarantined",
    "requests",
)
KEPT_RUNS = 20
"""Runs the plan's estimate looks back over for the latest one that measured a pace."""

RUN_REPORT = "run.json"
"""The run's whole report (``Plan.to_json`` with the run's id), in the run's report directory."""

# Shown whatever their figures: what a plan is about. A column all zero says nothing and costs a terminal's width.
ALWAYS = ("kind", "to create", "requests")


def _cells(row: KindPlan) -> tuple[str, ...]:
    figures = (
        row.to_create,
        row.replayed,
        row.adopted,
        row.to_update,
        row.unchanged,
        row.held_back,
        sum(row.quarantined.values()),
        row.requests,
    )
    return (row.kind.value, *(f"{n:,}" for n in figures))


def render_plan(plan: Plan, title: str | None = None) -> Table:
    """The plan (or a rebuild's ledger) as a terminal table, one row per kind in run order, thousands
    separated; a column is left out when every row's figure in it is zero (the codes of the quarantined are
    grouped under the table, ``closing.quarantine_lines``)."""
    rows = [_cells(row) for row in plan.ordered()]
    shown_columns = [
        i for i, header in enumerate(COLUMNS) if header in ALWAYS or any(cells[i] != "0" for cells in rows)
    ]
    table = Table(title=title, title_justify="left")
    for i in shown_columns:
        table.add_column(COLUMNS[i], justify="left" if i == 0 else "right", no_wrap=True)
    for cells in rows:
        table.add_row(*(cells[i] for i in shown_columns))
    return table


def _list_removed(plan: Plan) -> None:
    """Records an earlier run wrote that the source no longer holds: never deleted from v1, never unsaid."""
    removed = plan.removed_at_source
    if removed:
        counts = ", ".join(f"{kind.value} {n}" for kind, n in removed.items())
        click.echo(f"removed at source, left on target: {counts}")


def _list_adoption(plan: Plan, verb: str) -> None:
    """Records found on the target that the state did not know (``engine.adopt``), and the target's records
    those lookups listed that nothing matched."""
    adopted = {row.kind.value: row.adopted for row in plan.ordered() if row.adopted}
    if adopted:
        counts = ", ".join(f"{kind} {n:,}" for kind, n in adopted.items())
        click.echo(
            f"  {verb} {sum(adopted.values()):,} records the target already holds and the state did not know "
            f"(found by their natural fields, not created again): {counts}"
        )
    if plan.unmatched_on_target:
        counts = ", ".join(f"{kind.value} {n:,}" for kind, n in plan.unmatched_on_target.items())
        click.echo(f"  on the target, matched to no source record (left as they are): {counts}")


@click.command("rebuild")
@connection_options
def rebuild_command(**options: object) -> Ending:
    """Rebuild a lost or stale state from both surfaces: book what v1 holds, matched by natural fields."""
    settings = settings_from(options)
    progress = display(console(stderr=True))
    with progress:
        outcome = _run_guarded(lambda: migrate(settings, dry_run=True, progress=progress, rebuild=True))
    ledger = outcome.ledger
    console().print(render_plan(ledger, f"crosswalk rebuilt for migration {ledger.migration}"))
    adopted = sum(row.adopted for row in ledger.ordered())
    missing = sum(row.to_create for row in ledger.ordered())
    click.echo(f"booked {adopted:,} records found on the target into the state file; nothing was sent")
    _list_adoption(ledger, "adopted")
    if missing:
        click.echo(
            f"{missing:,} source records are not on the target: `bridge run` creates them (the table's 'to create')"
        )
    click.echo("next: bridge plan, then bridge run")
    return Ending.DONE


def resume_command() -> str:
    """The exact command line to resume, rebuilt from the options given (secrets are never options)."""
    return command_line()


def command_line(name: str | None = None, *, drop: tuple[str, ...] = ()) -> str:
    """The command being run (or its sibling ``name``) with the options given, but those named in ``drop``."""
    context = click.get_current_context()
    path = context.command_path.split()[1:]
    words = ["bridge", *(path if name is None else [*path[:-1], name])]
    for param in context.command.params:
        value = context.params.get(param.name or "")
        if not isinstance(param, click.Option) or value in (None, (), False) or value == param.default:
            continue
        if param.name in drop:
            continue
        flag = max(param.opts, key=len)
        for item in value if isinstance(value, tuple) else (value,):
            words += [flag, str(item)]
    return shlex.join(words)


def _taken_up_again() -> str:
    """`run` resumes from its journal; `plan` and `crosswalk rebuild` have nothing to resume and start again."""
    path = " ".join(["bridge", *click.get_current_context().command_path.split()[1:]])
    return "resume with:" if exits.RETURNS[path].resumes else "run again:"


def _run_guarded(coroutine_factory: Callable[[], object]) -> Outcome:
    """Run the engine, turning SIGINT/SIGTERM into a resumable stop that says how to resume."""

    async def main() -> Outcome:
        loop = asyncio.get_running_loop()
        task = asyncio.current_task()
        assert task is not None
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(signum, task.cancel)
        try:
            result = coroutine_factory()
            assert asyncio.iscoroutine(result)
            return await result  # type: ignore[no-any-return]
        except asyncio.CancelledError:
            raise Interrupted("the run was interrupted by a signal") from None

    try:
        # uvloop, not asyncio's own loop: the engine spends its CPU between awaits, and uvloop's loop and
        # sockets in C take about 4% less of it on `medium` (6 interleaved pairs); the fleet's steps use it too.
        return uvloop.run(main())
    except (ResumableStop, RetriableError, StateStorageError, StateLockedError) as stop:
        # A refused credential is fixed first: its message names the variable, and no "resume" hides that.
        if not isinstance(stop, AuthenticationLost):
            stop.add_note(f"{_taken_up_again()}  {resume_command()}")
        raise
    except (FatalError, StateCorruptError) as fatal:
        fatal.add_note("keep the state file and the log file, and report this; do not delete the state file")
        raise


def _kept_runs(settings: Settings) -> list[RunRow]:
    """The state file's latest runs, newest first (the plan's estimate and the run's closing line read them)."""
    with open_state(str(settings.state), read_only=True, migration=settings.migration) as store:
        return store.runs.last_runs(KEPT_RUNS)


def _next_run(out: Path | None) -> str:
    """The run that follows this plan: the plan's own options, with the plan file when one was written."""
    words = shlex.split(command_line("run", drop=("out", "as_json")))
    return shlex.join([*words, "--plan", str(out)] if out is not None else words)


@click.command("plan")
@connection_options
@click.option("--out", type=click.Path(path_type=Path, dir_okay=False), help="Also write the plan as JSON here.")
@click.option(
    "--json", "as_json", is_flag=True, help="Print the plan as JSON on stdout (what --out writes), and nothing else."
)
def plan_command(out: Path | None, as_json: bool, **options: object) -> Ending:
    """Dry run: read the source, map it, compare with the state file; write nothing to the target."""
    settings = settings_from(options)
    # The bars go when the plan is made: the plan's table says the same, and the terminal keeps its lines.
    progress = display(console(stderr=True), transient=True)
    with progress:
        outcome = _run_guarded(lambda: migrate(settings, dry_run=True, progress=progress))
    ledger = outcome.ledger
    if out is not None:
        write_private(out, (json.dumps(ledger.to_json(), indent=2) + "\n").encode("utf-8"), option="--out")
    if as_json:
        # JSON escapes every control character; the secrets are masked like everywhere else.
        click.echo(plain(json.dumps(ledger.to_json(), indent=2)))
        return Ending.DONE
    # A line of its own, not the table's title: rich would wrap a title wider than the table.
    click.echo(f"plan for migration {ledger.migration} (concurrency {ledger.concurrency})")
    console().print(render_plan(ledger))
    assumed = [entry.id for entry in ledger.depends_on()]
    say(f"  assumes {len(assumed)} guesses (`bridge assumptions` explains each): {', '.join(assumed)}")
    if ledger.unknown_on_target:
        counts = ", ".join(f"{k} {n:,}" for k, n in sorted(ledger.unknown_on_target.items()))
        say(f"  the target already holds objects the state file does not know: {counts}")
    _list_removed(ledger)
    _list_adoption(ledger, "adopts")
    uploads = ledger.uploads
    if uploads.count:
        # The plan reads no file's bytes (that is the run's download): a file the legacy surface fails to serve
        # is counted here as an upload, and quarantined by the run.
        say(
            f"  uploads {uploads.count:,} documents, {uploads.bytes:,} bytes, billable on v1 (by the sizes the "
            "records declare; a file whose legacy download fails is found by the run)"
        )
    _list_not_carried(ledger)
    _list_quarantine(ledger)
    show_orders(ledger, out.parent if out is not None else None)
    if out is not None:
        click.echo(f"plan written to {out}")
    listed = f"each listed in {out}" if out is not None else "each listed with --out FILE or --json"
    click.echo(plan_closing(ledger, estimate(ledger, last_pace(_kept_runs(settings))), listed))
    click.echo(f"next: {_next_run(out)}")
    return Ending.DONE


def _list_quarantine(plan: Plan) -> None:
    """The records refused, grouped by kind and code (each one is listed in plan.json)."""
    lines = quarantine_lines(plan)
    if lines:
        click.echo("quarantined (by kind and code):")
    for line in lines:
        say(line)


def _list_left_out(plan: Plan) -> None:
    """The kinds the operator left behind, with what the source holds of each (a run's report)."""
    left = [f"{spec(row.kind).label} {row.left_out:,}" for row in plan.ordered() if row.left_out]
    if left:
        say(f"not carried, {LEFT_OUT}: {', '.join(left)}")


_PHASE_CELL = re.compile(r"^phaseData\.[^.]+\.")


def _list_not_carried(plan: Plan) -> None:
    """What stays behind, grouped, one line per reason, never a line per record (each record is in plan.json):
    every kind the source holds that the run does not write, with its count, money and bytes, then the values
    of written records that v1 publishes no field for, by kind, field and reason."""
    for lossy, count in plan.lossy():
        say(f"{lossy.label}: {count:,} carried with losses: {lossy.losses}")
    click.echo("not carried (by reason; each record in the plan's JSON):")
    following = sorted(option_name(spec(k)) for k in plan.choices.without - plan.choices.asked)
    if following:
        asked = ", ".join(sorted(option_name(spec(k)) for k in plan.choices.asked))
        say(f"  left out with {asked}, as they cannot go without it: {', '.join(following)}")
    for row in plan.ordered():
        if row.left_out:
            say(f"  {spec(row.kind).label}: {row.left_out:,}: {LEFT_OUT}")
    for held, stock in plan.held():
        say(f"  {held.label}: {plain(figures(stock))}: {held.why}")
    say(f"  not counted: {UNLISTED}")
    values: Counter[tuple[str, str, str]] = Counter()
    records: dict[tuple[str, str, str], set[tuple[str, str]]] = {}
    for entry in plan.not_carried:
        # One group per field whatever the phase it sits in (``phaseData.<phase>.excludeFringes``).
        key = (entry.kind, _PHASE_CELL.sub("phaseData.<phase>.", entry.field), entry.reason)
        values[key] += 1
        records.setdefault(key, set()).add((entry.scope, entry.legacy_id))
    for (kind, field, reason), count in sorted(values.items()):
        say(
            f"  {plain(kind)} {plain(field)}: {count:,} values on {len(records[(kind, field, reason)]):,} records: "
            f"{plain(reason)}"
        )


def _expected(plan_file: Path) -> Plan:
    """The plan `run --plan` follows (its totals and estimate feed the progress display)."""
    try:
        return planned(json.loads(plan_file.read_text(encoding="utf-8")))
    except (ValueError, TypeError, AttributeError, UnicodeDecodeError) as exc:
        raise UsageError(
            f"--plan {plan_file} is not a plan.json written by `bridge plan --out` ({type(exc).__name__}: {exc}); "
            "write one with `bridge plan --out plan.json`, or run without --plan"
        ) from None


def _moved(progress: Progress) -> str:
    """How far the run came, from what its display counted: N of the M records known (read, or planned)."""
    done, known = progress.overall()
    return f"{done:,} of {known:,} records"


@click.command("run")
@connection_options
@click.option(
    "--plan",
    "plan_file",
    type=click.Path(path_type=Path, dir_okay=False, exists=True),
    help="A plan.json from `bridge plan --out`: each bar's total and the time left come from it.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the run's report as JSON on stdout, and nothing else.")
def run_command(plan_file: Path | None, as_json: bool, **options: object) -> Ending:
    """Migrate: resume what was in flight, then write everything new or changed, in dependency order."""
    settings = settings_from(options)
    expected = _expected(plan_file) if plan_file is not None else None
    progress = display(console(stderr=True), expected)
    # Whoever runs the command may hand it an observer of the writes as click's context object (the crash
    # tests do, to stop the process at a chosen point); `bridge run` from a shell has none.
    found = click.get_current_context().obj
    observer = found if isinstance(found, WriteObserver) else None
    try:
        with progress:
            outcome = _run_guarded(lambda: migrate(settings, dry_run=False, progress=progress, observer=observer))
    except Interrupted as stop:
        stop.message = f"the run was interrupted after {_moved(progress)}"
        raise
    ending = Ending.QUARANTINED if outcome.ledger.quarantine else Ending.DONE
    if as_json:
        # The report the state file keeps with the run (`bridge status`), with the run's id; JSON escapes every
        # control character, and the secrets are masked like everywhere else.
        click.echo(plain(json.dumps({"run_id": outcome.run_id, **outcome.ledger.to_json()}, indent=2)))
        return ending
    ledger = outcome.ledger
    directory = settings.report_dir / f"run-{outcome.run_id}"
    report = directory / RUN_REPORT
    directory.mkdir(parents=True, exist_ok=True)
    body = json.dumps({"run_id": outcome.run_id, **ledger.to_json()}, indent=2) + "\n"
    write_private(report, body.encode("utf-8"), option="the run's report")
    click.echo(f"run {outcome.run_id} of migration {ledger.migration} (concurrency {ledger.concurrency})")
    _list_removed(ledger)
    _list_adoption(ledger, "adopted")
    _list_left_out(ledger)
    _list_not_carried(ledger)
    show_orders(ledger, directory)
    if ledger.quarantine:
        click.echo(f"{len(ledger.quarantine):,} records quarantined:")
    for record in ledger.quarantine:
        where = f"{record.kind} {shown(record.legacy_id)} ({shown(record.scope)})"
        click.echo(f"  {where}: {shown(record.code)}: {shown(record.message)}")
    click.echo(run_closing(ledger, _seconds(settings, outcome.run_id), f"each listed in {report}"))
    click.echo(f"next: {command_line('verify', drop=('plan_file', 'as_json'))}")
    return ending


def _seconds(settings: Settings, run_id: int | None) -> float:
    """The run's wall time as the state file keeps it (what the next plan's estimate reads)."""
    run = next((run for run in _kept_runs(settings) if run.id == run_id), None)
    if run is None or run.finished_at is None:
        return 0.0
    return (run.finished_at - run.started_at).total_seconds()
