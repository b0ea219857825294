"""Bridge mode on `medium`: what an idle sync cycle costs, what one change costs, and the lag a watch keeps.

The emulator runs in a process of its own (`bridge emulate --size medium`), so the CPU counted is the bridge's.
After a `bridge run` and a first `bridge sync --once` (which reads back what v1 holds):

- idle: cycles with nothing changed, each a fresh `bridge sync --once` (``bench_cli.measure``: median wall
  and CPU seconds, max RSS), and the requests of one cycle per surface (the emulator's counters): legacy reads,
  v1 reads, v1 writes;
- one change: an actual's amount changed on legacy, then one cycle: its v1 writes (exactly one PATCH expected);
- lag: a `sync --watch --interval 5s` runs while an actual's amount is changed on legacy ``LAG_EDITS`` times at
  random instants; each lag is from the legacy write to the moment v1 shows the new amount (polled every 0.2
  s): p50, p95 and max, beside the interval.
"""

from __future__ import annotations

import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

import httpx

from bench.bench_cli import measure

LAG_EDITS = 8
INTERVAL_S = 5.0
BRIDGE = Path(sys.executable).with_name("bridge")


def _emulator(folder: Path) -> tuple[subprocess.Popen[bytes], dict[str, str]]:
    manifest = folder / "fleet.toml"
    process = subprocess.Popen(
        [str(BRIDGE), "emulate", "--size", "medium", "--port", "0", "--write-manifest", str(manifest)],
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


def _lag(env: dict[str, str], actual: _Actual) -> list[float]:
    v1_id = actual.v1_id()
    watch = subprocess.Popen(
        [str(BRIDGE), "sync", "--watch", "--interval", f"{INTERVAL_S}s"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    rng = random.Random(32)
    lags: list[float] = []
    try:
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
    finally:
        watch.send_signal(signal.SIGTERM)
        watch.wait(timeout=600)
    return lags


def run() -> dict[str, object]:
    with tempfile.TemporaryDirectory() as directory:
        folder = Path(directory)
        emulator, env = _emulator(folder)
        try:
            _bridge(env, "run")
            _bridge(env, "sync", "--once")
            before = _stats(env)
            _bridge(env, "sync", "--once")
            idle_requests = _moved(before, _stats(env))
            idle = measure(("sync", "--once"), env)
            actual = _Actual(env)
            actual.change(4321.5)
            before = _stats(env)
            _bridge(env, "sync", "--once")
            one_change = _moved(before, _stats(env))
            lags = sorted(_lag(env, actual))
        finally:
            emulator.send_signal(signal.SIGTERM)
            emulator.wait(timeout=60)
    return {
        "size": "medium",
        "idle_cycle_wall_s": idle["wall_s"],
        "idle_cycle_cpu_s": idle["cpu_s"],
        "idle_cycle_max_rss_mb": idle["max_rss_mb"],
        **{f"idle_cycle_{name}": value for name, value in idle_requests.items()},
        **{f"one_change_{name}": value for name, value in one_change.items()},
        "watch_interval_s": INTERVAL_S,
        "lag_edits": len(lags),
        "lag_p50_s": round(statistics.median(lags), 2),
        "lag_p95_s": round(lags[min(len(lags) - 1, round(0.95 * (len(lags) - 1)))], 2),
        "lag_max_s": round(lags[-1], 2),
    }
