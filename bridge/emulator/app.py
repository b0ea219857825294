"""``create_app``: one emulator (both surfaces and the control API over one service), in process or served.

Tests hand the app to ``httpx.ASGITransport``; ``bridge emulate`` serves the same app under uvicorn. With
``workspaces=N`` it serves N tenants (``bridge.emulator.control.tenants``), each a seeded source and a target with
their own legacy key and token, on ``app.state.fleet``.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI

from bridge.emulator.control.capture import CaptureMiddleware
from bridge.emulator.control.state import V1Context
from bridge.emulator.control.tenants import Credentials, fleet, new_token
from bridge.emulator.core.seed import Size, seeded_fleet
from bridge.emulator.core.store import Service
from bridge.emulator.core.workspaces import new_api_key
from bridge.emulator.legacy.routing import LegacyState, TokenBucket
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
    first tenant's, the others' are generated. ``app.state.fleet`` holds the ``Tenant``s (with their
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
    app.state.fleet = tenants
    app.state.credentials = tenants[0].credentials
    app.state.control_token = control_token
    bucket = TokenBucket(rate=legacy_rate_limit, capacity=legacy_rate_limit) if legacy_rate_limit else None
    legacy_state = LegacyState(service=service, bucket=bucket)

    # v1 surface, control API, faults and webhooks (the v1 engineer's part): one context over the same service.
    context = V1Context(service=service, rebuild=rebuild, tenants=tenants)
    context.on_reset.append(lambda fresh: setattr(legacy_state, "service", fresh))
    for tenant in tenants:
        context.tokens.issue(service.workspace(tenant.target).id, "admin", token=tenant.credentials.token)
    # Mounted before the legacy surface: routes are tried one by one in mounting order, a migration sends many
    # more v1 requests than legacy ones, and no path of one surface can match a route of the other.
    mount_v1(app, context)
    mount_legacy(app, legacy_state)
    if capture is not None:  # outermost, so what faults answer is recorded as the client saw it
        app.add_middleware(CaptureMiddleware, path=capture)
    return app
