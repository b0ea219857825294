"""The engine's figures, measured in one run: `medium` at 20 ms latency, the naive way, and memory on `large`.

- ``wall_s``: one migration of the seeded `medium` workspace (seed 42) through ``bridge.engine.run.migrate``,
  the code `bridge run` runs, against the emulator served by `bridge emulate` in its own process on a
  loopback port with 20 ms injected latency on every v1 request;
- ``requests`` (v1 writes sent) beside ``minimum_requests``: the same writes with every bulk filled to its
  limit (100 lines per tree level and project, 500 transactions per project); kinds without a bulk endpoint
  need one request per record either way;
- ``naive_wall_s``: one request per record, sequential, at the same latency. Timed on a sample of
  ``NAIVE_SAMPLE`` single-record creates and extrapolated to the records the run migrated (said so in
  ``naive_method``);
- ``lower_bound_s``: the least wall time any schedule of the same requests could take at that latency and the
  run's concurrency (``bench.bound``: latency only, each request after the answers it needs, at most
  ``concurrency`` in flight), and ``wall_over_bound``, how far the run is from it. Levels are those every
  request of a kind has whatever its record holds (``_level``); the v1 reads are counted at level 1 and the
  legacy reads at the legacy surface's latency, both as the emulator counted them during the run;
- ``engine_cpu_s`` and ``emulator_cpu_s``: the CPU time the run's process (every thread) and the emulator's
  process spent during that migration. Both share this machine's cores, so they say which one bounds the wall
  time;
- ``cpu_floor_s``: their sum over this machine's cores, the least wall time that CPU allows even if the two
  processes never waited for each other, and ``floor_over_bound``, that floor over ``lower_bound_s``: the wall
  cannot come nearer the bound than this ratio on this machine until a request costs less CPU on one side or the
  other;
- ``peak_rss_mb``: the peak resident memory of a `bridge run` process migrating `large` (a child process, its
  ``ru_maxrss``), the emulator again in a process of its own.
"""

from __future__ import annotations

import asyncio
import math
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
import uvloop

from bench.bound import lower_bound_s
from bridge.clients.http import RunControls
from bridge.clients.legacy import open_legacy
from bridge.clients.limiter import AimdLimiter
from bridge.clients.retry import RetryBudget
from bridge.clients.v1_requests import BY_ID
from bridge.config import Secret, Settings
from bridge.engine.kinds import Scope, spec
from bridge.engine.progress import Progress
from bridge.engine.run import migrate
from bridge.logging import configure_logging
from mappings.kinds import Kind
from mappings.lines import plan_budget
from state.store import open_state

LATENCY_MS = 20
# `bridge emulate --latency-ms` delays the v1 surface only (the emulator's fault layer): legacy reads pay none.
LEGACY_LATENCY_MS = 0
NAIVE_SAMPLE = 150
# A full `large` run took 273 s on a busy 2-core machine (peak 200 MB): the limit leaves room to finish.
LARGE_TIME_LIMIT_S = 720
BRIDGE = [sys.executable, "-c", "from bridge.cli import main; main()"]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


LEGACY_KEY = "bench-legacy-key-0001"


@dataclass(frozen=True, slots=True)
class Served:
    """A `bridge emulate` process: its base URL, a v1 token for `target`, and its pid."""

    base: str
    token: str
    pid: int

    def cpu_s(self) -> float:
        """The CPU seconds the emulator process has used so far (user and system, from /proc)."""
        fields = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@contextmanager
def emulator(size: str, latency_ms: float = 0) -> Iterator[Served]:
    """`bridge emulate` in its own process, with a fresh v1 token for `target`."""
    port = _free_port()
    command = [*BRIDGE, "emulate", "--port", str(port), "--size", size, "--latency-ms", str(latency_ms)]
    # The emulator takes credentials from its environment, never as options (they would show in `ps`).
    environment = {**os.environ, "EMULATOR_LEGACY_KEY": LEGACY_KEY}
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, env=environment)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 600
        while True:
            try:
                answer = httpx.post(f"{base}/_emulator/tokens", json={"workspace": "target"}, timeout=30)
                break
            except httpx.TransportError:
                if time.monotonic() > deadline or process.poll() is not None:
                    raise
                time.sleep(0.2)
        yield Served(base, str(answer.json()["token"]), process.pid)
    finally:
        process.terminate()
        process.wait(timeout=30)


def _settings(base: str, token: str, state: Path) -> Settings:
    return Settings(
        legacy_url=f"{base}/api/v1",
        legacy_key=Secret(LEGACY_KEY),
        v1_url=f"{base}/v1",
        token=Secret(token),
        state=state,
        concurrency=16,
    )


