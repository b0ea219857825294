"""Peak memory of a run that carries documents, against the same run without them (issue 30: within 20 MB).

Two `bridge emulate --size small` processes, seeded alike. On one, a project's actuals get 1,000 more
receipts (2 KiB each) and one of 10 MB (10,000,000 bytes: legacy's published limit), added through the legacy
attachment upload as a user would; the other is left as seeded. Each is migrated whole by a `bridge run`
child, whose own high-water mark (VmHWM) is read while it runs (``bench_engine.watched_run``).

Figures: ``documents_peak_rss_mb`` and ``baseline_peak_rss_mb`` (their difference ``documents_rss_over_mb``),
the documents uploaded and their bytes, and each run's wall time.
"""

from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path

import httpx

from bench.bench_engine import LEGACY_KEY, Served, emulator, watched_run

RECEIPTS = 1_000
RECEIPT_BYTES = 2048
LARGE_BYTES = 10_000_000  # legacy's "up to 10 MB"
RUN_LIMIT_S = 900


def _pdf(size: int, salt: int) -> bytes:
    """A PDF-looking file of ``size`` bytes, different per ``salt`` (each receipt is its own file)."""
    head = f"%PDF-1.4\n% bench receipt {salt}\n".encode()
    return head + bytes((salt + n) % 251 for n in range(size - len(head)))


def _add_receipts(served: Served) -> tuple[str, int]:
    """1,000 small receipts and one of 10 MB on the first project's actuals; the project and the bytes added."""
    headers = {"X-API-Key": LEGACY_KEY}
    with httpx.Client(base_url=f"{served.base}/api/v1", headers=headers, timeout=120) as legacy:
        project = str(legacy.get("/projects").json()["projects"][0]["id"])
        today = time.strftime("%Y-%m-%d")
        answer = legacy.get(f"/projects/{project}/actuals", params={"startDate": "2000-01-01", "endDate": today})
        actuals = [str(a["id"]) for a in answer.json()["actuals"]]
        added = 0
        for n in range(RECEIPTS + 1):
            size = LARGE_BYTES if n == RECEIPTS else RECEIPT_BYTES
            files = {"file": (f"bench-{n}.pdf", _pdf(size, n), "application/pdf")}
            sent = legacy.post(f"/projects/{project}/actuals/{actuals[n % len(actuals)]}/attachment", files=files)
            sent.raise_for_status()
            added += size
    return project, added


def _uploads(served: Served) -> tuple[int, int]:
    """The documents v1 holds and their bytes, read back."""
    with httpx.Client(base_url=f"{served.base}/v1", headers={"Authorization": f"Bearer {served.token}"}) as v1:
        count = size = 0
        cursor: str | None = None
        while True:
            page = v1.get("/documents", params={"limit": "100", **({"cursor": cursor} if cursor else {})}).json()
            count += len(page["data"])
            size += sum(int(d["size"]) for d in page["data"])
            cursor = page.get("nextCursor")
            if not cursor:
                return count, size


def run() -> dict[str, object]:
    with tempfile.TemporaryDirectory() as scratch:
        with emulator("small") as plain:
            baseline = watched_run(plain, Path(scratch) / "baseline.sqlite", RUN_LIMIT_S)
            seeded = _uploads(plain)
        with emulator("small") as served:
            project, added = _add_receipts(served)
            documents = watched_run(served, Path(scratch) / "documents.sqlite", RUN_LIMIT_S)
            uploaded = _uploads(served)
    return {
        "documents_peak_rss_mb": documents.peak_rss_mb,
        "baseline_peak_rss_mb": baseline.peak_rss_mb,
        "documents_rss_over_mb": round(documents.peak_rss_mb - baseline.peak_rss_mb, 1),
        "documents_uploaded": uploaded[0],
        "documents_bytes": uploaded[1],
        "documents_added": f"{RECEIPTS} x {RECEIPT_BYTES} B and 1 x {LARGE_BYTES} B on {project} ({added} B)",
        "baseline_documents": seeded[0],
        "documents_wall_s": documents.wall_s,
        "baseline_wall_s": baseline.wall_s,
        "exits": json.dumps([baseline.exit, documents.exit]),
    }
