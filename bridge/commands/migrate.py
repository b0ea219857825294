"""`bridge plan` and `bridge run`: the migration's commands and their options (``bridge.cli`` turns how they
end into the exit codes of ``EXIT_CODES``).

Secrets are never options: the legacy key and the v1 token come from ``BRIDGE_LEGACY_KEY`` /
``BRIDGE_V1_TOKEN`` or from a file (``--legacy-key-file`` / ``--token-file``, or ``legacy_key_file`` /
``token_file`` in the ``--config`` TOML), so they never reach shell history, the process list or the resume
command this module prints.
"""

from __future__ import annotations

import asyncio
import json
import shlex
import signal
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import click
import uvloop
from rich.table import Table
from rich.text import Text

from bridge.commands import Ending
from bridge.config import Settings, load_settings
from bridge.engine.plan import Plan
from bridge.engine.progress import display, planned
from bridge.engine.run import Interrupted, Outcome, migrate
from bridge.errors import FatalError, ResumableStop, RetriableError, UsageError
from bridge.files import write_private
from bridge.logging import configure_logging
from bridge.terminal import console, plain, safe_stderr, shown
from state.errors import StateCorruptError, StateLockedError, StateStorageError

EXIT_CODES = """\b
Exit codes:
  0  everything migrated (or, for plan, the plan was made)
  1  finished, but some records are quarantined (they are listed)
  2  usage or configuration error
  3  stopped and resumable (credentials revoked, retry budget exhausted, a source read refused,
     SIGINT/SIGTERM, another run on the same state file): run the printed command to resume
  4  fatal: a bug-class error such as idempotency_conflict; report it with the log file"""

F = TypeVar("F", bound=Callable[..., object])

_OPTIONS: tuple[Callable[[F], F], ...] = (
    click.option("--config", "config_file", type=click.Path(path_type=Path, dir_okay=False), help="TOML settings."),
    click.option("--legacy-url", help="Legacy base URL ending in /api/v1 [env BRIDGE_LEGACY_URL]."),
    click.option(
        "--legacy-key-file",
        type=click.Path(path_type=Path, dir_okay=False),
        help="File holding the legacy API key [or env BRIDGE_LEGACY_KEY; never an option value].",
    ),
    click.option("--v1-url", help="v1 base URL ending in /v1 [env BRIDGE_V1_URL]."),
    click.option(
        "--token-file",
        type=click.Path(path_type=Path, dir_okay=False),
        help="File holding the v1 token [or env BRIDGE_V1_TOKEN; never an option value].",
    ),
    click.option("--state", help="State file or SQLAlchemy URL [env BRIDGE_STATE]."),
    click.option("--migration", help="Idempotency-key namespace [default: derived from both workspaces]."),
    click.option("--project", "projects", multiple=True, help="Legacy project id to migrate (repeatable).[all]"),
    click.option("--concurrency", type=click.IntRange(1, 64), help="Requests in flight at once [8]."),
    click.option("--log-file", type=click.Path(path_type=Path, dir_okay=False), help="JSON-lines log file."),
)
_LOG_LEVEL: Callable[[F], F] = click.option(
    "--log-level",
    type=click.Choice(["DEBUG", "INFO", "WARNING", "ERROR"], case_sensitive=False),
    default="WARNING",
    show_default=True,
    help="Least severe event shown on the terminal (the log file gets INFO, or DEBUG when asked).",
)


def setting_options(command: F) -> F:
    """The options that set a setting (also taken by `bridge config show`, to show what they would do)."""
    for option in reversed(_OPTIONS):
        command = option(command)
    return command


def connection_options(command: F) -> F:
    """The options every command that talks to both surfaces takes (also used by `bridge verify`)."""
    return setting_options(_LOG_LEVEL(command))


