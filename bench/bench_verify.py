"""Verification's figures: its cost on a migrated `medium` workspace, and its memory on one large project.

- The `medium` workspace is seeded and migrated in process by the engine (both surfaces over
  ``httpx.ASGITransport``), then ``bridge.verify`` runs once. Figures: requests per surface, the number of
  projects times phases (what a naive verifier reading one total per project and phase would send at the
  least), wall time, whether the migration reconciled, and the verdict counts.
- ``actuals_<n>``: one project of the `small` workspace given ``n`` actuals (every tenth split in two) through
  the legacy batch endpoint, migrated by `bridge run`, then checked by `bridge verify` in a process of its own
  (the emulator in another): that process's peak resident memory and wall time. ``rss_spread_mb`` is how far
  apart the peaks of the smallest and largest case are: verification's memory should not grow with the actuals.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from datetime import date, timedelta
from pathlib import Path

import httpx
import uvloop

from bench.bench_engine import BRIDGE, emulator
from bench.bench_engine import LEGACY_KEY as SERVED_KEY
from bridge.clients.http import RunControls
from bridge.clients.legacy import open_legacy
from bridge.config import Secret, Settings
from bridge.emulator.app import create_app
from bridge.emulator.core.seed import Size, seeded_service
from bridge.engine.progress import Progress
from bridge.engine.run import Transports, migrate
from bridge.errors import ResumableStop
from bridge.logging import configure_logging
from bridge.verify.reconcile import VerifyOptions, verify
from state.errors import StateLockedError

SIZE: Size = "medium"
MAX_RESUMES = 5
LEGACY_KEY = "lk_bench_verify_0123456789abcdef"
TOKEN = "sat_bench_verify_0123456789abcdef0123456789"  # noqa: S105 - the emulator's own test credential
# One project's actuals per case; BENCH_VERIFY_ACTUALS=10000,30000 for a quicker look while developing.
ACTUALS = tuple(int(n) for n in os.environ.get("BENCH_VERIFY_ACTUALS", "10000,100000").split(","))
BATCH = 5000  # the legacy batch endpoint's limit
FIRST_DAY = date(2025, 1, 6)
SPLIT_EVERY = 10
# The emulator lists v1 transactions at O(n) a page (0.3 s a page at 100,000): that case takes a while.
TIME_LIMIT_S = 3600
# Run as the verify process: `bridge verify` as the console script runs it, then the process's own peak
# resident memory (VmHWM, kB) and its wall time on stderr. Not ru_maxrss: Linux carries the spawning process's
# peak into a child's across exec, and this process held `medium` in memory.
PROBE = """
import json, sys, time
started = time.perf_counter()
from bridge.cli import cli
code = cli.main(sys.argv[1:], prog_name="bridge", standalone_mode=False)
wall = time.perf_counter() - started
status = open("/proc/self/status").read().splitlines()
peak = next(int(row.split()[1]) for row in status if row.startswith("VmHWM:"))
print(json.dumps({"exit": code, "peak_kb": peak, "wall_s": wall}), file=sys.stderr)
"""


async def _measure(state: Path) -> dict[str, object]:
    service = seeded_service(42, SIZE)
    app = create_app(service, legacy_key=LEGACY_KEY, token=TOKEN)
    settings = Settings(
        legacy_url="http://emulator/api/v1",
        legacy_key=Secret(LEGACY_KEY),
        v1_url="http://emulator/v1",
        token=Secret(TOKEN),
        state=str(state),
        migration="bench-verify",
    )
    wires = Transports(httpx.ASGITransport(app=app), httpx.ASGITransport(app=app))
    started = time.perf_counter()
    resumes = 0
    while True:
        try:
            await migrate(settings, dry_run=False, progress=Progress(), transports=wires)
            break
        except (ResumableStop, StateLockedError):
            # A resumable stop is part of the engine's contract: run the same migration again, as an operator would.
            resumes += 1
            if resumes > MAX_RESUMES:
                raise
    migrate_s = time.perf_counter() - started
    started = time.perf_counter()
    report = await verify(settings, VerifyOptions(), wires)
    verify_s = time.perf_counter() - started
    source = service.workspace("source")
    projects = [p for p in source.projects.values() if not p.deleted]
    projects_x_phases = sum(len(p.phases) for p in projects)
    compared = sum(len(p.phases) for p in report.projects)
    return {
        "size": SIZE,
        "reconciled": report.reconciled,
        "verdicts": report.verdicts.model_dump(),
        "projects": len(report.projects),
        "projects_x_phases": projects_x_phases,
        "phases_compared": compared,
        "verify_requests": sum(report.requests.values()),
        "verify_requests_legacy": report.requests.get("legacy", 0),
        "verify_requests_v1": report.requests.get("v1", 0),
        "verify_s": round(verify_s, 2),
        "migrate_s": round(migrate_s, 2),
        "migrate_resumes": resumes,
        "lines": sum(len(p.nodes) for p in projects),
    }


async def _give_actuals(base: str, count: int) -> str:
    """Replace the actuals of the `small` workspace's first project by ``count`` new ones; its legacy id."""
    async with open_legacy(f"{base}/api/v1", Secret(SERVED_KEY), RunControls()) as legacy:
        project = min(p.id for p in await legacy.projects() if p.status == "active")
        lines = sorted(line.id for line in (await legacy.budget(project)).lines if line.type == "line")
    rng = random.Random(count)
    async with httpx.AsyncClient(base_url=f"{base}/api/v1", headers={"X-API-Key": SERVED_KEY}, timeout=120) as client:
        for first in range(0, count, BATCH):
            rows: list[dict[str, object]] = []
            for n in range(first, min(count, first + BATCH)):
                amount = rng.randint(500, 500_000) / 100
                row: dict[str, object] = {
                    "description": f"Actual {n}",
                    "amount": amount,
                    "date": f"{FIRST_DAY + timedelta(days=rng.randrange(365))}T12:00:00Z",
                    "accountId": rng.choice(lines),
                }
                if n % SPLIT_EVERY == 0:
                    part = round(amount / 2, 2)
                    row["subActuals"] = [
                        {"amount": part, "accountId": rng.choice(lines), "description": "part 1"},
                        {"amount": round(amount - part, 2), "accountId": rng.choice(lines), "description": "part 2"},
                    ]
                rows.append(row)
            # The first batch replaces the seeded actuals: the project then holds exactly ``count``.
            batch = {"actuals": rows, "replace": not first}
            (await client.post(f"/projects/{project}/actuals/batch", json=batch)).raise_for_status()
    return project


