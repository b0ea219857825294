"""Seed generation and first-read totals per size, each size in a fresh process (its own VmHWM is its peak)."""

from __future__ import annotations

import json
import subprocess
import sys

PROBE = """
import json, time
from pathlib import Path
from bridge.emulator.core.seed import seeded_service
size = SIZE
wall, cpu = time.perf_counter(), time.process_time()
service = seeded_service(42, size)
gen_wall, gen_cpu = time.perf_counter() - wall, time.process_time() - cpu
source = service.workspace("source")
biggest = max(source.projects.values(), key=lambda p: len(p.nodes))
service.touch(biggest)
wall, cpu = time.perf_counter(), time.process_time()
service.totals(source, biggest)
totals_wall, totals_cpu = time.perf_counter() - wall, time.process_time() - cpu
wall = time.perf_counter()
service.totals(source, biggest)
cached_ms = (time.perf_counter() - wall) * 1000
print(json.dumps({
    "lines": sum(1 for p in source.projects.values() for n in p.nodes.values() if n.type == "line"),
    "actuals": sum(len(p.actuals) for p in source.projects.values()),
    "generate_wall_s": round(gen_wall, 2), "generate_cpu_s": round(gen_cpu, 2),
    "biggest_project_nodes": len(biggest.nodes),
    "totals_wall_s": round(totals_wall, 2), "totals_cpu_s": round(totals_cpu, 2),
    "cached_totals_ms": round(cached_ms, 3),
    # VmHWM, not ru_maxrss: Linux carries the spawning process's peak into a child's ru_maxrss across exec.
    "peak_rss_mb": round(int(next(r for r in Path("/proc/self/status").read_text().splitlines()
                                  if r.startswith("VmHWM:")).split()[1]) / 1024, 1),
}))
"""


def run() -> dict[str, object]:
    """Figures per size: generation wall/CPU seconds, first and cached totals of the biggest project, peak RSS."""
    figures: dict[str, object] = {}
    for size in ("small", "medium", "large"):
        done = subprocess.run(
            [sys.executable, "-c", PROBE.replace("SIZE", repr(size))],
            capture_output=True,
            text=True,
            check=True,
            timeout=600,
        )
        figures[size] = json.loads(done.stdout.strip().splitlines()[-1])
    return figures
