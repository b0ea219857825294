"""`bridge sync` (bridge mode: keep v1 in step with legacy) and `bridge conflicts` (records changed on both sides).

`sync --once` runs one cycle (``bridge.sync.cycle``); `sync --watch --interval D` runs cycles until SIGTERM,
which lets the cycle under way finish and exits 0 (SIGINT stops at once, resumable like a run). Each cycle
ends with one line on the terminal and one in the sync log.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import re
import signal
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import click
import uvloop

from bridge.clients.http import RunControls
from bridge.clients.v1 import open_v1
from bridge.commands import Ending
from bridge.commands.options import connection_options, settings_from
from bridge.config import Settings
from bridge.errors import Interrupted, UsageError
from bridge.sync.conflicts import Side, open_conflict, resolve
from bridge.sync.cycle import CHANGES, Cycle, Watch, default_log, run_cycle
from bridge.sync.health import LOOPBACK, Health
from bridge.sync.log import SyncLog
from bridge.terminal import plain
from bridge.verify.compare import FailOn
from state.store import open_state

_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)\s*$")
_UNITS = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}
# A watch's cycles start within this share of the interval around it, so many bridges do not read in step.
JITTER = 0.1


def duration(_ctx: click.Context | None, _param: click.Parameter | None, value: str) -> timedelta:
    """A duration option: a number and a unit, ``500ms``, ``5s``, ``10m``, ``1h``."""
    found = _DURATION.match(value)
    if found is None:
        raise click.BadParameter(f"{value!r} is not a duration: write a number and ms, s, m or h (5s, 10m)")
    return timedelta(seconds=float(found.group(1)) * _UNITS[found.group(2)])


def _said(cycle: Cycle) -> str:
    """A cycle's one closing line."""
    moved = ", ".join(
        f"{row.kind.value} " + " ".join(f"{name.replace('_', ' ')} {count:,}" for name, count in changes.items())
        for row in cycle.outcome.ledger.ordered()
        if (changes := {name: n for name in CHANGES if (n := getattr(row, name, 0)) and isinstance(n, int)})
    )
    verdict = cycle.record["verdict"]
    assert isinstance(verdict, dict)
    waiting = cycle.record["unverified"]
    if verdict.get("verified"):
        said = "verified: " + ("reconciled" if verdict.get("reconciled") else "DIFFERENCES (bridge verify shows them)")
    elif isinstance(waiting, list) and waiting:
        said = f"{len(waiting):,} projects to verify once a cycle finds nothing to write"
    else:
        said = "nothing to verify"
    drifted = sum(n for kinds in cycle.outcome.drifted.values() for n in kinds.values())
    late = cycle.record.get("afterCutover")
    watched = [
        f"{len(writes):,} legacy writes after the cutover of {project} (not carried: it is cut over)"
        for project, writes in (late.items() if isinstance(late, dict) else ())
        if isinstance(writes, list) and writes
    ]
    verifying = cycle.record.get("verifying")
    beside = len(verifying) if isinstance(verifying, list) else 0
    parts = [
        f"cycle {cycle.seq}: {cycle.writes:,} requests",
        moved or "no change at the source",
        said,
        f"verifying {beside:,} projects beside the next cycles" if beside else "",
        f"{cycle.open_conflicts:,} open conflicts" if cycle.open_conflicts else "",
        f"{drifted:,} records changed on v1 only" if drifted else "",
        *watched,
    ]
    return "; ".join(part for part in parts if part)


def _next(cycle: Cycle, differs: bool) -> str:
    """What to do after the last cycle shown."""
    if cycle.open_conflicts:
        return "bridge conflicts list, then bridge conflicts resolve ID --take legacy|v1"
    if differs:
        return "bridge verify (its report shows each difference, largest first)"
    waiting = cycle.record["unverified"]
    if isinstance(waiting, list) and waiting:
        return "bridge sync --once again: the first cycle that writes nothing verifies what was written"
    return "bridge sync status; once a project is to move, bridge cutover check --project P"


