"""Verification cost on a migrated `medium` workspace: requests sent against projects x phases, and time.

The workspace is seeded and migrated in process by the engine (both surfaces over ``httpx.ASGITransport``),
then ``bridge.verify`` runs once. Figures: requests per surface, the number of projects times phases
(what a naive verifier reading one total per project and phase would send at the least), wall time,
whether the migration reconciled, and the verdict counts.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

import httpx
import uvloop

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


def run() -> dict[str, object]:
    configure_logging("WARNING")  # a request log line per call would dominate what is measured
    with tempfile.TemporaryDirectory() as tmp:
        return uvloop.run(_measure(Path(tmp) / "state.db"))  # the loop `bridge run` and `bridge verify` use