def settings_from(options: dict[str, object]) -> Settings:
    """Settings from the command's options, the environment and the --config file; logging set up for them.

    The log file gets every event at INFO (DEBUG when that is the level asked); the terminal what
    ``--log-level`` asks, warnings by default, so the progress display stays readable. The terminal's lines
    are escaped like source text and printed above a live display.
    """
    level = str(options.pop("log_level", None) or "WARNING").upper()
    settings = _load(options)
    secrets = [s for s in (settings.legacy_key, settings.token) if s is not None]
    configure_logging(
        "DEBUG" if level == "DEBUG" else "INFO",
        log_file=settings.log_file,
        secrets=secrets,
        console=safe_stderr(),
        console_level=level,
    )
    return settings


def _load(options: dict[str, object]) -> Settings:
    config_file = options.pop("config_file", None)
    return load_settings(config_file if isinstance(config_file, Path) else None, options)


COLUMNS = ("kind", "to create", "replayed", "to update", "unchanged", "held back", "quarantined (codes)", "requests")


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


def resume_command() -> str:
    """The exact command line to resume, rebuilt from the options given (secrets are never options)."""
    context = click.get_current_context()
    words = ["bridge", context.info_name or "run"]
    for param in context.command.params:
        value = context.params.get(param.name or "")
        if not isinstance(param, click.Option) or value in (None, (), False) or value == param.default:
            continue
        flag = max(param.opts, key=len)
        for item in value if isinstance(value, tuple) else (value,):
            words += [flag, str(item)]
    return shlex.join(words)


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
        stop.add_note(f"resume with:  {resume_command()}")
        raise
    except (FatalError, StateCorruptError) as fatal:
        fatal.add_note("keep the state file and the log file, and report this; do not delete the state file")
        raise


@click.command("plan", epilog=EXIT_CODES)
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
    _list_not_carried(outcome.ledger)
    if out is not None:
        write_private(out, (json.dumps(outcome.ledger.to_json(), indent=2) + "\n").encode("utf-8"), option="--out")
        click.echo(f"plan written to {out}")
    return Ending.DONE


def _list_not_carried(plan: Plan) -> None:
    """Per record, each source value v1 publishes no write for: never dropped without a word."""
    by_record: dict[tuple[str, str, str], list[str]] = {}
    for entry in plan.not_carried:
        value = f"{entry.field}={shown(entry.value)}" if entry.value is not None else entry.field
        by_record.setdefault((entry.kind, entry.scope, entry.legacy_id), []).append(value)
    if by_record:
        click.echo(f"{len(by_record)} records have values not carried: no published write on v1:")
    for (kind, scope, legacy_id), values in sorted(by_record.items()):
        where = f"{kind} {shown(legacy_id)} ({shown(scope)})"
        click.echo(f"  {where}: not carried: no published write: {plain(', '.join(values))}")


def _expected(plan_file: Path) -> Plan:
    """The plan `run --plan` follows (its totals and estimate feed the progress display)."""
    try:
        return planned(json.loads(plan_file.read_text(encoding="utf-8")))
    except (ValueError, TypeError, AttributeError, UnicodeDecodeError) as exc:
        raise UsageError(
            f"--plan {plan_file} is not a plan.json written by `bridge plan --out` ({type(exc).__name__}: {exc}); "
            "write one with `bridge plan --out plan.json`, or run without --plan"
        ) from None


@click.command("run", epilog=EXIT_CODES)
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
    with progress:
        outcome = _run_guarded(lambda: migrate(settings, dry_run=False, progress=progress))
    ending = Ending.QUARANTINED if outcome.ledger.quarantine else Ending.DONE
    if as_json:
        # The report the state file keeps with the run (`bridge status`), with the run's id; JSON escapes every
        # control character, and the secrets are masked like everywhere else.
        click.echo(plain(json.dumps({"run_id": outcome.run_id, **outcome.ledger.to_json()}, indent=2)))
        return ending
    console().print(render_plan(outcome.ledger, f"run {outcome.run_id} of migration {outcome.ledger.migration}"))
    _list_removed(outcome.ledger)
    if outcome.ledger.quarantine:
        click.echo(f"{len(outcome.ledger.quarantine)} records quarantined:")
    for record in outcome.ledger.quarantine:
        where = f"{record.kind} {shown(record.legacy_id)} ({shown(record.scope)})"
        click.echo(f"  {where}: {shown(record.code)}: {shown(record.message)}")
    return ending
