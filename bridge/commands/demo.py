"""`bridge demo`: the whole migration on the bundled emulator, with faults, a real crash and a resume.

What it does, in order (every step prints what it shows):

1. serves the emulator (both surfaces and its control API) on a loopback port in a thread, seeded ``small``;
2. issues a legacy key and a v1 token through the control API (the emulator's own test credentials);
3. ``bridge plan`` as a subprocess, and shows that the emulator's ``writes`` counter did not move;
4. injects faults: latency on every request, some 429s with Retry-After, some commit-then-drop on writes;
5. ``bridge run`` as a subprocess, SIGKILLed (a real kill -9, not a simulation) as soon as the journal
   holds some completed writes, then the same command again, which resumes from the journal;
6. ``bridge verify`` when it is installed, with its reports in the demo directory;
7. prints where the state file, the log and the reports are.

This module is part of the CLI, the one layer allowed to import the emulator (to serve it).
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import click
import httpx

from bridge.emulator.app import create_app
from bridge.emulator.control.serving import BackgroundServer

KILL_AFTER_DONE_INTENTS = 12
STEP_TIMEOUT_S = 120


@contextlib.contextmanager
def serve_in_thread(size: str, seed: int) -> Iterator[tuple[str, str]]:
    """The emulator under uvicorn on an ephemeral loopback port; yields its base URL and its legacy key."""
    app = create_app(seed=seed, size=size)  # type: ignore[arg-type]
    server = BackgroundServer(app)
    # The demo drops connections on purpose (commit-then-drop); uvicorn would print each one as an error.
    # Set after the server's config, which sets uvicorn's own levels.
    logging.getLogger("uvicorn.error").setLevel(logging.CRITICAL)
    with server as base_url:
        yield base_url, app.state.credentials.legacy_key


def _done_intents(state: Path) -> int:
    """Completed intents in the state file, read without taking part in its writes (WAL readers never block)."""
    if not state.exists():
        return 0
    try:
        with contextlib.closing(sqlite3.connect(f"file:{state}?mode=ro", uri=True, timeout=1)) as db:
            row = db.execute("SELECT count(*) FROM intents WHERE status = 'done'").fetchone()
    except sqlite3.Error:
        return 0
    return int(row[0]) if row else 0


def _bridge(*args: str) -> list[str]:
    return [sys.executable, "-c", "from bridge.cli import main; main()", *args]


def _call(args: list[str], env: dict[str, str], *, capture: bool = False) -> subprocess.CompletedProcess[str]:
    # The argv is this interpreter and fixed bridge subcommands; nothing comes from outside the demo.
    return subprocess.run(args, env=env, check=False, capture_output=capture, text=True)  # noqa: S603


def _step(title: str) -> None:
    click.secho(f"\n== {title}", bold=True)


def _writes(control: httpx.Client) -> int:
    stats = control.get("/stats").json()
    return int(stats["writes"])


@click.command("demo")
@click.option("--size", type=click.Choice(["small", "medium"]), default="small", show_default=True)
@click.option("--seed", type=int, default=42, show_default=True)
@click.option("--out", "out_dir", type=click.Path(path_type=Path, file_okay=False), default=Path("demo-out"))
def demo_command(size: str, seed: int, out_dir: Path) -> int:
    """Migrate a seeded emulator workspace end to end, with faults, a SIGKILL and a resume.

    Ends with the exit code of the step that failed (the plan, or the resumed run unless it ended 0 or 1).
    """
    shutil.rmtree(out_dir, ignore_errors=True)
    out_dir.mkdir(parents=True)
    state, log_file, reports = out_dir / "bridge-state.db", out_dir / "bridge.log", out_dir / "reports"
    started = time.monotonic()
    _step(f"serving the emulator (seed {seed}, size {size}) on a loopback port")
    with serve_in_thread(size, seed) as (base, key), httpx.Client(base_url=f"{base}/_emulator", timeout=30) as control:
        token = control.post("/tokens", json={"workspace": "target", "role": "admin"}).json()["token"]
        env = {
            **os.environ,
            "BRIDGE_LEGACY_URL": f"{base}/api/v1",
            "BRIDGE_V1_URL": f"{base}/v1",
            "BRIDGE_LEGACY_KEY": key,
            "BRIDGE_V1_TOKEN": token,
            "BRIDGE_STATE": str(state),
            "NO_COLOR": "1",
        }
        common = ["--log-file", str(log_file)]

        _step("bridge plan (a dry run: reads only)")
        before = _writes(control)
        planned = _call(_bridge("plan", *common, "--out", str(out_dir / "plan.json")), env)
        if planned.returncode != 0:
            return planned.returncode
        click.echo(f"v1 writes counted by the emulator: {before} before the plan, {_writes(control)} after")

        _step("injecting faults: 5 ms latency, 1% 429 (Retry-After), 2% commit-then-drop on writes")
        control.post(
            "/faults",
            json={
                "seed": seed,
                "latencyMs": 5,
                "rules": [
                    {"kind": "rate_limit", "rate": 0.01, "route": "/v1/*", "retryAfterS": 1},
                    {"kind": "commit_then_drop", "rate": 0.02, "route": "/v1/*", "methods": ["POST", "PATCH"]},
                ],
            },
        )

        _step(f"bridge run, killed with SIGKILL after {KILL_AFTER_DONE_INTENTS} completed writes")
        victim = subprocess.Popen(_bridge("run", *common), env=env, stdout=subprocess.DEVNULL)  # noqa: S603
        deadline = time.monotonic() + STEP_TIMEOUT_S
        while victim.poll() is None and _done_intents(state) < KILL_AFTER_DONE_INTENTS:
            if time.monotonic() > deadline:
                break
            time.sleep(0.01)
        if victim.poll() is None:
            victim.send_signal(signal.SIGKILL)
        code = victim.wait()
        click.echo(f"killed: exit status {code}, {_done_intents(state)} writes completed in the journal")

        _step("bridge run again: replays what was in flight, then finishes")
        resumed = _call(_bridge("run", *common), env)
        click.echo(f"bridge run exited {resumed.returncode} (0 all migrated, 1 with quarantined records)")
        stats = control.get("/stats").json()
        click.echo(
            f"faults injected: {stats.get('faultsInjected', {})}; keyed replays answered: {stats.get('replays')}"
        )

        _step("bridge verify (faults off)")
        control.post("/faults", json={})
        _call(_bridge("verify", *common, "--report-dir", str(reports)), env)

    _step(f"done in {time.monotonic() - started:.1f} s")
    click.echo(f"state file : {state}")
    click.echo(f"log file   : {log_file}")
    click.echo(f"plan       : {out_dir / 'plan.json'}")
    click.echo(f"reports    : {reports}")
    return resumed.returncode if resumed.returncode not in (0, 1) else 0
