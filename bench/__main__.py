"""Run every benchmark module and write their figures, measured in this one run, to bench-results.json.

A benchmark module is `bench/bench_<area>.py` exposing `run() -> dict[str, object]`; its figures are
stored under its area name, and the engine's headline figures are also copied to the top level.

`python -m bench engine` runs only the areas named and keeps the others' last figures (the headline is copied
again from the engine's, whichever run measured it); `BENCH_SKIP_LARGE=1 python -m bench engine` runs the
engine's `medium` case alone (the engine area then holds no `large` figures).
"""

from __future__ import annotations

import importlib
import json
import pkgutil
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    only = set(sys.argv[1:])
    target = ROOT / "bench-results.json"
    # A partial run keeps the other areas (the objects); the headline figures are copied anew below.
    kept = json.loads(target.read_text()) if only and target.exists() else {}
    results: dict[str, object] = {area: figures for area, figures in kept.items() if isinstance(figures, dict)}
    results["measured_at"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    for module in sorted(m.name for m in pkgutil.iter_modules([str(Path(__file__).parent)])):
        if not module.startswith("bench_"):
            continue
        area = module.removeprefix("bench_")
        if only and area not in only:
            continue
        print(f"== {area}", flush=True)
        figures = importlib.import_module(f"bench.{module}").run()
        results[area] = figures
        for key, value in figures.items():
            print(f"   {key}: {value}", flush=True)
    engine = results.get("engine")
    if isinstance(engine, dict):
        results.update({k: v for k, v in engine.items() if k in HEADLINE})
    target.write_text(json.dumps(results, indent=2, sort_keys=True) + "\n")
    print(f"wrote {target}")
    return 0


HEADLINE = ("requests", "minimum_requests", "wall_s", "naive_wall_s", "lower_bound_s", "wall_over_bound", "peak_rss_mb")

if __name__ == "__main__":
    raise SystemExit(main())
