"""The `bridge` command: the only place where errors and endings become exit codes.

Every subcommand returns an ``Ending`` (or nothing, for "done") or raises; ``BridgeGroup.main`` turns either
into an exit code of ``bridge.commands.exits`` (the table docs/exit-codes.md and every command's `--help`
show), for every command alike: 0 done, 1 finished with something to look at, 2 a usage or configuration
error, 3 stopped (run again), 4 fatal, 5 credentials refused, 70 a bug, 130 interrupted by the operator.
"""

from __future__ import annotations

import dataclasses
import difflib
import functools
import gc
import importlib
import json
import sys
import tempfile
import traceback
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

import click

from bridge import assumptions
from bridge.commands import Ending, exits
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
    Ending.DONE: exits.DONE.code,
    Ending.QUARANTINED: exits.FINDINGS.code,
    Ending.DIFFERENCES: exits.FINDINGS.code,
    Ending.NOT_FOUND: exits.FINDINGS.code,
    Ending.MISMATCH: exits.FINDINGS.code,
}


# Its own code, not 3: a refused credential is a setting to fix, which no rerun alone gets past.
CREDENTIALS = exits.CREDENTIALS.code
INTERRUPTED = exits.INTERRUPTED.code
USAGE, STOPPED, FATAL, BUG = exits.USAGE.code, exits.STOPPED.code, exits.FATAL.code, exits.BUG.code


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
        (UsageError, USAGE, "error"),
        (StateLocationError, USAGE, "error"),
        (SchemaTooNewError, USAGE, "error"),
        (StateBindingError, USAGE, "error"),
        (ResumableStop, STOPPED, "stopped"),
        (RetriableError, STOPPED, "stopped"),
        (StateStorageError, STOPPED, "stopped"),
        (StateLockedError, STOPPED, "stopped"),
        (FatalError, FATAL, "fatal"),
        (StateError, FATAL, "fatal"),
        (BridgeError, FATAL, "fatal"),
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
    """The exit code of an error that ended a command: an error outside the tree is a bug."""
    return next((code for cls, code, _ in _errors() if isinstance(error, cls)), BUG)


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
        f"bug: an unexpected error in the bridge ({type(error).__name__}: {plain(str(error))}). Keep the state "
        f"file (a run resumes from its journal) and report this with the traceback in {where}",
        err=True,
    )
    return BUG


def _ended(outcome: object) -> int:
    if outcome is None:
        return 0
    if isinstance(outcome, Ending):
        return ENDINGS[outcome]
    if isinstance(outcome, int):  # click's own exits (--help, --version) and a child's code forwarded by `demo`
        return outcome
    raise TypeError(f"a command ended with {outcome!r}, not an Ending")


def _end_help_with_exit_codes(command: click.Command, path: str, args: list[str]) -> None:
    """The command about to run (and the subcommand ``args`` name, down the groups) ends its --help with the
    codes it can return, drawn from the one table (exits.RETURNS). Only the commands invoked are loaded: some
    groups import a subcommand's module when it runs (`crosswalk rebuild`, `fleet demo`)."""
    if path in exits.RETURNS:
        command.epilog = exits.epilog(path)
    if isinstance(command, click.Group) and args and not args[0].startswith("-"):
        sub = command.get_command(click.Context(command), args[0])
        if sub is not None:
            _end_help_with_exit_codes(sub, f"{path} {args[0]}", args[1:])


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
        """click's own, but an unknown command names the nearest one (`bridge stauts`: did you mean status?), and
        the command found ends its help with its exit codes."""
        try:
            name, command, rest = super().resolve_command(ctx, args)
        except click.UsageError as error:
            near = difflib.get_close_matches(args[0], self.list_commands(ctx), n=1) if args else []
            if not near:
                raise
            raise click.UsageError(f"{error.message} Did you mean {near[0]}?", error.ctx) from None
        if command is not None:
            _end_help_with_exit_codes(command, f"bridge {name}", rest)
        return name, command, rest

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
        except Exception as error:  # noqa: BLE001 (the one place a bug is turned into its exit code with its log)
            code = _bug(error)
        if standalone_mode:
            sys.exit(code)
        return code


@click.group(cls=BridgeGroup, epilog=exits.epilog("bridge"))
@click.version_option(package_name="workspace-bridge")
def cli() -> None:
    """Move a workspace's finance data from the legacy key surface to the v1 token surface."""


@cli.command("assumptions", epilog=exits.epilog("bridge assumptions"))
@click.option("--json", "as_json", is_flag=True, help="Print the registry as JSON (id, topic, text, basis, used_by).")
def assumptions_command(as_json: bool) -> None:
    """Print every guess about the parts the service's documents do not show (docs/assumptions.md embeds this)."""
    if as_json:
        click.echo(json.dumps([dataclasses.asdict(entry) for entry in assumptions.REGISTRY], indent=2))
        return
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
