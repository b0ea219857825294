"""The control API (``/_emulator/*``): counters, fault plan, reset, workspaces, tokens, legacy keys, settings.

It sits apart from both product surfaces and needs no credentials: it is the test harness's handle. Workspaces
and legacy keys made here live until ``/reset``, which brings back the seeded ``source`` and ``target`` and the
key ``create_app`` was given.
"""

from __future__ import annotations

import time

from fastapi import APIRouter, HTTPException
from pydantic import ValidationError as PydanticValidationError
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from bridge.emulator.errors import NotFound
from bridge.emulator.faults import FaultPlan
from bridge.emulator.store_core import new_api_key
from bridge.emulator.v1_context import V1Context, context_of

# -- the control API ----------------------------------------------------------------------------------------

router = APIRouter(prefix="/_emulator")


def _objects(context: V1Context) -> dict[str, dict[str, int]]:
    """Live object counts per workspace (by name: ``source``, ``target``) and kind."""
    counts: dict[str, dict[str, int]] = {}
    for workspace in context.service.workspaces.values():
        projects = [p for p in workspace.projects.values() if not p.deleted]
        library = workspace.library
        counts[workspace.name] = {
            "spaces": sum(not s.deleted for s in workspace.spaces.values()),
            "projects": len(projects),
            "contacts": len(workspace.contacts),
            "phases": sum(len(p.phases) for p in projects),
            "budgetLines": sum(len(p.nodes) for p in projects),
            "transactions": sum(len(p.actuals) for p in projects),
            "transactionItems": sum(len(a.subactuals) for p in projects for a in p.actuals.values()),
            "projectFringes": sum(len(p.fringes) for p in projects),
            "projectGlobals": sum(len(p.globals) for p in projects),
            "projectCurrencies": sum(len(p.currencies) for p in projects),
            "currencies": sum(not i.deleted for i in library.currencies.values()),
            "fringes": sum(not i.deleted for i in library.fringes.values()),
            "fringeGroups": sum(not i.deleted for i in library.fringe_groups.values()),
            "globals": sum(not i.deleted for i in library.globals.values()),
            "tags": sum(not i.deleted for i in library.tags.values()),
            "units": sum(not i.deleted for i in library.units.values()),
            "webhooks": sum(s.workspace == workspace.id for s in context.webhooks.subscriptions.values()),
        }
    return counts


async def _body(request: Request) -> dict[str, object]:
    try:
        body = await request.json()
    except ValueError:
        body = None
    if not isinstance(body, dict):
        raise HTTPException(400, "send a JSON object")
    return body


@router.get("/stats")
async def stats(request: Request) -> JSONResponse:
    context = context_of(request)
    return JSONResponse(
        {
            **context.stats.as_json(),
            "replays": context.idempotency.replays,
            "faultsInjected": dict(context.faults.injected),
            "objects": _objects(context),
        }
    )


@router.get("/faults")
async def get_faults(request: Request) -> JSONResponse:
    return JSONResponse(context_of(request).faults.plan.model_dump(by_alias=True))


@router.post("/faults")
async def set_faults(request: Request) -> JSONResponse:
    try:
        plan = FaultPlan.model_validate(await _body(request))
    except PydanticValidationError as exc:
        raise HTTPException(400, f"invalid fault plan: {exc.errors(include_url=False)}") from exc
    context_of(request).faults.set_plan(plan)
    return JSONResponse(plan.model_dump(by_alias=True))


@router.post("/reset")
async def reset(request: Request) -> JSONResponse:
    context_of(request).reset()
    return JSONResponse({"reset": True})


@router.post("/workspaces", status_code=201)
async def create_workspace(request: Request) -> JSONResponse:
    """Another, empty workspace in the same service (behind the same URLs); fill it through either surface."""
    body = await _body(request)
    service = context_of(request).service
    name = body.get("name")
    if not isinstance(name, str) or not name.isidentifier():
        raise HTTPException(400, "name the workspace with letters, digits and underscores")
    if any(workspace.name == name for workspace in service.workspaces.values()):
        raise HTTPException(409, f"workspace {name!r} exists")
    workspace = service.create_workspace(name, str(body.get("currency", "USD")))
    return JSONResponse({"workspace": workspace.id, "name": workspace.name}, status_code=201)


