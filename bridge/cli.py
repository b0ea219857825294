"""The `bridge` command: the only place where errors and endings become exit codes.

Every subcommand returns an ``Ending`` (or nothing, for "done") or raises; ``BridgeGroup.main`` turns either
into the exit code of the README's table, for every command alike:

    0  done: migrated, planned, reconciled, printed
    1  finished with something to look at: records quarantined (`run`), differences (`verify`), a record or
       kind not in the crosswalk (`crosswalk`); never a stop
    2  usage or configuration error: the message names the setting
    3  stopped and resumable: run the same command again
    130 interrupted by the operator (SIGINT/SIGTERM, Ctrl-C): nothing lost; run the same command again
    4  fatal or a bug: the message says where the log (with the traceback) is; never a raw traceback
    5  credentials refused (a 401): the message names the variable to set
"""

from __future__ import annotations

import difflib
import functools
import gc
import importlib
import sys
import tempfile
import traceback
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

import click

from bridge import assumptions
from bridge.commands import Ending
from bridge.errors import (
    AuthenticationLost,
    BridgeError,
    FatalError,
    Interrupted,
    ResumableStop,
    RetriableError,
    UsageError,
)

# Start-up imports only what every command needs: `bridge --help` lists the commands without loading one
# (click, this module, the errors), and each command module loads what its command uses. What the endings
# below need (the terminal's text rules with logging and the settings; the state store with SQLAlchemy) is
# imported when a command ends in an error, where it is mostly loaded already.

ENDINGS: dict[Ending, int] = {
    Ending.DONE: 0,
    Ending.QUARANTINED: 1,
    Ending.DIFFERENCES: 1,
    Ending.NOT_FOUND: 1,
    Ending.MISMATCH: 1,
}


# Its own code, not 3: a refused credential is a setting to fix, which no rerun alone gets past.
CREDENTIALS = 5
# The shell's own code for a process ended by SIGINT (128 + 2): a script tells the operator's stop from a failure.
INTERRUPTED = 130


@functools.cache
def _errors() -> tuple[tuple[type[BaseException], int, str], ...]:
    """Each error class with its exit code and label; the first match wins: the state store's branches before
    its root, which is fatal."""
    from state.errors import (  # noqa: PLC0415 -- state loads SQLAlchemy: on the first error, not at start-up
        SchemaTooNewError,
        StateBindingError,
        StateError,
        StateLocationError,
        StateLockedError,
        StateStorageError,
    )

    return (
        (Interrupted, INTERRUPTED, "interrupted"),
        (AuthenticationLost, CREDENTIALS, "credentials refused"),
        (UsageError, 2, "error"),
        (StateLocationError, 2, "error"),
        (SchemaTooNewError, 2, "error"),
        (StateBindingError, 2, "error"),
        (ResumableStop, 3, "stopped"),
        (RetriableError, 3, "stopped"),
        (StateStorageError, 3, "stopped"),
        (StateLockedError, 3, "stopped"),
        (FatalError, 4, "fatal"),
        (StateError, 4, "fatal"),
        (BridgeError, 4, "fatal"),
    )


class Lazy(NamedTuple):
    """A subcommand that lives in its own module, imported only when that command runs: `bridge status` need
    not load the emulator, and every runbook step starts faster."""

    target: str
    """``module:attribute`` of the click command."""
    summary: str
    """The first paragraph of the command's help: the line `bridge --help` lists without importing the module
    (tests/test_startup.py holds it equal to the command's own)."""


SUBCOMMANDS: dict[str, Lazy] = {
    "plan": Lazy(
        "bridge.commands.migrate:plan_command",
        "Dry run: read the source, map it, compare with the state file; write nothing to the target.",
    ),
    "run": Lazy(
        "bridge.commands.migrate:run_command",
        "Migrate: resume what was in flight, then write everything new or changed, in dependency order.",
    ),
    "demo": Lazy(
        "bridge.commands.demo:demo_command",
        "Migrate a seeded emulator workspace end to end, with faults, a SIGKILL and a resume.",
    ),
    "verify": Lazy(
        "bridge.commands.verify:verify_command",
        "Verify a migration: legacy totals against v1 totals per project, phase and account, plus the ledger.",
    ),
    "status": Lazy(
        "bridge.commands.state:status_command",
        "One line on where the migration is, then the last runs, records per kind, the journal, and what next.",
    ),
    "crosswalk": Lazy("bridge.commands.state:crosswalk_group", "Which v1 object each legacy record became."),
    "config": Lazy(
        "bridge.commands.config:config_group",
        "The settings: what the bridge would use, and where each value comes from.",
    ),
    "emulate": Lazy(
        "bridge.emulator.control.serving:emulate_command",
        "Serve the emulated service (legacy /api/v1, v1 /v1, control /_emulator) until stopped.",
    ),
    "cutover": Lazy(
        "bridge.commands.cutover:cutover_group",
        "Cut a project over: check readiness, declare the freeze, finalize with a signed certificate, verify it.",
    ),
    "sync": Lazy(
        "bridge.commands.sync:sync_group",
        "Keep v1 in step with legacy: creates, updates and deletes, never over a v1 edit (a conflict instead).",
    ),
    "conflicts": Lazy(
        "bridge.commands.sync:conflicts_group",
        "Records changed on both legacy and v1 since the bridge wrote them: list them, take a side.",
    ),
    "fleet": Lazy(
        "bridge.commands.fleet:fleet_group",
        "Move many workspaces: a queue and every state in one PostgreSQL database, workers anywhere.",
    ),
}