@click.group("sync", invoke_without_command=True)
@connection_options
@click.option("--once", is_flag=True, help="Run one cycle and exit.")
@click.option("--watch", is_flag=True, help="Run cycles until SIGTERM (which lets the current cycle finish).")
@click.option(
    "--interval",
    default="5m",
    show_default=True,
    callback=duration,
    help="Time between the starts of watch cycles (jittered).",
)
@click.option(
    "--log",
    "log_path",
    type=click.Path(path_type=Path, dir_okay=False),
    help="The hash-chained sync log (default: beside the state file, <state>.sync.jsonl).",
)
@click.option("--json", "as_json", is_flag=True, help="Print each cycle's log record as JSON, and nothing else.")
@click.option(
    "--health-port",
    type=click.IntRange(0, 65535),
    help="With --watch: serve /healthz and /metrics (Prometheus) on this loopback port (0: any free port).",
)
@click.option(
    "--max-lag",
    default="15m",
    show_default=True,
    callback=duration,
    help="/healthz answers 503 once the last cycle finished longer ago than this.",
)
@click.option(
    "--fail-on",
    type=click.Choice([f.value for f in FailOn]),
    default=FailOn.MISMATCH.value,
    show_default=True,
    help="The verify of each quiet cycle: 'rounding' holds it to zero tolerance.",
)
@click.pass_context
def sync_group(
    ctx: click.Context,
    /,
    *,
    once: bool,
    watch: bool,
    interval: timedelta,
    log_path: Path | None,
    as_json: bool,
    health_port: int | None,
    max_lag: timedelta,
    fail_on: str,
    **options: object,
) -> Ending | None:
    """Keep v1 in step with legacy: creates, updates and deletes, never over a v1 edit (a conflict instead)."""
    settings = settings_from(options)
    where = log_path or default_log(settings)
    if ctx.invoked_subcommand is not None:
        ctx.obj = (settings, where)
        return None
    if once == watch:
        raise UsageError("say --once (one cycle) or --watch (cycles until SIGTERM)")
    if health_port is not None and once:
        raise UsageError("--health-port serves a watch's health: use it with --watch")
    with SyncLog.open(where) as log, contextlib.ExitStack() as stack:
        health = stack.enter_context(Health(health_port, max_lag)) if health_port is not None else None
        if health is not None and not as_json:
            click.echo(f"health on http://{LOOPBACK}:{health.port}/healthz and /metrics")
        pace = Pace(None if once else interval, FailOn(fail_on), as_json, health)
        last = uvloop.run(_cycles(settings, log, pace))
    verdict = last.record["verdict"]
    differs = isinstance(verdict, dict) and verdict.get("verified") is True and verdict.get("reconciled") is False
    if not as_json:
        click.echo(plain(f"next: {_next(last, differs)}"))
    if last.open_conflicts or differs:
        return Ending.DIFFERENCES
    return Ending.QUARANTINED if last.outcome.ledger.quarantine else Ending.DONE


def _show(cycle: Cycle, as_json: bool) -> None:
    if as_json:
        click.echo(plain(json.dumps({"seq": cycle.seq, **cycle.record}, indent=None)))
        return
    click.echo(plain(_said(cycle)))


@dataclass(frozen=True, slots=True)
class Pace:
    """How cycles follow each other: ``interval`` apart (None: one cycle), verified to ``fail_on``, each shown
    as a line or as JSON, each counted by ``health`` when a watch serves it."""

    interval: timedelta | None
    fail_on: FailOn
    as_json: bool
    health: Health | None


async def _cycles(settings: Settings, log: SyncLog, pace: Pace) -> Cycle:
    """One cycle (no interval), or cycles until SIGTERM, which lets the cycle under way finish. SIGINT (and
    SIGTERM during a single cycle) cancels the cycle under way: it resumes from the journal, as a run does."""
    interval, as_json, health = pace.interval, pace.as_json, pace.health
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    task = asyncio.current_task()
    assert task is not None
    loop.add_signal_handler(signal.SIGINT, task.cancel)
    loop.add_signal_handler(signal.SIGTERM, task.cancel if interval is None else stop.set)
    controls = RunControls.of(settings)
    # What the cycles keep for each other: projects read but not mapped again, documents not downloaded again.
    watch = Watch(background=interval is not None)
    try:
        while True:
            began = time.monotonic()
            cycle = await run_cycle(settings, log, controls=controls, fail_on=pace.fail_on, watch=watch)
            if health is not None:
                health.saw(cycle, time.monotonic() - began)
            _show(cycle, as_json)
            if interval is None or stop.is_set():
                break
            # Cycles start an interval apart, not an interval after each other's end: a change waits for the next
            # start, not for the end of a long cycle plus an interval. One that overran is followed at once.
            start = interval.total_seconds() * random.uniform(1 - JITTER, 1 + JITTER)
            pause = max(0.0, start - (time.monotonic() - began))
            try:
                await asyncio.wait_for(stop.wait(), timeout=pause)
                break
            except TimeoutError:
                continue
    except asyncio.CancelledError:
        raise Interrupted("the sync was interrupted by a signal; run it again to resume") from None
    finally:
        # A verify still running beside the cycles is dropped: its projects stay awaiting one in the log.
        if watch.verifying is not None:
            watch.verifying.task.cancel()
            await asyncio.gather(watch.verifying.task, return_exceptions=True)
    if stop.is_set() and not as_json:
        click.echo("stopped on SIGTERM after a whole cycle")
    return cycle


