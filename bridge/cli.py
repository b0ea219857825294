"""The `bridge` command: the only place where errors become exit codes."""

from __future__ import annotations

import sys

import click

from bridge import assumptions
from bridge.errors import BridgeError
from bridge.logging import redact_text


@click.group()
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


# Subcommands are defined in their own modules and registered here, one line each.
from bridge.commands.demo import demo_command  # noqa: E402
from bridge.commands.migrate import plan_command, run_command  # noqa: E402
from bridge.commands.state import crosswalk_group, status_command  # noqa: E402
from bridge.commands.verify import verify_command  # noqa: E402
from bridge.emulator.serve import emulate_command  # noqa: E402

cli.add_command(plan_command)
cli.add_command(run_command)
cli.add_command(demo_command)
cli.add_command(verify_command)
cli.add_command(emulate_command)
cli.add_command(crosswalk_group)
cli.add_command(status_command)
