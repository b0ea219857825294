"""``create_app``: one emulator (both surfaces and the control API over one service), in process or served.

The emulator is split the way moto splits a fake backend: ``core`` (the store: typed records and their rules,
totals, seeds; no HTTP), one package per product surface (``legacy``: ``/api/v1`` with ``X-API-Key``; ``v1``:
``/v1`` with bearer tokens, routes the bridge never calls under ``v1/extras``), each parsing a request, calling
the core and shaping its answer, ``wire`` (what both surfaces write alike), and ``control`` (``/_emulator``,
faults, counters, capture, tenants, serving). This module assembles them over one state holder,
``app.state.emulator`` (``control.state.EmulatorState``).

Tests hand the app to ``httpx.ASGITransport``; ``bridge emulate`` serves the same app under uvicorn. With
``workspaces=N`` it serves N tenants (``bridge.emulator.control.tenants``), each a seeded source and a target
with their own legacy key and token, on ``app.state.emulator.tenants``.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI

from bridge.emulator.control import api as control_api
from bridge.emulator.control import approvals
from bridge.emulator.control import plans as control_plans
from bridge.emulator.control.capture import CaptureMiddleware
from bridge.emulator.control.faults import FaultMiddleware
from bridge.emulator.control.state import EmulatorState
from bridge.emulator.control.stats import StatsMiddleware
from bridge.emulator.control.tenants import Credentials, fleet, new_token
from bridge.emulator.core.ids import new_api_key
from bridge.emulator.core.seed import Size, seeded_fleet
from bridge.emulator.core.store import Service
from bridge.emulator.legacy.routing import TokenBucket
from bridge.emulator.legacy.workspace_routes import mount_legacy
from bridge.emulator.v1.surface import mount_v1

__all__ = ["Credentials", "create_app"]


def create_app(
    service: Service | None = None,
    *,
    seed: int = 42,
    size: Size = "small",
    dirty: bool = False,
    hostile: bool = False,
    target_library: bool = False,
    legacy_key: str | None = None,
    token: str | None = None,
    legacy_rate_limit: float | None = None,
    capture: Path | None = None,
    control_token: str | None = None,
    workspaces: int = 1,
) -> FastAPI:
    """The emulator app. Without ``service`` it seeds one from (seed, size); ``/_emulator/reset`` reseeds.

    ``legacy_key``/``token`` fix the credentials (generated otherwise; read them from
    ``app.state.credentials``). ``legacy_rate_limit`` turns on a per-key token bucket (requests per second,
    bursts of the same size) on the legacy surface (A02). ``capture`` appends every product exchange to that
    file as JSON lines (``bridge.emulator.control.capture``), for the contract conformance check. ``control_token``
    closes the control API to requests without ``Authorization: Bearer <control_token>``; without it the
    control API is open, which only a loopback listener may be (``bridge.emulator.control.serving``).

    ``workspaces`` tenants are served, the i-th source seeded ``seed + i``; ``legacy_key``/``token`` are the
    first tenant's, the others' are generated. ``app.state.emulator.tenants`` holds the ``Tenant``s (with their
    credentials); ``app.state.credentials`` is the first one's. A given ``service`` must hold every tenant's
    workspaces.
    """
    tenants = fleet(workspaces, seed, Credentials(legacy_key or new_api_key(), token or new_token()))

    def with_keys(fresh: Service) -> Service:
        for tenant in tenants:
            if tenant.credentials.legacy_key not in fresh.api_keys:
                fresh.add_api_key(tenant.source, tenant.credentials.legacy_key)
        return fresh

    def rebuild() -> Service:
        pairs = [(tenant.source, tenant.target) for tenant in tenants]
        return with_keys(seeded_fleet(pairs, seed, size, dirty=dirty, hostile=hostile, target_library=target_library))

    service = rebuild() if service is None else with_keys(service)

    # FastAPI's OpenTelemetry hooks asked the global providers on every request whether anyone listens; the
    # emulator has none to feed.
    app = FastAPI(
        title="workspace service emulator",
        docs_url=None,
        redoc_url=None,
        openapi_url=None,
        telemetry={"tracing": False, "metrics": False, "logs": False},
    )
    bucket = TokenBucket(rate=legacy_rate_limit, capacity=legacy_rate_limit) if legacy_rate_limit else None
    state = EmulatorState(
        service=service, rebuild=rebuild, tenants=tenants, control_token=control_token, legacy_bucket=bucket
    )
    for tenant in tenants:
        state.tokens.issue(service.workspace(tenant.target).id, "admin", token=tenant.credentials.token)
    app.state.emulator = state
    app.state.credentials = tenants[0].credentials
    # Mounted before the legacy surface: routes are tried one by one in mounting order, a migration sends many
    # more v1 requests than legacy ones, and no path of one surface can match a route of the other (nor of the
    # control API's).
    mount_v1(app)
    app.include_router(control_api.router)
    app.include_router(approvals.router)
    app.include_router(control_plans.router)
    mount_legacy(app)
    app.add_middleware(FaultMiddleware, injector=state.faults)
    # Outside the faults, so injected failures are counted too.
    app.add_middleware(StatsMiddleware, stats=state.stats, workspace_of=state.workspace_name_of)
    if capture is not None:  # outermost, so what faults answer is recorded as the client saw it
        app.add_middleware(CaptureMiddleware, path=capture)
    return app
