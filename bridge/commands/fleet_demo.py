"""`bridge fleet demo` (``make fleet-demo``): a fleet end to end on this machine, with a worker killed mid-run.

1. starts a throw-away PostgreSQL (``bridge.localpg``; as an unprivileged user when run as root), unless
   ``--state`` names one;
2. serves six tenants from `bridge emulate --workspaces 6 --write-manifest` (20 ms on every request);
3. `bridge fleet submit` the manifest, then starts two `bridge fleet worker` processes;
4. SIGKILLs the first worker once it is running workspaces and has finished a step of one, and never starts it
   again: the second declares it dead after its heartbeat lease and takes its workspaces over;
5. prints `bridge fleet status` as it changes, until every workspace is verified (or stopped), then submits the
   manifest again to show that it starts nothing.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click

from bridge.commands import Ending
from bridge.fleet.registry import BEAT_S
from bridge.fleet.rehearsal import Rehearsal, rehearsal
from bridge.localpg import LocalPostgres
from bridge.terminal import plain

WORKSPACES = 6
EMULATE = ("--size", "small", "--latency-ms", "20")
POLL_S = 2.0
DEADLINE_S = 900.0


@contextlib.contextmanager
def _database(state: str | None) -> Iterator[str]:
    if state is not None:
        yield state
        return
    with LocalPostgres() as server:
        click.echo(f"PostgreSQL {server.url_of('fleet')} (throw-away, removed at the end)")
        yield server.create_database("fleet")


def _line(rows: list[dict[str, Any]]) -> str:
    parts = []
    for row in rows:
        worker = row["worker"]
        where = f"@pid {worker['pid']}" if worker else ""
        if worker and worker["silent_s"] > BEAT_S * 2:
            where += f" (silent {worker['silent_s']:.0f} s)"
        verdict = {True: " reconciled", False: " NOT reconciled"}.get(row["reconciled"], "")
        parts.append(f"{row['name']} {row['state']}{where}{verdict} ({row['steps_done']} steps)")
    return "; ".join(parts)


def _watch(fleet: Rehearsal, kill_first: bool) -> list[dict[str, Any]]:
    """Print the status as it changes; kill the first worker once it is mid-run. The last status."""
    victim = fleet.workers[0]
    deadline = time.monotonic() + DEADLINE_S
    shown = ""
    while True:
        rows = fleet.status()
        line = _line(rows)
        if line != shown:
            click.echo(plain(f"[{time.strftime('%H:%M:%S')}] {line}"))
            shown = line
        if all(row["state"] in ("verified", "stopped", "cancelled") for row in rows):
            return rows
        mid_run = [r for r in rows if r["worker"] and r["worker"]["pid"] == victim.pid and r["steps_done"] >= 1]
        if kill_first and victim.poll() is None and mid_run:
            os.kill(victim.pid, signal.SIGKILL)
            victim.wait()
            names = ", ".join(r["name"] for r in mid_run)
            click.echo(f"killed worker 1 (pid {victim.pid}, SIGKILL) while it ran {names}; it is not restarted")
        if time.monotonic() > deadline:
            click.echo(f"the fleet did not finish within {DEADLINE_S:.0f} s", err=True)
            return rows
        time.sleep(POLL_S)


@click.command("demo")
@click.option("--state", default=None, metavar="URL", help="Use this PostgreSQL database [a throw-away one].")
@click.option("--dir", "folder", type=click.Path(path_type=Path, file_okay=False), default=Path("fleet-demo"))
@click.option("--no-kill", is_flag=True, help="Let both workers live.")
def fleet_demo_command(state: str | None, folder: Path, no_kill: bool) -> Ending:
    """Six workspaces, two workers, one killed mid-run: watch the fleet finish without it."""
    with _database(state) as url, rehearsal(folder, url, WORKSPACES, EMULATE) as fleet:
        click.echo(f"emulator {fleet.base_url}, manifest {fleet.manifest}")
        click.echo(fleet.submit().stdout.rstrip())
        for _ in range(2):
            worker = fleet.start_worker("--workspaces", "3", "--until-idle")
            click.echo(f"started worker {len(fleet.workers)} (pid {worker.pid})")
        rows = _watch(fleet, kill_first=not no_kill)
        for worker in fleet.workers:
            with contextlib.suppress(Exception):
                worker.wait(timeout=60)
        click.echo("submitting the same manifest again:")
        click.echo(fleet.submit().stdout.rstrip())
        click.echo(fleet.bridge("fleet", "status").stdout.rstrip())
        click.echo(f"reports in {folder / 'reports'}; worker logs in {folder}")
    reconciled = all(row["reconciled"] for row in rows)
    return Ending.DONE if reconciled else Ending.DIFFERENCES
