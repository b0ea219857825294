"""Bridge mode on `medium` with 20 ms added to every answer of both surfaces: what an idle cycle of a watch costs,
what one change costs, and the lag a watch keeps.

The emulator runs in a process of its own (`bridge emulate --size medium`), so the CPU counted is the bridge's.
After a `bridge run` and a `bridge plan` (whose legacy reads are the bound an idle cycle's reads are held to), one
`bridge sync --watch --interval 5s --json` runs through everything; each cycle's line says the CPU seconds the
cycle took (``cpuMs``), and the emulator's counters are read as each line arrives:

- idle: the cycles after the first (which maps everything once and finds the projects quiet, ``engine.quiet``):
  median CPU, legacy reads, v1 reads and v1 writes of one cycle, beside the plan's legacy reads;
- one change: an actual's amount changed on legacy: the v1 writes and CPU of the cycle that carries it (exactly
  one PATCH expected);
- lag: an actual's amount is changed on legacy ``LAG_EDITS`` times at random instants; each lag is from the
  legacy write to the moment v1 shows the new amount (polled every 0.2 s): p50, p95 and max, beside the interval;
  and the source and apply lag the watch measured of every record it wrote (``sync.lag``).
"""

from __future__ import annotations

import json
import os
import queue
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import tomllib
from pathlib import Path

import httpx

LAG_EDITS = 8
INTERVAL_S = 5.0
IDLE_CYCLES = 3
LATENCY_MS = 20
BRIDGE = Path(sys.executable).with_name("bridge")