@router.post("/legacy-keys", status_code=201)
async def issue_legacy_key(request: Request) -> JSONResponse:
    """A new legacy API key for a workspace; with DELETE of the old one, a rotation."""
    body = await _body(request)
    service = context_of(request).service
    try:
        api_key = service.add_api_key(str(body.get("workspace", "source")), new_api_key())
    except NotFound as exc:
        raise HTTPException(400, str(exc)) from exc
    return JSONResponse({"key": api_key.key, "workspace": api_key.workspace_id}, status_code=201)


@router.delete("/legacy-keys/{key}", status_code=204)
async def revoke_legacy_key(request: Request, key: str) -> Response:
    if not context_of(request).service.revoke_api_key(key):
        raise HTTPException(404, "no such legacy key")
    return Response(status_code=204)


@router.post("/tokens", status_code=201)
async def issue_token(request: Request) -> JSONResponse:
    body = await _body(request)
    context = context_of(request)
    try:
        workspace = context.service.workspace(str(body.get("workspace", "target"))).id
        lifetime = body.get("expiresInS")
        expires_at = None if lifetime is None else time.time() + float(str(lifetime))
        grant = context.tokens.issue(workspace, str(body.get("role", "admin")), expires_at=expires_at)
    except (NotFound, ValueError) as exc:
        raise HTTPException(400, str(exc)) from exc
    return JSONResponse({"token": grant.token, "workspace": workspace, "role": grant.role}, status_code=201)


@router.delete("/tokens/{token}", status_code=204)
async def revoke_token(request: Request, token: str) -> Response:
    if not context_of(request).tokens.revoke(token):
        raise HTTPException(404, "no such token")
    return Response(status_code=204)


@router.patch("/tokens/{token}")
async def set_token_role(request: Request, token: str) -> JSONResponse:
    body = await _body(request)
    try:
        found = context_of(request).tokens.set_role(token, str(body.get("role")))
    except ValueError as exc:
        raise HTTPException(400, str(exc)) from exc
    if not found:
        raise HTTPException(404, "no such token")
    return JSONResponse({"role": body.get("role")})


@router.get("/settings")
async def get_settings(request: Request) -> JSONResponse:
    context = context_of(request)
    return JSONResponse(
        {
            "idempotencyRetentionS": context.idempotency.retention_s,
            "webhookTimeScale": context.webhooks.time_scale,
            "allowLoopbackWebhooks": context.webhooks.allow_loopback,
            "budgetLineLimit": context.budget_line_limit,
        }
    )


@router.post("/settings")
async def set_settings(request: Request) -> JSONResponse:
    """Test knobs: key retention (s), webhook backoff time scale, loopback webhooks (A35), budget size limit."""
    body = await _body(request)
    context = context_of(request)
    try:
        if "idempotencyRetentionS" in body:
            context.idempotency.retention_s = float(str(body["idempotencyRetentionS"]))
        if "webhookTimeScale" in body:
            context.webhooks.time_scale = float(str(body["webhookTimeScale"]))
        if "allowLoopbackWebhooks" in body:
            context.webhooks.allow_loopback = body["allowLoopbackWebhooks"] is True
        if "budgetLineLimit" in body:
            context.budget_line_limit = int(str(body["budgetLineLimit"]))
    except ValueError as exc:
        raise HTTPException(400, f"invalid setting: {exc}") from exc
    return await get_settings(request)


@router.post("/webhooks/drain")
async def drain_webhooks(request: Request) -> JSONResponse:
    """Wait for every queued webhook delivery to finish (tests read the outcomes afterwards)."""
    await context_of(request).webhooks.drain()
    return JSONResponse({"drained": True})