@click.group("conflicts")
def conflicts_group() -> None:
    """Records changed on both legacy and v1 since the bridge wrote them: list them, take a side."""


@conflicts_group.command("list")
@connection_options
@click.option("--json", "as_json", is_flag=True, help="Print the open conflicts as JSON.")
def list_command(as_json: bool, **options: object) -> Ending:
    """The open conflicts, oldest first, with both values."""
    settings = settings_from(options)
    store = open_state(str(settings.state), read_only=True, migration=settings.migration)
    try:
        rows = store.conflicts.listed()
    finally:
        store.close()
    listed = [
        {
            "id": row.id,
            "kind": row.kind,
            "project": row.scope or None,
            "legacy_id": row.legacy_id,
            "v1_id": row.v1_id,
            "legacy_change": row.change,
            "legacy": json.loads(row.legacy_json),
            "v1": json.loads(row.v1_json),
            "detected_at": row.detected_at.isoformat(),
        }
        for row in rows
    ]
    if as_json:
        click.echo(plain(json.dumps(listed, indent=2)))
        return Ending.DONE
    if not listed:
        click.echo("no open conflicts")
    for item in listed:
        where = f"{item['kind']} {item['legacy_id']}" + (f" in {item['project']}" if item["project"] else "")
        click.echo(plain(f"conflict {item['id']}: {where} (v1 {item['v1_id']}), detected {item['detected_at']}"))
        click.echo(plain(f"  legacy {item['legacy_change']}: {json.dumps(item['legacy'], sort_keys=True)}"))
        click.echo(plain(f"  v1 now: {json.dumps(item['v1'], sort_keys=True)}"))
    if listed:
        click.echo(f"{len(listed):,} open; take a side with: bridge conflicts resolve ID --take legacy|v1")
    return Ending.DONE


@conflicts_group.command("resolve")
@click.argument("conflict_id", type=int)
@click.option("--take", type=click.Choice([side.value for side in Side]), required=True, help="The side that wins.")
@connection_options
def resolve_command(conflict_id: int, take: str, **options: object) -> Ending:
    """Take one side of a conflict: legacy's value is written to v1 once; v1's is kept, nothing is sent."""
    settings = settings_from(options)
    side = Side(take)
    store = open_state(str(settings.state), migration=settings.migration)
    try:
        conflict = open_conflict(store, conflict_id)
        v1_url, token = settings.require_v1()

        async def main() -> int:
            async with open_v1(v1_url, token, RunControls.of(settings), timeout=settings.request_timeout) as v1:
                return (await resolve(store, v1, conflict, side)).writes

        writes = uvloop.run(main())
    finally:
        store.close()
    click.echo(f"conflict {conflict_id}: took {side.value}; {writes} request{'s' if writes != 1 else ''} sent to v1")
    return Ending.DONE


def _cycles_logged(path: Path) -> list[dict[str, Any]]:
    """The records of the sync log's lines, oldest first (none when no sync has run)."""
    if not path.exists():
        return []
    return [json.loads(line)["record"] for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _at(stamp: str) -> datetime:
    return datetime.fromisoformat(stamp.replace("Z", "+00:00"))


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))] if ordered else 0.0


def _spread(values: list[float]) -> dict[str, float] | None:
    """p50, p95 and max of ``values`` (None when there are none)."""
    if not values:
        return None
    return {
        "p50": round(_percentile(values, 0.5), 3),
        "p95": round(_percentile(values, 0.95), 3),
        "max": round(max(values), 3),
    }


