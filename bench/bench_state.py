"""State-store figures: journal transitions per second on a real file (synchronous=FULL, one fsync each).

A "bulk" here is what the engine journals for one 100-line request: record (pending), complete with 100
crosswalk entries in the same transaction. Measured on the working directory's disk, in one process.
"""

from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path

from state import CrosswalkEntry, IntentSpec, open_state

BULKS = 40
MEMBERS = 100


def run() -> dict[str, object]:
    with tempfile.TemporaryDirectory(dir=Path.cwd()) as directory, open_state(Path(directory) / "s.db") as store:
        started = time.perf_counter()
        for n in range(BULKS):
            members = tuple(f"L{n}-{m}" for m in range(MEMBERS))
            body = json.dumps({"lines": [{"description": m} for m in members]})
            spec = IntentSpec(
                f"lines:P1:{n}", "lines", "POST", "/budget/lines/bulk", f"bench-key-{n:010d}", body, members, "P1"
            )
            store.journal.record(spec)
            store.journal.complete(spec.step_key, [CrosswalkEntry("lines", m, f"lin_{m}", "P1", "h") for m in members])
        elapsed = time.perf_counter() - started
        lookup_started = time.perf_counter()
        found = store.crosswalk.lookup_many("lines", (f"L{n}-{m}" for n in range(BULKS) for m in range(MEMBERS)), "P1")
        lookup_s = time.perf_counter() - lookup_started
    assert len(found) == BULKS * MEMBERS
    return {
        "bulk_intents_per_s": round(BULKS / elapsed, 1),
        "transition_ms": round(elapsed / (2 * BULKS) * 1000, 2),
        "crosswalk_entries_per_s": round(BULKS * MEMBERS / elapsed),
        "lookup_many_4000_ms": round(lookup_s * 1000, 1),
    }
