"""The `bridge` command: the only place where errors and endings become exit codes.

Every subcommand returns an ``Ending`` (or nothing, for "done") or raises; ``BridgeGroup.main`` turns either
into the exit code of the README's table, for every command alike:

    0  done: migrated, planned, reconciled, printed
    1  finished with something to look at: records quarantined (`run`), differences (`verify`), a record or
       kind not in the crosswalk (`crosswalk`); never a stop
    2  usage or configuration error: the message names the setting
    3  stopped and resumable: run the same command again
    4  fatal or a bug: the message says where the log (with the traceback) is; never a raw traceback
"""

from __future__ import annotations

import gc
import importlib
import sys
import tempfile
import traceback
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click
import structlog

from bridge import assumptions
from bridge.commands import Ending
from bridge.errors import BridgeError, FatalError, ResumableStop, RetriableError, UsageError
from bridge.logging import log_file, redact_text
from bridge.terminal import plain
from state.errors import (
    SchemaTooNewError,
    StateBindingError,
    StateError,
    StateLocationError,
    StateLockedError,
    StateStorageError,
)

log = structlog.get_logger("bridge.cli")

ENDINGS: dict[Ending, int] = {Ending.DONE: 0, Ending.QUARANTINED: 1, Ending.DIFFERENCES: 1, Ending.NOT_FOUND: 1}

# First match wins: the state store's branches before its root, which is fatal.
ERRORS: tuple[tuple[type[BaseException], int, str], ...] = (
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

# Each subcommand lives in its own module, imported only when that command runs: `bridge status` need not load
# the emulator, and every runbook step starts faster.
SUBCOMMANDS: dict[str, str] = {
    "plan": "bridge.commands.migrate:plan_command",
    "run": "bridge.commands.migrate:run_command",
    "demo": "bridge.commands.demo:demo_command",
    "verify": "bridge.commands.verify:verify_command",
    "status": "bridge.commands.state:status_command",
    "crosswalk": "bridge.commands.state:crosswalk_group",
    "config": "bridge.commands.config:config_group",
    "emulate": "bridge.emulator.control.serving:emulate_command",
    "fleet": "bridge.commands.fleet:fleet_group",
}


def exit_code(error: BaseException) -> int:
    """The exit code of an error that ended a command (the README's table)."""
    return next((code for cls, code, _ in ERRORS if isinstance(error, cls)), 4)


def _say(label: str, error: BaseException) -> None:
    click.echo(f"{label}: {plain(str(error))}", err=True)
    for note in getattr(error, "__notes__", ()):
        click.echo(plain(str(note)), err=True)


def _bug(error: BaseException) -> int:
    """An error no branch of the tree explains: its traceback to the log (or a file of its own), a pointer here."""
    where = log_file()
    if where is not None:
        log.error("bridge.bug", error=type(error).__name__, exc_info=error)
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
        target = SUBCOMMANDS.get(cmd_name)
        if target is None:
            return super().get_command(ctx, cmd_name)
        module_name, attribute = target.split(":")
        command = getattr(importlib.import_module(module_name), attribute)
        if not isinstance(command, click.Command):
            raise TypeError(f"{target} is not a click command")
        return command


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
            click.echo("stopped: interrupted", err=True)
            code = 3
        except BridgeError as error:
            label = next((label for cls, _, label in ERRORS if isinstance(error, cls)), "fatal")
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
