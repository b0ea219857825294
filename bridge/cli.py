"""The `bridge` command: the only place where errors become exit codes."""

from __future__ import annotations

import importlib
import sys

import click

from bridge import assumptions
from bridge.errors import BridgeError
from bridge.logging import redact_text

# Each subcommand lives in its own module, imported only when that command runs: `bridge status` need not load
# the emulator, and every runbook step starts faster.
SUBCOMMANDS: dict[str, str] = {
    "plan": "bridge.commands.migrate:plan_command",
    "run": "bridge.commands.migrate:run_command",
    "demo": "bridge.commands.demo:demo_command",
    "verify": "bridge.commands.verify:verify_command",
    "status": "bridge.commands.state:status_command",
    "crosswalk": "bridge.commands.state:crosswalk_group",
    "emulate": "bridge.emulator.serve:emulate_command",
}


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


@click.group(cls=LazyGroup)
@click.version_option(package_name="workspace-bridge")
def cli() -> None:
    """Move a workspace's finance data from the legacy key surface to the v1 token surface."""


@cli.command("assumptions")
def assumptions_command() -> None:
    """Print every guess about the parts the service's documents do not show (the README embeds this)."""
    click.echo(assumptions.as_markdown(), nl=False)


def main() -> None:
    """Console-script entry point: a BridgeError becomes its message and exit code, never a traceback."""
    # Click handles its own usage errors and exits; a BridgeError passes through it to here.
    try:
        cli()
    except BridgeError as exc:
        click.echo(f"error: {redact_text(str(exc))}", err=True)
        sys.exit(exc.exit_code)
