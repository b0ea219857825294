"""Mapping throughput: records per second and peak memory mapping a whole generated workspace.

The records come from the emulator's seeded ``large`` workspace read through the legacy surface in process
(ASGI transport, the real legacy client), exactly what a run maps. Reading is timed apart; the figures
that matter are the mapping's own: every family mapped as a dry run would (``map_workspace`` in
tests/mappings/legacy_workspace.py: a lookup that answers a placeholder id for every record, so every
request body is built), timed, then traced with tracemalloc in a second pass (peak = memory the mapping
allocates beyond the records it reads). Set BENCH_MAPPINGS_SIZE=small|medium|large (default large).
If the emulator cannot serve the workspace, tests/strategies.generated_budget builds one, and ``source``
says so.
"""

from __future__ import annotations

import asyncio
import gc
import os
import time
import tracemalloc
from typing import cast

from bridge.emulator.app import create_app
from bridge.emulator.core.seed import Size, seeded_service
from mappings.records import Project
from tests.mappings.legacy_workspace import LegacyWorkspace, map_workspace, read_workspace
from tests.strategies import generated_budget

KEY = "lk_bench_mappings_key_0123456789"
LINES = {"small": 300, "medium": 5_000, "large": 50_000}


def _generated(size: str) -> LegacyWorkspace:
    budgets = [generated_budget(f"p{i}", LINES[size] // 4, seed=i) for i in range(4)]
    return LegacyWorkspace(budgets=budgets, projects=[Project(id=b.project_id, name=b.project_id) for b in budgets])


def run() -> dict[str, object]:
    size = os.environ.get("BENCH_MAPPINGS_SIZE", "large")
    started = time.perf_counter()
    try:
        app = create_app(seeded_service(42, cast(Size, size)), legacy_key=KEY)
        workspace = asyncio.run(read_workspace(app, KEY))
        source = f"emulator seed 42 '{size}' via the legacy surface (in process)"
    except Exception as exc:  # noqa: BLE001 - any emulator failure falls back to the generator, and says so
        workspace = _generated(size)
        source = f"tests/strategies.generated_budget ({size}); emulator unavailable: {type(exc).__name__}"
    read_s = time.perf_counter() - started
    gc.collect()
    started, cpu_started = time.perf_counter(), time.process_time()
    result = map_workspace(workspace)
    map_s = time.perf_counter() - started
    # CPU time as well: on a shared machine the wall clock also measures the neighbours.
    map_cpu_s = time.process_time() - cpu_started
    # Memory in a second pass: tracemalloc slows allocation several-fold and would distort the rate.
    gc.collect()
    tracemalloc.start()
    map_workspace(workspace)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    records = workspace.records
    return {
        "source": source,
        "records": records,
        "requests_built": result.requests,
        "quarantined": len(result.quarantined),
        "read_s": round(read_s, 2),
        "map_s": round(map_s, 2),
        "map_cpu_s": round(map_cpu_s, 2),
        "records_per_s": round(records / map_s) if map_s else None,
        "records_per_cpu_s": round(records / map_cpu_s) if map_cpu_s else None,
        "map_peak_mb": round(peak / 2**20, 1),
    }