def sync_status(records: list[dict[str, Any]], conflicts: dict[str, int], now: datetime) -> list[dict[str, Any]]:
    """Per project: when it was last read in full, how old that read is, the cycle times, the source and apply
    lag of the records written (``sync.lag``), open conflicts, drift, last verdict."""
    projects: dict[str, dict[str, Any]] = {}
    for record in records:
        took = (_at(record["finished"]) - _at(record["started"])).total_seconds()
        for project in record["projects"]:
            empty = {"project": project, "cycles": 0, "cycle_seconds": [], "drifted": {}, "source": [], "apply": []}
            found = projects.setdefault(project, empty)
            found["cycles"] += 1
            found["cycle_seconds"].append(took)
            lag = record.get("lag", {}).get(project, {})
            found["source"] += [int(ms) / 1000 for ms in lag.get("sourceMs", ())]
            found["apply"] += [int(ms) / 1000 for ms in lag.get("applyMs", ())]
            found["last_read"] = record["finished"]
            if project in record["drifted"]:  # read back by this cycle: its count is the latest
                found["drifted"] = {k: int(n) for k, n in record["drifted"][project].items()}
            verdict = record["verdict"]
            if verdict.get("verified") and project in verdict.get("projects", ()):
                found["last_verdict"] = "reconciled" if verdict.get("reconciled") else "differences"
    shown: list[dict[str, Any]] = []
    for project, found in sorted(projects.items()):
        found["read_age_seconds"] = round((now - _at(found["last_read"])).total_seconds(), 3)
        found["cycle_seconds"] = _spread(found.pop("cycle_seconds"))
        found["source_lag_seconds"] = _spread(found.pop("source"))
        found["apply_lag_seconds"] = _spread(found.pop("apply"))
        found["open_conflicts"] = conflicts.get(project, 0)
        found.setdefault("last_verdict", "not verified by a sync yet")
        shown.append(found)
    return shown


def _said_spread(spread: dict[str, float] | None) -> str:
    if spread is None:
        return "none measured"
    return f"p50 {spread['p50']:,.1f} s, p95 {spread['p95']:,.1f} s, max {spread['max']:,.1f} s"


@sync_group.command("status")
@click.option("--json", "as_json", is_flag=True, help="Print the status as JSON.")
@click.option("--check", is_flag=True, help="Exit 1 past --max-lag or with an open conflict (for a monitor).")
@click.option("--max-lag", default="15m", show_default=True, callback=duration, help="The read age --check allows.")
@click.pass_obj
def status_command(found: tuple[Settings, Path], *, as_json: bool, check: bool, max_lag: timedelta) -> Ending:
    """Per project: the last full read and its age, cycle times, the source lag (a legacy write until the cycle
    that saw it) and apply lag (until v1 had it) of the records written, open conflicts, drift, the last verdict."""
    settings, log = found
    store = open_state(str(settings.state), read_only=True, migration=settings.migration)
    try:
        counts: dict[str, int] = {}
        for row in store.conflicts.listed():
            counts[row.scope] = counts.get(row.scope, 0) + 1
    finally:
        store.close()
    projects = sync_status(_cycles_logged(log), counts, datetime.now(UTC))
    late = [p["project"] for p in projects if p["read_age_seconds"] > max_lag.total_seconds()]
    torn = [p["project"] for p in projects if p["open_conflicts"]]
    if as_json:
        click.echo(plain(json.dumps({"log": str(log), "projects": projects}, indent=2)))
    elif not projects:
        click.echo(f"no sync has run (no sync log at {plain(str(log))})")
    for p in [] if as_json else projects:
        drifted = sum(p["drifted"].values())
        click.echo(
            plain(
                f"{p['project']}: read {p['read_age_seconds']:,.1f} s ago ({p['cycles']:,} cycles; cycle time "
                f"{_said_spread(p['cycle_seconds'])}; source lag {_said_spread(p['source_lag_seconds'])}; apply lag "
                f"{_said_spread(p['apply_lag_seconds'])}); {p['open_conflicts']:,} open conflicts; "
                f"{drifted:,} records changed on v1 only; {p['last_verdict']}"
            )
        )
    if check and (late or torn or not projects):
        for project in late:
            click.echo(f"check: {project} was last read more than {max_lag} ago", err=True)
        for project in torn:
            click.echo(f"check: {project} has open conflicts (bridge conflicts list)", err=True)
        if not projects:
            click.echo("check: no sync has run", err=True)
        return Ending.DIFFERENCES
    return Ending.DONE
