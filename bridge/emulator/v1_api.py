"""The v1 surface assembled: its routers under ``/v1``, ``GET /me``, the error envelope, the fault layer.

``mount_v1(app, context)`` is all ``create_app`` needs to call: it mounts every v1 router and the control
API, renders every ``V1Error`` as the documented envelope, and puts the fault injector and the request
counters in front of the whole app (the counters outermost, so injected failures are counted too).
"""

from __future__ import annotations

from fastapi import FastAPI
from fastapi.exception_handlers import http_exception_handler
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import Request
from starlette.responses import Response

from bridge.emulator import (
    admin,
    v1_budget,
    v1_library,
    v1_lines,
    v1_project_groups,
    v1_projects,
    v1_transactions,
    v1_webhooks,
)
from bridge.emulator.auth import Grant
from bridge.emulator.faults import FaultMiddleware
from bridge.emulator.v1_context import V1Context
from bridge.emulator.v1_errors import NotFoundError, V1Error, new_request_id
from bridge.emulator.v1_routing import V1Router, ok
from bridge.emulator.v1_stats import StatsMiddleware

PREFIX = "/v1"
meta = V1Router()
# The emulator's token roles by their published WorkspaceRole names.
PUBLISHED_ROLES = {"admin": "admin", "editor": "edit", "viewer": "view"}


@meta.get("/me")
async def me(request: Request, grant: Grant) -> Response:
    return ok(
        {
            "id": grant.user_id,
            "type": "user",
            "email": mailbox(grant.email),
            "name": grant.name,
            "workspaces": [{"workspaceId": grant.workspace, "workspaceRole": PUBLISHED_ROLES[grant.role]}],
        }
    )


def mailbox(address: str) -> str:
    """An address whose domain is a valid host name (a workspace id's ``_`` is not allowed in one)."""
    local, _, domain = address.partition("@")
    return f"{local}@{domain.replace('_', '-')}"


async def _render(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, V1Error)
    request_id = request.scope.get("state", {}).get("request_id") or new_request_id()
    return exc.response(request_id)


async def _http_error(request: Request, exc: Exception) -> Response:
    """Framework errors (unknown route, wrong method) keep the v1 envelope on /v1 paths only."""
    assert isinstance(exc, StarletteHTTPException)
    if not request.url.path.startswith(PREFIX + "/"):
        return await http_exception_handler(request, exc)
    # A method no operation takes is answered like an unknown path: the published codes have none for it (A57).
    error = NotFoundError(f"No v1 operation {request.method} {request.url.path}; check it against the v1 document.")
    return await _render(request, error)


def mount_v1(app: FastAPI, context: V1Context) -> None:
    """Mount the v1 surface and the control API on ``app`` and keep ``context`` on ``app.state.v1``."""
    app.state.v1 = context
    # Routes are tried one by one in this order (a few microseconds each): the transaction routes, which a
    # migration calls most (one request per split item) and whose /transactions paths no other router shares,
    # come first.
    routers = (
        v1_transactions.router,
        meta,
        v1_projects.router,
        v1_budget.router,
        v1_lines.router,
        v1_library.packs_router,  # before the generic /library/{kind} routes
        v1_library.workspace_router,
        v1_project_groups.router,  # before the generic project /library/{kind} routes
        v1_library.project_router,
        v1_webhooks.router,
    )
    for router in routers:
        app.router.routes.extend(router.routes(PREFIX))
    app.include_router(admin.router)
    app.add_exception_handler(V1Error, _render)
    app.add_exception_handler(StarletteHTTPException, _http_error)
    app.add_middleware(FaultMiddleware, injector=context.faults)
    app.add_middleware(StatsMiddleware, stats=context.stats, workspace_of=context.workspace_name_of)