async def _minimum_requests(base: str, sent: dict[Kind, int]) -> int:
    """The requests the bulk limits allow at best: every bulk full (100 lines per tree level and project, 500
    transactions per project); kinds without a bulk endpoint need one request per record either way."""
    bulks = 0
    async with open_legacy(f"{base}/api/v1", Secret(LEGACY_KEY), RunControls()) as legacy:
        for project in await legacy.projects():
            globals_ = await legacy.globals(project.id)
            tree = plan_budget(await legacy.budget(project.id), {g.symbol for g in globals_ if g.symbol})
            bulks += sum(
                math.ceil(n / BY_ID[spec(Kind.LINE).create].bulk_limit) for n in Counter(tree.depth.values()).values()
            )
            body, _ = await legacy.get_json(f"/projects/{project.id}/actuals")
            actuals = body.get("actuals", []) if isinstance(body, dict) else []
            bulks += math.ceil(len(actuals) / BY_ID[spec(Kind.ACTUAL).create].bulk_limit)
    return bulks + sum(n for kind, n in sent.items() if kind not in (Kind.LINE, Kind.ACTUAL))


def _level(kind: Kind) -> int:
    """The level every request of ``kind`` has whatever its record holds: a project-scoped kind needs its
    project's v1 id (in its route, or a transaction bulk's body) and a split item its transaction's (in its
    route). The other needs ``SPECS`` declares hold only for records that reference them (a phase without a
    currency needs no currency copy), so the bound does not count on them (``bench.bound``)."""
    if kind is Kind.SPLIT:
        return 1 + _level(Kind.ACTUAL)
    return 2 if spec(kind).scope is Scope.PROJECT else 1


def _bound(sent: dict[Kind, int], routes: dict[str, int], concurrency: int) -> tuple[float, str]:
    """The run's lower bound and how it was reached (``sent``: writes per kind; ``routes``: the emulator's
    request counts)."""
    levels = Counter({1: sum(n for route, n in routes.items() if route.startswith("GET /v1/"))})
    for kind, requests in sent.items():
        levels[_level(kind)] += requests
    legacy_reads = sum(n for route, n in routes.items() if route.startswith("GET /api/v1/"))
    bound = lower_bound_s(
        levels,
        concurrency=concurrency,
        latency_s=LATENCY_MS / 1000,
        other_reads=legacy_reads,
        other_latency_s=LEGACY_LATENCY_MS / 1000,
    )
    method = (
        f"max over level k of (k - 1 + ceil(v1 requests at level >= k / {concurrency})) x {LATENCY_MS} ms, "
        f"v1 requests by level {dict(sorted(levels.items()))}, {legacy_reads} legacy reads at {LEGACY_LATENCY_MS} ms"
    )
    return bound, method


async def _naive(base: str, token: str, project: str) -> float:
    """Seconds per single-record create, sent one after another (contacts, lines, transactions alike)."""
    headers = {"Authorization": f"Bearer {token}"}
    async with httpx.AsyncClient(base_url=f"{base}/v1", headers=headers, timeout=60) as v1:
        started = time.monotonic()
        for n in range(NAIVE_SAMPLE):
            key = {"Idempotency-Key": f"naive-sample-{n:012d}-{os.getpid()}"}
            if n % 3 == 0:
                await v1.post("/contacts", json={"name": f"Naive {n}"}, headers=key)
            elif n % 3 == 1:
                await v1.post(
                    f"/projects/{project}/budget/lines", json={"description": f"n{n}", "type": "account"}, headers=key
                )
            else:
                body = {
                    "type": "Invoice",
                    "amount": {"amount": 100, "currency": "USD"},
                    "timestamp": "2025-01-01",
                    "projectId": project,
                }
                await v1.post("/transactions", json=body, headers=key)
        return (time.monotonic() - started) / NAIVE_SAMPLE


