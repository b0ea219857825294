"""`bridge fleet submit|worker|status|retry|cancel`: many workspaces at once, on workers on many machines.

Every command names the fleet's PostgreSQL database with ``--state`` (or BRIDGE_STATE); docs/fleet.md says how
to run workers on several machines against one database.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import TypeVar

import click
from rich.table import Table
from rich.text import Text

from bridge.commands import Ending
from bridge.commands.status_view import elapsed
from bridge.commands.sync import duration
from bridge.config import ENV_STATE
from bridge.fleet.control import (
    SyncStatus,
    WorkspaceStatus,
    cancel,
    open_fleet,
    retry,
    start_sync,
    status,
    stop_sync,
    submit,
)
from bridge.fleet.database import fleet_url
from bridge.fleet.manifest import load_manifest
from bridge.fleet.registry import BEAT_S, LEASE_S
from bridge.fleet.summary import FleetSummary, next_step, summarize
from bridge.logging import configure_logging
from bridge.terminal import console, plain, safe_stderr, shown

F = TypeVar("F", bound=Callable[..., object])


def _state(command: F) -> F:
    return click.option(
        "--state",
        envvar=ENV_STATE,
        required=True,
        metavar="URL",
        help=f"The fleet's PostgreSQL URL [env {ENV_STATE}].",
    )(command)


class FleetGroup(click.Group):
    """The fleet's commands; `demo` is imported only when it runs (it serves the emulator and PostgreSQL)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted([*super().list_commands(ctx), "demo"])

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name == "demo":
            from bridge.commands.fleet_demo import fleet_demo_command  # noqa: PLC0415

            return fleet_demo_command
        return super().get_command(ctx, cmd_name)


@click.group("fleet", cls=FleetGroup)
def fleet_group() -> None:
    """Move many workspaces: a queue and every state in one PostgreSQL database, workers anywhere."""
    configure_logging("INFO", console=safe_stderr(), console_level="WARNING")


@fleet_group.command("submit")
@_state
@click.argument("manifest", type=click.Path(path_type=Path, dir_okay=False, exists=True))
def submit_command(state: str, manifest: Path) -> Ending:
    """Queue every workspace of MANIFEST (a [[workspace]] table each); one already queued starts nothing."""
    specs = load_manifest(manifest)
    fleet_url(state)  # a state that names no PostgreSQL database is said first: no secret is read for it
    for spec in specs:
        spec.check_secrets(state)
    with open_fleet(state, create=True) as fleet:
        done = submit(fleet, specs)
    for entry in done:
        verb = "queued" if entry["started"] else f"already submitted ({entry['state']})"
        click.echo(f"{entry['name']}: {verb}  [{entry['workflow_id']}]")
    started = sum(entry["started"] for entry in done)
    click.echo(f"{started} started, {len(done) - started} already submitted")
    return Ending.DONE


@fleet_group.command("worker")
@_state
@click.option("--concurrency", type=click.IntRange(1, 512), default=16, show_default=True, help="Requests in flight.")
@click.option(
    "--workspaces",
    type=click.IntRange(1, 64),
    default=4,
    show_default=True,
    help="Workspaces at once on each worker; one value for the whole fleet: the worker started last sets it for all.",
)
@click.option("--report-dir", type=click.Path(path_type=Path, file_okay=False), default=Path("reports"))
@click.option("--until-idle", is_flag=True, help="Leave once nothing is queued or running in the whole fleet.")
@click.option("--log-file", type=click.Path(path_type=Path, dir_okay=False), help="JSON-lines log file.")
@click.option(
    "--heal-for",
    type=click.FloatRange(0),
    default=600.0,
    show_default=True,
    help="Seconds a workspace keeps retrying a stop that passes by itself (service or database away, full disk, "
    "rate limits) before it is stopped with the reason.",
)
def worker_command(  # noqa: PLR0917 - click passes every option by name
    state: str,
    concurrency: int,
    workspaces: int,
    report_dir: Path,
    until_idle: bool,
    log_file: Path | None,
    heal_for: float,
) -> Ending:
    """Run workspaces from the fleet's queue until SIGINT/SIGTERM (or, with --until-idle, until all are done)."""
    from bridge.fleet.worker import WorkerOptions, run_worker  # noqa: PLC0415 -- DBOS loads only in a worker

    configure_logging("INFO", log_file=log_file, console=safe_stderr(), console_level="WARNING")
    me = run_worker(WorkerOptions(state, concurrency, workspaces, report_dir, until_idle, heal_for))
    click.echo(f"worker {me} left")
    return Ending.DONE


@fleet_group.command("status")
@_state
@click.option("--json", "as_json", is_flag=True, help="Print the status as JSON.")
def status_command(state: str, as_json: bool) -> Ending:
    """Per workspace: queued, running (on which worker), stopped (why), verified (its verdict), steps done of
    total, elapsed time, records; then the fleet in one line, and what to do next."""
    with open_fleet(state) as fleet:
        rows = status(fleet)
    overall = summarize(rows)
    if as_json:
        said = {"summary": overall, "workspaces": rows, "next": next_step(overall)}
        click.echo(plain(json.dumps(said, indent=2, default=str)))
    else:
        out = console()
        out.print(_table(rows))
        out.print(Text(summary_line(overall), style="bold"))
        out.print(Text("next: " + next_step(overall)))
    return Ending.DONE


