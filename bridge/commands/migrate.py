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
from rich.text import Text

from bridge.commands import Ending, exits
from bridge.commands.options import connection_options, settings_from
from bridge.commands.orders import show_orders
from bridge.engine.choices import LEFT_OUT, option_name
from bridge.engine.inventory import UNLISTED
from bridge.engine.kinds import spec
from bridge.engine.plan import Plan
from bridge.engine.points import WriteObserver
from bridge.engine.progress import Progress, display, planned
from bridge.engine.run import Outcome, migrate
from bridge.errors import AuthenticationLost, FatalError, Interrupted, ResumableStop, RetriableError, UsageError
from bridge.files import write_private
from bridge.terminal import console, plain, shown
from mappings.inventory import figures
from state.errors import StateCorruptError, StateLockedError, StateStorageError

COLUMNS = (
    "kind",
    "to create",
    "replayed",
    "adopted",
    "to update",
    "unchanged",
    "held back",
    "quarantined (codes)",
    "requests",
)


def render_plan(plan: Plan, title: str) -> Table:
    """The plan (or a run's report) as a terminal table, one row per kind in run order."""
    table = Table(title=title, title_justify="left")
    for header in COLUMNS:
        table.add_column(header, justify="left" if header.startswith(("kind", "quar")) else "right")
    for row in plan.ordered():
        codes = ", ".join(f"{code} x{count}" for code, count in sorted(row.quarantined.items()))
        table.add_row(
            row.kind.value,
            str(row.to_create),
            str(row.replayed),
            str(row.adopted),
            str(row.to_update),
            str(row.unchanged),
            str(row.held_back),
            # A code may be a server's (a v1 refusal): text, never markup.
            Text(shown(f"{sum(row.quarantined.values())} {f'({codes})' if codes else ''}".strip())),
            str(row.requests),
        )
    table.caption = (
        f"{plan.requests} requests, about {plan.estimate_s:.1f} s at {plan.latency_s * 1000:.0f} ms latency "
        f"and concurrency {plan.concurrency}"
    )
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
    context = click.get_current_context()
    words = ["bridge", *context.command_path.split()[1:]]
    for param in context.command.params:
        value = context.params.get(param.name or "")
        if not isinstance(param, click.Option) or value in (None, (), False) or value == param.default:
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


@click.command("plan")
@connection_options
@click.option("--out", type=click.Path(path_type=Path, dir_okay=False), help="Also write the plan as JSON here.")
def plan_command(out: Path | None, **options: object) -> Ending:
    """Dry run: read the source, map it, compare with the state file; write nothing to the target."""
    settings = settings_from(options)
    progress = display(console(stderr=True))
    with progress:
        outcome = _run_guarded(lambda: migrate(settings, dry_run=True, progress=progress))
    console().print(render_plan(outcome.ledger, f"plan for migration {outcome.ledger.migration}"))
    assumed = [entry.id for entry in outcome.ledger.depends_on()]
    click.echo(f"  assumes {', '.join(assumed)} ({len(assumed)} guesses; `bridge assumptions` explains each)")
    if outcome.ledger.unknown_on_target:
        counts = ", ".join(f"{k} {n}" for k, n in sorted(outcome.ledger.unknown_on_target.items()))
        click.echo(f"  the target already holds objects the state file does not know: {counts}")
    _list_removed(outcome.ledger)
    _list_adoption(outcome.ledger, "adopts")
    uploads = outcome.ledger.uploads
    if uploads.count:
        click.echo(f"  uploads {uploads.count:,} documents, {uploads.bytes:,} bytes: billable on v1 (documents_upload)")
        # The plan reads no file's bytes (that is the run's download): a file the legacy surface fails to serve
        # is counted here as an upload, and quarantined by the run.
        click.echo("  (by the sizes the records declare; a file whose legacy download fails is found by the run)")
    _list_not_carried(outcome.ledger)
    show_orders(outcome.ledger, out.parent if out is not None else None)
    if out is not None:
        write_private(out, (json.dumps(outcome.ledger.to_json(), indent=2) + "\n").encode("utf-8"), option="--out")
        click.echo(f"plan written to {out}")
    return Ending.DONE


def _list_left_out(plan: Plan) -> None:
    """The kinds the operator left behind, with what the source holds of each (a run's report)."""
    left = [f"{spec(row.kind).label} {row.left_out:,}" for row in plan.ordered() if row.left_out]
    if left:
        click.echo(f"not carried, {LEFT_OUT}: {', '.join(left)}")


_PHASE_CELL = re.compile(r"^phaseData\.[^.]+\.")


def _list_not_carried(plan: Plan) -> None:
    """What stays behind, grouped, never a line per record (each record is in plan.json): every kind the source
    holds that the run does not write, with its count, money and bytes, then the values of written records that
    v1 publishes no field for, by kind, field and reason."""
    for lossy, count in plan.lossy():
        click.echo(f"{lossy.label}: {count:,} carried with losses: {lossy.losses}")
    click.echo("not carried (each record is listed in the plan's JSON, --out):")
    following = sorted(option_name(spec(k)) for k in plan.choices.without - plan.choices.asked)
    if following:
        asked = ", ".join(sorted(option_name(spec(k)) for k in plan.choices.asked))
        click.echo(f"  left out with {asked}, as they cannot go without it: {', '.join(following)}")
    for row in plan.ordered():
        if row.left_out:
            click.echo(f"  {spec(row.kind).label}: {row.left_out:,}: {LEFT_OUT}")
    for held, stock in plan.held():
        click.echo(f"  {held.label}: {plain(figures(stock))}: {held.why}")
    click.echo(f"  not counted: {UNLISTED}")
    values: Counter[tuple[str, str, str]] = Counter()
    records: dict[tuple[str, str, str], set[tuple[str, str]]] = {}
    for entry in plan.not_carried:
        # One group per field whatever the phase it sits in (``phaseData.<phase>.excludeFringes``).
        key = (entry.kind, _PHASE_CELL.sub("phaseData.<phase>.", entry.field), entry.reason)
        values[key] += 1
        records.setdefault(key, set()).add((entry.scope, entry.legacy_id))
    for (kind, field, reason), count in sorted(values.items()):
        click.echo(
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
    """How far the run came, from what its display counted: N of M records when a plan gave the totals."""
    done = sum(progress.records.values())
    if progress.expected is None:
        return f"{done:,} records (the total is shown with --plan)"
    planned = sum(row.records for row in progress.expected.kinds.values())
    return f"{done:,} of {planned:,} records"


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
    console().print(render_plan(outcome.ledger, f"run {outcome.run_id} of migration {outcome.ledger.migration}"))
    _list_removed(outcome.ledger)
    _list_adoption(outcome.ledger, "adopted")
    _list_left_out(outcome.ledger)
    show_orders(outcome.ledger, settings.report_dir / f"run-{outcome.run_id}")
    if outcome.ledger.quarantine:
        click.echo(f"{len(outcome.ledger.quarantine)} records quarantined:")
    for record in outcome.ledger.quarantine:
        where = f"{record.kind} {shown(record.legacy_id)} ({shown(record.scope)})"
        click.echo(f"  {where}: {shown(record.code)}: {shown(record.message)}")
    return ending