def _medium() -> dict[str, object]:
    with emulator("medium", LATENCY_MS) as served, tempfile.TemporaryDirectory() as scratch:
        base, token = served.base, served.token
        settings = _settings(base, token, Path(scratch) / "state.sqlite")
        controls = RunControls(budget=RetryBudget(), limiter=AimdLimiter(settings.concurrency))
        started, cpu_started, emulator_started = time.monotonic(), time.process_time(), served.cpu_s()
        # on the event loop `bridge run` uses
        outcome = uvloop.run(migrate(settings, dry_run=False, progress=Progress(), controls=controls))
        wall = time.monotonic() - started
        engine_cpu, emulator_cpu = time.process_time() - cpu_started, served.cpu_s() - emulator_started
        routes = httpx.get(f"{base}/_emulator/stats", timeout=30).json()["requests"]["byRoute"]
        ledger = outcome.ledger
        sent = {row.kind: row.requests for row in ledger.ordered()}
        bound, bound_method = _bound(sent, routes, settings.concurrency)
        floor = (engine_cpu + emulator_cpu) / (os.cpu_count() or 1)
        minimum = asyncio.run(_minimum_requests(base, sent))
        records = sum(row.to_create + row.to_update for row in ledger.ordered())
        project = next(k for k in ledger.timings if k.startswith("project:")).removeprefix("project:")
        per_request = asyncio.run(_naive(base, token, _v1_project(settings, project)))
    return {
        "wall_s": round(wall, 2),
        "requests": ledger.requests,
        "minimum_requests": minimum,
        "records": records,
        "naive_wall_s": round(per_request * records, 1),
        "naive_method": f"{NAIVE_SAMPLE} single-record creates timed one after another, x {records} records",
        "speedup_vs_naive": round(per_request * records / wall, 1),
        "lower_bound_s": round(bound, 2),
        "wall_over_bound": round(wall / bound, 2),
        "bound_method": bound_method,
        "engine_cpu_s": round(engine_cpu, 2),
        "emulator_cpu_s": round(emulator_cpu, 2),
        "cpu_floor_s": round(floor, 2),
        "floor_over_bound": round(floor / bound, 2),
        "latency_ms": LATENCY_MS,
        "quarantined": len(ledger.quarantine),
    }


def _v1_project(settings: Settings, legacy_project: str) -> str:

    with open_state(str(settings.state), read_only=True) as store:
        found = store.crosswalk.lookup(Kind.PROJECT, legacy_project, "")
    return found or legacy_project


@dataclass(frozen=True, slots=True)
class Watched:
    """A `bridge run` child watched to its end: its peak resident memory, wall time, exit code, and whether it
    finished within its limit."""

    peak_rss_mb: float
    wall_s: float
    exit: int | None
    finished: bool


def watched_run(served: Served, state: Path, limit_s: float) -> Watched:
    """A whole `bridge run` of the served workspace over ``state`` in a child process, its memory read while it
    runs; past ``limit_s`` it is stopped with SIGTERM (a resumable stop, exit 130)."""
    env = {
        **os.environ,
        "BRIDGE_LEGACY_URL": f"{served.base}/api/v1",
        "BRIDGE_V1_URL": f"{served.base}/v1",
        "BRIDGE_LEGACY_KEY": LEGACY_KEY,
        "BRIDGE_V1_TOKEN": served.token,
        "BRIDGE_STATE": str(state),
    }
    started = time.monotonic()
    child = subprocess.Popen([*BRIDGE, "run", "--concurrency", "16"], env=env, stdout=subprocess.DEVNULL)
    # The child's own high-water mark (VmHWM), read while it runs: ru_maxrss would not do, as Linux carries
    # the spawning process's peak into the child's across exec, and this process held `medium` in memory.
    peak_kb = 0
    while child.poll() is None and time.monotonic() - started < limit_s:
        peak_kb = max(peak_kb, _high_water_kb(child.pid))
        time.sleep(0.2)
    finished = child.poll() is not None
    if not finished:
        child.send_signal(signal.SIGTERM)
        child.wait()
    return Watched(round(peak_kb / 1024, 1), round(time.monotonic() - started, 1), child.returncode, finished)


def _large_rss() -> dict[str, object]:
    with emulator("large") as served, tempfile.TemporaryDirectory() as scratch:
        watched = watched_run(served, Path(scratch) / "state.sqlite", LARGE_TIME_LIMIT_S)
        return {
            "peak_rss_mb": watched.peak_rss_mb,
            "large_wall_s": watched.wall_s,
            "large_exit": watched.exit,
            "rss_method": (
                "VmHWM of the `bridge run` child on `large`, read every 0.2 s, "
                + ("a complete run" if watched.finished else f"stopped after {LARGE_TIME_LIMIT_S} s")
            ),
        }


def _high_water_kb(pid: int) -> int:
    """The process's peak resident memory so far (VmHWM, kB); 0 once it has exited."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0
    line = next((row for row in status.splitlines() if row.startswith("VmHWM:")), "VmHWM: 0 kB")
    return int(line.split()[1])


def run() -> dict[str, object]:
    configure_logging("WARNING")
    figures = _medium()
    if os.environ.get("BENCH_SKIP_LARGE") != "1":
        figures.update(_large_rss())
    return figures