def exit_code(error: BaseException) -> int:
    """The exit code of an error that ended a command (the README's table)."""
    return next((code for cls, code, _ in _errors() if isinstance(error, cls)), 4)


def _say(label: str, error: BaseException) -> None:
    from bridge.terminal import plain  # noqa: PLC0415 -- see the imports above

    click.echo(f"{label}: {plain(str(error))}", err=True)
    for note in getattr(error, "__notes__", ()):
        click.echo(plain(str(note)), err=True)


def _bug(error: BaseException) -> int:
    """An error no branch of the tree explains: its traceback to the log (or a file of its own), a pointer here."""
    import structlog  # noqa: PLC0415 -- see the imports above

    from bridge.logging import log_file, redact_text  # noqa: PLC0415
    from bridge.terminal import plain  # noqa: PLC0415

    where = log_file()
    if where is not None:
        structlog.get_logger("bridge.cli").error("bridge.bug", error=type(error).__name__, exc_info=error)
    else:
        text = redact_text("".join(traceback.format_exception(error)))
        # mkstemp creates the file 0600: a traceback may quote source records.
        handle, name = tempfile.mkstemp(prefix="bridge-bug-", suffix=".log")
        with open(handle, "w", encoding="utf-8") as out:
            out.write(text)
        where = Path(name)
    click.echo(
        f"fatal: a bug in the bridge ({type(error).__name__}: {plain(str(error))}). Keep the state file (a run "
        f"resumes from its journal) and report this with the traceback in {where}",
        err=True,
    )
    return 4


def _ended(outcome: object) -> int:
    if outcome is None:
        return 0
    if isinstance(outcome, Ending):
        return ENDINGS[outcome]
    if isinstance(outcome, int):  # click's own exits (--help, --version) and a child's code forwarded by `demo`
        return outcome
    raise TypeError(f"a command ended with {outcome!r}, not an Ending")


class LazyGroup(click.Group):
    """A click group that imports a subcommand's module on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted([*super().list_commands(ctx), *SUBCOMMANDS])

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        lazy = SUBCOMMANDS.get(cmd_name)
        if lazy is None:
            return super().get_command(ctx, cmd_name)
        module_name, attribute = lazy.target.split(":")
        command = getattr(importlib.import_module(module_name), attribute)
        if not isinstance(command, click.Command):
            raise TypeError(f"{lazy.target} is not a click command")
        return command

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        """click's own, but an unknown command names the nearest one (`bridge stauts`: did you mean status?)."""
        try:
            return super().resolve_command(ctx, args)
        except click.UsageError as error:
            near = difflib.get_close_matches(args[0], self.list_commands(ctx), n=1) if args else []
            if not near:
                raise
            raise click.UsageError(f"{error.message} Did you mean {near[0]}?", error.ctx) from None

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """click's own list of commands (``click.Group.format_commands``), but a lazy command is stood in for by
        one that holds only its summary: click reads each line through ``get_command``, which would import every
        command's module (1.5 s and 115 MB before `bridge --help` printed)."""
        listed = [(name, self._listed(ctx, name)) for name in self.list_commands(ctx)]
        commands = [(name, command) for name, command in listed if command is not None and not command.hidden]
        limit = formatter.width - 6 - max(len(name) for name, _ in commands)
        with formatter.section("Commands"):
            formatter.write_dl([(name, command.get_short_help_str(limit)) for name, command in commands])

    def _listed(self, ctx: click.Context, name: str) -> click.Command | None:
        lazy = SUBCOMMANDS.get(name)
        return super().get_command(ctx, name) if lazy is None else click.Command(name, help=lazy.summary)


class BridgeGroup(LazyGroup):
    """The `bridge` group: runs a command, then decides its exit code from how it ended (``main`` is what
    click's test runner and the console script both call)."""

    def main(  # type: ignore[override]
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> int:
        try:
            code = _ended(super().main(args, prog_name, complete_var, standalone_mode=False, **extra))
        except click.ClickException as usage:
            usage.show()
            code = usage.exit_code
        except click.exceptions.Abort:
            # click's form of Ctrl-C (KeyboardInterrupt) outside a run, which says its own line (Interrupted).
            click.echo("interrupted: nothing is lost; run the same command again", err=True)
            code = INTERRUPTED
        except BridgeError as error:
            label = next((label for cls, _, label in _errors() if isinstance(error, cls)), "fatal")
            _say(label, error)
            code = exit_code(error)
        except Exception as error:  # noqa: BLE001 (the one place a bug is turned into exit 4 with its log)
            code = _bug(error)
        if standalone_mode:
            sys.exit(code)
        return code


@click.group(cls=BridgeGroup)
@click.version_option(package_name="workspace-bridge")
def cli() -> None:
    """Move a workspace's finance data from the legacy key surface to the v1 token surface."""


@cli.command("assumptions")
def assumptions_command() -> None:
    """Print every guess about the parts the service's documents do not show (the README embeds this)."""
    click.echo(assumptions.as_markdown(), nl=False)


def main() -> None:
    """Console-script entry point: every ending and error becomes its exit code, never a traceback."""
    try:
        cli.main()
    finally:
        # The process ends here. Frozen, the heap is not walked again by the collections of the interpreter's
        # shutdown: that walk took ~0.4 s of CPU after every command (and a loaded fleet worker ~0.8 s);
        # atexit handlers, log flushing and module teardown still run.
        gc.freeze()
