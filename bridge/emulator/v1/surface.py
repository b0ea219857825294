"""The v1 surface assembled: its routers under ``/v1``, ``GET /me`` and the error envelope.

``mount_v1(app)`` is all ``create_app`` needs to call for this surface: it mounts every v1 router and renders
every ``V1Error`` as the documented envelope (the control API's refusals use that envelope too). The routes
read the app's one state holder as a ``V1Context``.
"""

from __future__ import annotations

from fastapi import FastAPI
from fastapi.exception_handlers import http_exception_handler
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import Request
from starlette.responses import Response

from bridge.emulator.v1 import (
    budget_routes,
    comment_routes,
    document_routes,
    library_routes,
    line_routes,
    project_routes,
    purchase_order_routes,
    rate_pack_routes,
    transaction_routes,
)
from bridge.emulator.v1.auth import Grant
from bridge.emulator.v1.errors import NotFoundError, V1Error, new_request_id
from bridge.emulator.v1.extras import fringe_group_routes, pack_routes, webhook_routes
from bridge.emulator.v1.routing import V1Router, ok

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


def mount_v1(app: FastAPI) -> None:
    """Mount the v1 surface on ``app`` with its error envelope."""
    # Routes are tried one by one in this order (a few microseconds each): the transaction routes, which a
    # migration calls most (one request per split item) and whose /transactions paths no other router shares,
    # come first.
    routers = (
        transaction_routes.router,
        meta,
        project_routes.router,
        budget_routes.router,
        line_routes.router,
        comment_routes.router,
        rate_pack_routes.router,  # these two before the generic /library/{kind} routes
        pack_routes.router,
        library_routes.workspace_router,
        fringe_group_routes.router,  # these two before the generic project /library/{kind} routes
        pack_routes.incentives_router,
        library_routes.project_router,
        webhook_routes.router,
        document_routes.router,
        purchase_order_routes.router,
    )
    for router in routers:
        app.router.routes.extend(router.routes(PREFIX))
    app.add_exception_handler(V1Error, _render)
    app.add_exception_handler(StarletteHTTPException, _http_error)
