"""`bridge config show`: every setting the migration commands would use, its value and where it came from.

It runs the same loading as `bridge run` (the same options, environment and ``--config`` file, the same
checks), so a mistake shows here first; a secret is never shown, only where it would be read from.
"""

from __future__ import annotations

from pathlib import Path

import click
from rich.table import Table
from rich.text import Text

from bridge.commands import Ending
from bridge.commands.options import setting_options
from bridge.config import SECRETS, Settings, Source, explain_settings
from bridge.terminal import console, shown


@click.group("config")
def config_group() -> None:
    """The settings: what the bridge would use, and where each value comes from."""


def _value(settings: Settings, name: str, source: Source) -> str:
    value = getattr(settings, name)
    if name in SECRETS:
        if value is None:
            return "not set"
        # Only where it is read from: no suffix, no length, nothing of the value itself.
        return f"set (from file {source.key_file})" if source.key_file else f"set (from {source.detail})"
    if isinstance(value, tuple):
        return ", ".join(value) or "(all)"
    return "(none)" if value is None or value == "" else str(value)


@config_group.command("show")
@setting_options
def show_command(config_file: Path | None, **options: object) -> Ending:
    """Print each setting, its value (secrets masked) and where it came from: option, environment, TOML file,
    default."""
    settings, sources = explain_settings(config_file, options)
    table = Table(title="bridge settings", title_justify="left")
    for header in ("setting", "value", "from"):
        table.add_column(header)
    for name, source in sources.items():
        # Values are the operator's own, but a path or a name may still hold terminal control characters.
        table.add_row(name, Text(shown(_value(settings, name, source))), Text(shown(source)))
    console().print(table)
    return Ending.DONE
