"""The options of the commands that read the settings (`plan`, `run`, `verify`, `config show`) and the settings
they make: one declaration, so `bridge config show` shows what a run would use.

Secrets are never options: the legacy key and the v1 token come from ``BRIDGE_LEGACY_KEY`` /
``BRIDGE_V1_TOKEN`` or from a file (``--legacy-key-file`` / ``--token-file``, or ``legacy_key_file`` /
``token_file`` in the ``--config`` TOML), so they never reach shell history, the process list or the resume
command `run` prints.

A module of its own, light to import: `bridge config show` takes the options without loading the engine that
`plan` and `run` drive.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import click

from bridge.config import Settings, load_settings
from bridge.logging import configure_logging
from bridge.terminal import safe_stderr

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
    click.option(
        "--without",
        multiple=True,
        help="Kinds to leave behind, comma-separated (e.g. comments,purchase-orders): counted and reported as "
        "not carried. [none]",
    ),
    click.option(
        "--with",
        "extras",
        multiple=True,
        help="Extras carried only when asked: tax-documents, contact-private, submit-pending. [none]",
    ),
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