def _actuals_case(count: int) -> tuple[float, dict[str, object]]:
    """One project of ``count`` actuals, migrated, then verified in a process of its own: that process's peak
    resident memory (MB), and the case's figures."""
    with emulator("small") as served, tempfile.TemporaryDirectory() as scratch:
        project = asyncio.run(_give_actuals(served.base, count))
        env = {
            **os.environ,
            "BRIDGE_LEGACY_URL": f"{served.base}/api/v1",
            "BRIDGE_V1_URL": f"{served.base}/v1",
            "BRIDGE_LEGACY_KEY": SERVED_KEY,
            "BRIDGE_V1_TOKEN": served.token,
            "BRIDGE_STATE": str(Path(scratch) / "state.sqlite"),
        }
        started = time.monotonic()
        subprocess.run(
            [*BRIDGE, "run", "--project", project], env=env, capture_output=True, check=True, timeout=TIME_LIMIT_S
        )
        migrate_s = time.monotonic() - started
        reports = Path(scratch) / "reports"
        probe = [sys.executable, "-c", PROBE, "verify", "--project", project, "--report-dir", str(reports), "--json"]
        done = subprocess.run(probe, env=env, capture_output=True, text=True, check=False, timeout=TIME_LIMIT_S)
        measured = json.loads(done.stderr.strip().splitlines()[-1])
        report = json.loads((reports / "reconciliation.json").read_text())
    actuals = [a for p in report["projects"] for a in p["actuals"]]
    peak_mb = round(measured["peak_kb"] / 1024, 1)
    return peak_mb, {
        "actuals_compared": sum(a["legacy_count"] for a in actuals),
        "transactions_compared": sum(a["v1_count"] for a in actuals),
        "verify_peak_rss_mb": peak_mb,
        "verify_s": round(measured["wall_s"], 1),
        "verify_exit": measured["exit"],
        "reconciled": report["reconciled"],
        "migrate_s": round(migrate_s, 1),
    }


def run() -> dict[str, object]:
    configure_logging("WARNING")  # a request log line per call would dominate what is measured
    with tempfile.TemporaryDirectory() as tmp:
        # the loop `bridge run` and `bridge verify` use
        figures: dict[str, object] = uvloop.run(_measure(Path(tmp) / "state.db"))
    peaks: list[float] = []
    for count in ACTUALS:
        peak, figures[f"actuals_{count}"] = _actuals_case(count)
        peaks.append(peak)
    figures["rss_spread_mb"] = round(max(peaks) - min(peaks), 1)
    figures["rss_method"] = (
        f"VmHWM of a `bridge verify --project` process, read by itself as it exits, on one project of "
        f"{' and of '.join(f'{n:,}' for n in ACTUALS)} actuals (every {SPLIT_EVERY}th split in two); the emulator "
        "and the migration in processes of their own"
    )
    return figures
