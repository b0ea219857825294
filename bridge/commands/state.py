"""`bridge crosswalk export|lookup` and `bridge status`: what the state file knows, for operators and scripts.

These commands only read: they open the state in SQLite's read-only mode without registering as a writer, so
they can run while a migration is in progress (WAL readers never block the writer), and never create, chmod or
upgrade a state file (an older schema is exit 2 naming `bridge plan`). ``export --out`` writes a file of mode
0600 (``bridge.files``); its CSV neutralises formula-like cells (``state.crosswalk.csv_cell``).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

import click

from bridge.commands import Ending
from bridge.commands.status_view import headline, last_verify, next_step, render
from bridge.config import ENV_STATE, load_settings
from bridge.files import write_private
from bridge.terminal import plain
from state import StateStore, open_state
from state.crosswalk import ExportFormat
from state.errors import StateCorruptError
from state.status import status_of

F = TypeVar("F", bound=Callable[..., object])


def _state_options(command: F) -> F:
    command = click.option(
        "--migration",
        default=None,
        help="Which migration of a shared PostgreSQL state (its --migration name); a state file holds one.",
    )(command)
    command = click.option(
        "--config", "config_file", type=click.Path(path_type=Path, dir_okay=False), help="TOML settings (its `state`)."
    )(command)
    return click.option(
        "--state",
        envvar=ENV_STATE,
        default=None,
        metavar="PATH|URL",
        help=f"State file or SQLAlchemy URL [env {ENV_STATE}; else --config; else the bridge's default].",
    )(command)


@contextmanager
def _reading(state: str | None, config_file: Path | None, migration: str | None) -> Iterator[StateStore]:
    """Open the state for reading (a state or configuration error propagates to ``bridge.cli``)."""
    # An explicit --state / BRIDGE_STATE is used as typed (a URL must not go through Path); otherwise the
    # same Settings as `bridge run` decide, so every command finds the file the run wrote.
    settings = load_settings(config_file, {"migration": migration})
    location = state if state is not None else str(settings.state)
    with open_state(location, read_only=True, migration=settings.migration) as store:
        yield store


class _Crosswalk(click.Group):
    """The crosswalk's commands; `rebuild` reads both surfaces through the engine, imported only when it runs
    (as ``bridge.cli`` does for whole commands: `export` and `lookup` stay quick)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted([*super().list_commands(ctx), "rebuild"])

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name == "rebuild":
            from bridge.commands.migrate import rebuild_command  # noqa: PLC0415 -- see the class docstring

            return rebuild_command
        return super().get_command(ctx, cmd_name)


@click.group("crosswalk", cls=_Crosswalk)
def crosswalk_group() -> None:
    """Which v1 object each legacy record became."""


@crosswalk_group.command("export")
@_state_options
@click.option("--format", "fmt", type=click.Choice(["csv", "json"]), default="csv", show_default=True)
@click.option("--kind", default=None, help="Only this kind (singular: space, project, line, actual...).")
@click.option("--out", type=click.Path(path_type=Path, dir_okay=False), default=None, help="Write here, not stdout.")
def export_command(
    *,
    state: str | None,
    config_file: Path | None,
    migration: str | None,
    fmt: ExportFormat,
    kind: str | None,
    out: Path | None,
) -> Ending:
    """Export the crosswalk: kind, scope, legacy id, v1 id, source hash, run and times."""
    with _reading(state, config_file, migration) as store:
        known = store.crosswalk.counts()
        if kind is not None and kind not in known:
            # An empty export of a mistyped kind ("projects") would look like a migration that moved nothing.
            names = ", ".join(sorted(known)) or "none yet"
            click.echo(plain(f"no crosswalk entries of kind {kind!r} (kinds mapped: {names})"), err=True)
            return Ending.NOT_FOUND
        text = store.crosswalk.export(fmt, kind=kind)
    if out is None:
        if sys.stdout.isatty():
            # On a screen, names from the source (a tag's id is its name) are shown escaped, a row a line;
            # piped or written with --out, the export stays byte-exact.
            text = "".join(plain(row) + "\n" for row in text.splitlines())
        click.echo(text, nl=False)
        return Ending.DONE
    write_private(out, text.encode("utf-8"), option="--out")
    click.echo(f"wrote {out}", err=True)
    return Ending.DONE


@crosswalk_group.command("lookup")
@_state_options
@click.option("--scope", default="", help="Legacy project id for records inside a project [workspace-wide].")
@click.option("--json", "as_json", is_flag=True, help="Print kind, scope, legacy id and v1 id as a JSON object.")
@click.argument("kind")
@click.argument("legacy_id")
def lookup_command(
    *,
    state: str | None,
    config_file: Path | None,
    migration: str | None,
    scope: str,
    as_json: bool,
    kind: str,
    legacy_id: str,
) -> Ending:
    """Print the v1 id of one legacy record (exit 1 when it has not been migrated)."""
    with _reading(state, config_file, migration) as store:
        v1_id = store.crosswalk.lookup(kind, legacy_id, scope)
        if v1_id is None:
            where = f" in project {scope}" if scope else ""
            known = ", ".join(sorted(store.crosswalk.counts())) or "none yet"
            click.echo(
                plain(f"legacy {kind} {legacy_id!r}{where} is not in the crosswalk (kinds mapped: {known})"), err=True
            )
            return Ending.NOT_FOUND
    if as_json:  # JSON escapes every control character a legacy id might hold
        click.echo(json.dumps({"kind": kind, "scope": scope, "legacy_id": legacy_id, "v1_id": v1_id}))
    else:
        click.echo(v1_id)
    return Ending.DONE


@click.command("status")
@_state_options
@click.option("--runs", "run_count", default=5, show_default=True, help="How many recent runs to show.")
@click.option("--json", "as_json", is_flag=True, help="Print the status as JSON instead of tables.")
@click.option(
    "--report-dir",
    type=click.Path(path_type=Path, file_okay=False),
    default=None,
    help="Where `bridge verify` wrote its reports, for the last verdict [default: the settings' report_dir].",
)
@click.option(
    "--check",
    is_flag=True,
    help="Also check integrity: SQLite's integrity_check, or every constraint re-read on PostgreSQL (exit 4).",
)
def status_command(
    *,
    state: str | None,
    config_file: Path | None,
    migration: str | None,
    run_count: int,
    as_json: bool,
    report_dir: Path | None,
    check: bool,
) -> None:
    """One line on where the migration is, then the last runs, records per kind, the journal, and what next."""
    with _reading(state, config_file, migration) as store:
        status = status_of(store, run_count)
        problems = store.integrity_problems() if check else []
        where = store.location
    if check:
        status["integrity"] = problems or ["ok"]
    runs = status["runs"]
    reports = report_dir or load_settings(config_file, {"migration": migration}).report_dir
    verify = last_verify(reports, runs[0]["migration"]) if runs else None
    if as_json:
        said = {
            "headline": headline(status, verify),
            "last_verify": verify,
            **status,
            "next": next_step(status, verify),
        }
        click.echo(plain(json.dumps(said, indent=2, default=str)))
    else:
        render(status, verify)
    if problems:
        raise StateCorruptError(
            f"the state {where} fails its integrity check ({plain('; '.join(problems[:3]))}); do not resume on it: "
            "restore a backup (for a file, the newest *.bak copy next to it), and report this"
        )
