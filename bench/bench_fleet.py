"""The fleet's throughput: 8 `small` workspaces at 20 ms latency, moved by 1, 2 and 4 worker processes.

Each worker count gets a fresh database on one throw-away PostgreSQL and a fresh `bridge emulate --workspaces
8` process. The workers start first and wait for work, as a fleet's workers do (they are services: started
once, they take workspaces as they are submitted); once each has said it started, the clock runs from the
manifest's submission until every workflow has finished, verified. Figures per count:

- ``wall_s``, ``workspaces_per_min`` and ``records_per_min`` (records: what the eight migrations mapped, from
  `bridge fleet status`);
- ``start_s``: from starting the workers to the last one saying it started (imports, DBOS's launch), outside
  ``wall_s``: a cost each worker pays once, not per workspace;
- ``worker_cpu_s`` and ``emulator_cpu_s``: user + system CPU of the worker processes together (start and exit
  included) and of the emulator (its start and seeding included);
- ``cores_busy``: the machine's busy CPU time during ``wall_s`` (workers, emulator and PostgreSQL alike, from
  /proc/stat) over ``wall_s``, beside ``cores``: so a reader sees whether latency or the machine's cores bound
  the figure (every process here shares the same cores; workers on machines of their own do not);
- ``cpu_floor_s``: that busy time over ``cores``, the least wall time the run's CPU allows on this machine, were
  no core ever idle;
- ``speedup``: 1 worker's wall time over this count's, and ``speedup_ceiling``, 1 worker's wall time over this
  count's ``cpu_floor_s``: the most speedup this machine's cores allow at the CPU the run spent.

The counts run ``ROUNDS`` times, interleaved (1, 2, 4, 1, 2, 4, ...), and each figure is the run of median wall
time for its count (``walls_s`` lists them all): this host's speed drifts by tens of per cent within minutes,
and one run per count let the drift decide the speedup (1.40x to 1.81x in three runs of one tree).

``WORKER_OPTIONS`` is each worker's share: two workspaces at once and at most 16 requests in flight, a worker
sized for one core.
"""

from __future__ import annotations

import os
import signal
import statistics
import subprocess
import tempfile
import time
import uuid
from pathlib import Path

from bridge.fleet.control import STATES, Fleet, open_fleet, submit
from bridge.fleet.manifest import load_manifest
from bridge.fleet.rehearsal import rehearsal
from bridge.localpg import LocalPostgres

WORKSPACES = 8
COUNTS = (1, 2, 4)
ROUNDS = 3
EMULATE = ("--size", "small", "--latency-ms", "20")
WORKER_OPTIONS = ("--workspaces", "2", "--concurrency", "16")
TICKS = os.sysconf("SC_CLK_TCK")
CORES = os.cpu_count() or 1
POLL_S = 0.1
TIME_LIMIT_S = 600


def _cpu_s(pid: int) -> float:
    """User + system CPU seconds of a live process (fields 14 and 15 of /proc/PID/stat)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def _one(server: LocalPostgres, workers: int, folder: Path) -> dict[str, float]:
    state = server.create_database(f"bench_fleet_{workers}_{uuid.uuid4().hex[:6]}")
    with rehearsal(folder, state, WORKSPACES, EMULATE) as fleet, open_fleet(state, create=True) as handle:
        began = time.monotonic()
        started = [fleet.start_worker(*WORKER_OPTIONS) for _ in range(workers)]
        fleet.wait_started()
        start = time.monotonic() - began
        clock, busy = time.monotonic(), _machine_busy_s()
        submitted = submit(handle, load_manifest(fleet.manifest))
        _wait_verified(handle, [row["workflow_id"] for row in submitted], folder)
        wall, busy = time.monotonic() - clock, _machine_busy_s() - busy
        worker_cpu = sum(_stop(worker) for worker in started)
        fleet.workers.clear()  # reaped
        emulator_cpu = _cpu_s(fleet.emulator.pid)
        rows = fleet.status()
    if any(row["reconciled"] is not True for row in rows):
        raise RuntimeError(f"not every workspace was verified and reconciled: {[r['state'] for r in rows]}")
    records = sum(info["migrated"] for row in rows for info in (row["counts"] or {}).values())
    return {
        "wall_s": round(wall, 2),
        "start_s": round(start, 2),
        "workspaces_per_min": round(WORKSPACES * 60 / wall, 2),
        "records_per_min": round(records * 60 / wall),
        "records": records,
        "worker_cpu_s": round(worker_cpu, 1),
        "emulator_cpu_s": round(emulator_cpu, 1),
        "cores_busy": round(busy / wall, 2),
        "cpu_floor_s": round(busy / CORES, 2),
    }


def _machine_busy_s() -> float:
    """CPU seconds the machine's cores have spent running anything so far: user, nice, system, irq and softirq
    time from /proc/stat (not idle, iowait, or steal, the time the hypervisor ran someone else)."""
    user, nice, system, _idle, _iowait, irq, softirq = map(int, Path("/proc/stat").read_text().split()[1:8])
    return (user + nice + system + irq + softirq) / TICKS


def _wait_verified(handle: Fleet, workflow_ids: list[str], folder: Path) -> None:
    """Until every workflow has finished (verified); one that failed or was cancelled stops the bench."""
    deadline = time.monotonic() + TIME_LIMIT_S
    while True:
        found = handle.client.list_workflows(workflow_ids=workflow_ids, load_input=False, load_output=False)
        states = [flow.status for flow in found]
        if len(states) == len(workflow_ids) and all(STATES.get(state) == "verified" for state in states):
            return
        if any(STATES.get(state) in ("stopped", "cancelled") for state in states) or time.monotonic() > deadline:
            raise RuntimeError(f"the fleet did not finish: {states}; see {folder}")
        time.sleep(POLL_S)


def _stop(worker: subprocess.Popen[bytes]) -> float:
    """SIGTERM a worker (it leaves the fleet) and reap it: its CPU seconds, user and system."""
    worker.send_signal(signal.SIGTERM)
    _, status, usage = os.wait4(worker.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"a worker exited {os.waitstatus_to_exitcode(status)}")
    return usage.ru_utime + usage.ru_stime


def median_run(runs: list[dict[str, float]], first_wall: float) -> dict[str, object]:
    """The run of median wall time, its speedup over ``first_wall`` and the most its CPU floor allows, and every
    run's wall time."""
    walls = [run["wall_s"] for run in runs]
    chosen = next(run for run in runs if run["wall_s"] == statistics.median_low(walls))
    return {
        **chosen,
        "speedup": round(first_wall / chosen["wall_s"], 2),
        "speedup_ceiling": round(first_wall / chosen["cpu_floor_s"], 2),
        "walls_s": walls,
    }


def run() -> dict[str, object]:
    figures: dict[str, object] = {"workspaces": WORKSPACES, "emulate": " ".join(EMULATE), "rounds": ROUNDS}
    figures["worker_options"] = " ".join(WORKER_OPTIONS)
    figures["cores"] = CORES
    runs: dict[int, list[dict[str, float]]] = {workers: [] for workers in COUNTS}
    with LocalPostgres() as server, tempfile.TemporaryDirectory(prefix="bench-fleet-") as scratch:
        for round_ in range(ROUNDS):
            for workers in COUNTS:
                runs[workers].append(_one(server, workers, Path(scratch) / f"round-{round_}-workers-{workers}"))
    first_wall = statistics.median_low([run["wall_s"] for run in runs[COUNTS[0]]])
    for workers in COUNTS:
        figures[f"workers_{workers}"] = median_run(runs[workers], first_wall)
    return figures