def _emulator(folder: Path) -> tuple[subprocess.Popen[bytes], dict[str, str]]:
    manifest = folder / "fleet.toml"
    latency = ("--latency-ms", str(LATENCY_MS), "--legacy-latency-ms", str(LATENCY_MS))
    process = subprocess.Popen(
        [str(BRIDGE), "emulate", "--size", "medium", "--port", "0", *latency, "--write-manifest", str(manifest)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 120
    while not manifest.exists():
        if time.monotonic() > deadline or process.poll() is not None:
            raise RuntimeError("the medium emulator did not start")
        time.sleep(0.2)
    (workspace,) = tomllib.loads(manifest.read_text())["workspace"]
    env = {k: v for k, v in os.environ.items() if not k.startswith("BRIDGE_")}
    env |= {
        "BRIDGE_LEGACY_URL": workspace["legacy_url"],
        "BRIDGE_V1_URL": workspace["v1_url"],
        "BRIDGE_LEGACY_KEY": (folder / workspace["legacy_key_file"]).read_text().strip(),
        "BRIDGE_V1_TOKEN": (folder / workspace["token_file"]).read_text().strip(),
        "BRIDGE_STATE": str(folder / "state.db"),
        "NO_COLOR": "1",
    }
    return process, env


def _bridge(env: dict[str, str], *args: str) -> None:
    done = subprocess.run([str(BRIDGE), *args], env=env, capture_output=True, text=True, check=False)
    if done.returncode not in (0, 1):
        raise RuntimeError(f"bridge {' '.join(args)}: exit {done.returncode}: {done.stderr[-2000:]}")


def _stats(env: dict[str, str]) -> dict[str, int]:
    base = env["BRIDGE_V1_URL"].removesuffix("/v1")
    answer = httpx.get(f"{base}/_emulator/stats", timeout=30).json()
    surfaces = answer["requests"]["bySurface"]
    return {"legacy": int(surfaces.get("legacy", 0)), "v1": int(surfaces.get("v1", 0)), "writes": int(answer["writes"])}


def _moved(before: dict[str, int], after: dict[str, int]) -> dict[str, int]:
    return {
        "legacy_reads": after["legacy"] - before["legacy"],
        "v1_reads": (after["v1"] - before["v1"]) - (after["writes"] - before["writes"]),
        "v1_writes": after["writes"] - before["writes"],
    }


class _Actual:
    """One plain actual of the first project, changed on legacy and watched on v1."""

    def __init__(self, env: dict[str, str]) -> None:
        self.legacy = httpx.Client(
            base_url=env["BRIDGE_LEGACY_URL"], headers={"X-API-Key": env["BRIDGE_LEGACY_KEY"]}, timeout=60
        )
        self.v1 = httpx.Client(
            base_url=env["BRIDGE_V1_URL"], headers={"Authorization": f"Bearer {env['BRIDGE_V1_TOKEN']}"}, timeout=60
        )
        project = self.legacy.get("/projects", params={"idMode": "system"}).json()["projects"][0]["id"]
        rows = self.legacy.get(f"/projects/{project}/actuals", params={"idMode": "system"}).json()["actuals"]
        self.path = f"/projects/{project}/actuals/{next(r for r in rows if not r.get('subactuals'))['id']}"
        self.legacy_id = self.path.rsplit("/", 1)[1]
        self.project = project
        self.env = env

    def v1_id(self) -> str:
        found = subprocess.run(
            [str(BRIDGE), "crosswalk", "lookup", "actual", self.legacy_id, "--scope", self.project],
            env=self.env,
            capture_output=True,
            text=True,
            check=True,
        )
        return found.stdout.strip()

    def change(self, amount: float) -> None:
        self.legacy.put(self.path, json={"amount": amount}).raise_for_status()

    def on_v1(self, v1_id: str) -> int:
        return int(self.v1.get(f"/transactions/{v1_id}").json()["amount"]["amount"])


class _Watch:
    """`bridge sync --watch`, its lines read as they come (a thread: a full pipe would stall the watch), each with
    the emulator's counters as it arrived."""

    def __init__(self, env: dict[str, str]) -> None:
        self.env = env
        self.process = subprocess.Popen(
            [str(BRIDGE), "sync", "--watch", "--interval", f"{INTERVAL_S}s", "--json"],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        self.lines: queue.Queue[tuple[dict[str, object], dict[str, int]] | None] = queue.Queue()
        self.seen: list[dict[str, object]] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        last = _stats(self.env)
        for line in self.process.stdout:
            now = _stats(self.env)
            record: dict[str, object] = json.loads(line)
            self.seen.append(record)
            self.lines.put((record, _moved(last, now)))
            last = now
        self.lines.put(None)

    def cycle(self) -> tuple[dict[str, object], dict[str, int]]:
        """The next cycle's line and the requests it made."""
        found = self.lines.get(timeout=600)
        if found is None:
            raise RuntimeError("the watch stopped")
        return found

    def lags(self, name: str) -> list[float]:
        """Every record's lag of one kind (``sourceMs``, ``applyMs``) in the lines seen, in seconds."""
        found: list[float] = []
        for record in self.seen:
            lag = record.get("lag")
            for project in lag.values() if isinstance(lag, dict) else ():
                found += [int(ms) / 1000 for ms in project.get(name, ())]
        return sorted(found)

    def stop(self) -> None:
        self.process.send_signal(signal.SIGTERM)
        self.process.wait(timeout=600)


def _p95(values: list[float]) -> float:
    return round(values[min(len(values) - 1, round(0.95 * (len(values) - 1)))], 2)


def _lag(actual: _Actual) -> list[float]:
    v1_id = actual.v1_id()
    rng = random.Random(32)
    lags: list[float] = []
    for n in range(LAG_EDITS):
        time.sleep(rng.uniform(0, INTERVAL_S))
        amount = 500 + n
        actual.change(amount)
        written = time.monotonic()
        while actual.on_v1(v1_id) != amount * 100:
            if time.monotonic() - written > 300:
                raise RuntimeError("a change did not reach v1 within 300 s")
            time.sleep(0.2)
        lags.append(time.monotonic() - written)
    return lags


def _cpu(record: dict[str, object]) -> float:
    cpu = record["cpuMs"]
    assert isinstance(cpu, int)
    return cpu / 1000


def run() -> dict[str, object]:
    with tempfile.TemporaryDirectory() as directory:
        folder = Path(directory)
        emulator, env = _emulator(folder)
        try:
            _bridge(env, "run")
            before = _stats(env)
            _bridge(env, "plan")
            plan_reads = _moved(before, _stats(env))["legacy_reads"]
            watch = _Watch(env)
            try:
                first, _ = watch.cycle()
                idle = [watch.cycle() for _ in range(IDLE_CYCLES)]
                actual = _Actual(env)
                actual.change(4321.5)
                changed, one_change = watch.cycle()
                while not changed["requests"]:  # the edit landed after that cycle's read
                    changed, one_change = watch.cycle()
                lags = sorted(_lag(actual))
                watch.cycle()  # the last edit's cycle line, with its lag
            finally:
                watch.stop()
            source, apply = watch.lags("sourceMs"), watch.lags("applyMs")
        finally:
            emulator.send_signal(signal.SIGTERM)
            emulator.wait(timeout=60)
    cpu = [_cpu(record) for record, _ in idle]
    return {
        "size": "medium",
        "latency_ms": LATENCY_MS,
        "plan_legacy_reads": plan_reads,
        "first_cycle_cpu_s": _cpu(first),
        "idle_cycle_cpu_s": round(statistics.median(cpu), 3),
        "idle_cycle_cpu_max_s": round(max(cpu), 3),
        "idle_cycle_quiet_projects": len(idle[-1][0]["quiet"]),  # type: ignore[arg-type]
        **{f"idle_cycle_{name}": max(moved[name] for _, moved in idle) for name in idle[0][1]},
        **{f"one_change_{name}": value for name, value in one_change.items()},
        "one_change_cpu_s": _cpu(changed),
        "watch_interval_s": INTERVAL_S,
        "lag_edits": len(lags),
        "lag_p50_s": round(statistics.median(lags), 2),
        "lag_p95_s": _p95(lags),
        "lag_max_s": round(lags[-1], 2),
        "source_lag_records": len(source),
        "source_lag_p50_s": round(statistics.median(source), 2),
        "source_lag_p95_s": _p95(source),
        "apply_lag_p95_s": _p95(apply),
    }
