"""`bridge config show`: every setting the migration commands would use, its value and where it came from.

It runs the same loading as `bridge run` (the same options, environment and ``--config`` file, the same
checks), so a mistake shows here first; a secret is never shown, only where it would be read from.
"""

from __future__ import annotations

import json
from pathlib import Path

import click
from rich.table import Table
from rich.text import Text

from bridge.commands import Ending
from bridge.commands.options import setting_options
from bridge.config import (
    ENV_LEGACY_KEY,
    ENV_LEGACY_URL,
    ENV_TOKEN,
    ENV_V1_URL,
    SECRETS,
    Settings,
    Source,
    explain_settings,
)
from bridge.errors import ConfigError
from bridge.terminal import console, shown

# What `bridge run` cannot start without, with the variable that sets each (a --config file may set it too).
REQUIRED = {"legacy_url": ENV_LEGACY_URL, "legacy_key": ENV_LEGACY_KEY, "v1_url": ENV_V1_URL, "token": ENV_TOKEN}
MISSING = "MISSING (required)"


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
@click.option("--json", "as_json", is_flag=True, help="Print the settings as JSON (setting, value, from).")
def show_command(config_file: Path | None, as_json: bool, **options: object) -> Ending:
    """Print each setting, its value (secrets masked) and where it came from: option, environment, TOML file,
    default; exit 2 when a required setting is missing (marked in the table)."""
    settings, sources = explain_settings(config_file, options)
    missing = {name: variable for name, variable in REQUIRED.items() if getattr(settings, name) in (None, "")}
    rows = [
        (name, MISSING if name in missing else _value(settings, name, source), str(source))
        for name, source in sources.items()
    ]
    if as_json:
        click.echo(json.dumps([{"setting": n, "value": v, "from": f} for n, v, f in rows], indent=2))
    else:
        table = Table(title="bridge settings", title_justify="left")
        for header in ("setting", "value", "from"):
            table.add_column(header)
        for name, value, source in rows:
            # Values are the operator's own, but a path or a name may still hold terminal control characters.
            table.add_row(name, Text(shown(value)), Text(shown(source)))
        console().print(table)
    if missing:
        named = ", ".join(f"{name} ({variable})" for name, variable in missing.items())
        raise ConfigError(f"required settings not set: {named}; set each in the environment or the --config file")
    return Ending.DONE