def summary_line(overall: FleetSummary) -> str:
    """The fleet in one line: ``6 workspaces: 4 done, 1 running, 0 queued, 1 failed; ...``."""
    done = f"{overall['done']:,} done" + (
        f" ({overall['not_reconciled']:,} not reconciled)" if overall["not_reconciled"] else ""
    )
    states = f"{done}, {overall['running']:,} running, {overall['queued']:,} queued, {overall['failed']:,} failed"
    cancelled = f", {overall['cancelled']:,} cancelled" if overall["cancelled"] else ""
    took = "not started" if overall["elapsed_s"] is None else f"{elapsed(overall['elapsed_s'])} elapsed"
    count = overall["workspaces"]
    return (
        f"{count:,} workspace{'' if count == 1 else 's'}: {states}{cancelled}; "
        f"{overall['records']:,} records migrated; steps {_steps(overall['steps_done'], overall['steps_total'])}; "
        f"{took}"
    )


def _steps(done: int, total: int | None) -> str:
    """``3 of 6``; before the projects are listed the total is not known: ``1 of ?``."""
    return f"{done:,} of {'?' if total is None else f'{total:,}'}"


def _table(rows: list[WorkspaceStatus]) -> Table:
    table = Table(title="fleet", title_justify="left")
    for header in ("workspace", "state", "where / why", "steps", "elapsed", "records migrated", "sync"):
        table.add_column(header, justify="right" if header in ("steps", "elapsed", "records migrated") else "left")
    for row in rows:
        if row["worker"] is not None:
            worker = row["worker"]
            where = f"on {worker['host']} pid {worker['pid']}"
            if worker["silent_s"] > BEAT_S * 2:
                where += f" (silent {worker['silent_s']:.0f} s; taken over after {LEASE_S:.0f} s)"
        elif row["reconciled"] is not None:
            where = "reconciled" if row["reconciled"] else "NOT reconciled: see its reports"
        else:
            where = row["reason"] or ""
        migrated = sum(info["migrated"] for info in (row["counts"] or {}).values())
        table.add_row(
            Text(shown(row["name"])),
            row["state"],
            Text(shown(where)),
            _steps(row["steps_done"], row["steps_total"]),
            "-" if row["elapsed_s"] is None else elapsed(row["elapsed_s"]),
            f"{migrated:,}",
            _synced(row["sync"]),
        )
    return table


def _synced(sync: SyncStatus | None) -> str:
    """A workspace's bridge mode in one cell: its state, cycles, lag since the last one, conflicts, verdict."""
    if sync is None:
        return ""
    said = f"{sync['state']}, {sync['cycles']:,} cycles"
    if sync["lag_s"] is not None:
        said += f", last {sync['lag_s']:,.0f} s ago"
    if sync["open_conflicts"]:
        said += f", {sync['open_conflicts']:,} open conflicts"
    return said + (f", {sync['verdict']}" if sync["verdict"] else "")


@fleet_group.command("sync")
@_state
@click.argument("manifest", type=click.Path(path_type=Path, dir_okay=False, exists=True))
@click.option("--interval", default="5m", show_default=True, callback=duration, help="Time between cycles.")
@click.option("--cycles", default=0, show_default=True, type=click.IntRange(0), help="Cycles to run (0: until --stop).")
@click.option(
    "--stop", is_flag=True, help="Cancel the manifest's workspaces' syncs (each stops at its next step or wait)."
)
def sync_command(state: str, manifest: Path, interval: timedelta, cycles: int, stop: bool) -> Ending:
    """Bridge mode for every workspace of MANIFEST (submitted before): a durable workflow of sync cycles each."""
    names = [spec.name for spec in load_manifest(manifest)]
    with open_fleet(state) as fleet:
        if stop:
            for name, workflow_id in stop_sync(fleet, names):
                click.echo(f"{shown(name)}: sync cancelled  [{workflow_id}]")
            return Ending.DONE
        done = start_sync(fleet, names, cycles=cycles, interval_s=interval.total_seconds())
    for name, workflow_id, started in done:
        click.echo(f"{shown(name)}: {'sync queued' if started else 'already syncing'}  [{workflow_id}]")
    every = f"every {interval}" + (f", {cycles} cycles" if cycles else ", until `bridge fleet sync --stop`")
    click.echo(f"{sum(started for _, _, started in done)} started ({every}); `bridge fleet status` shows their lag")
    return Ending.DONE


@fleet_group.command("retry")
@_state
@click.argument("name")
def retry_command(state: str, name: str) -> Ending:
    """Queue a stopped or cancelled workspace again; it resumes from its journal."""
    with open_fleet(state) as fleet:
        entry = retry(fleet, name)
    click.echo(f"{entry['name']}: queued again  [{entry['workflow_id']}]")
    return Ending.DONE


@fleet_group.command("cancel")
@_state
@click.argument("name")
def cancel_command(state: str, name: str) -> Ending:
    """Cancel a queued or running workspace (a running one stops at its next step)."""
    with open_fleet(state) as fleet:
        was = cancel(fleet, name)
    click.echo(f"{shown(name)}: cancelled (it was {was}); `bridge fleet retry {shown(name)}` queues it again")
    return Ending.DONE
