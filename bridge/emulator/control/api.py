"""The control API (``/_emulator/*``): counters, fault plan, reset, workspaces, tokens, legacy keys, settings.

It sits apart from both product surfaces: it is the test harness's handle, and it mints tokens for any
workspace. So it is open only while nothing but this machine can reach it: an app made with a
``control_token`` (``bridge emulate`` makes one whenever it listens beyond loopback) answers 401 to a request
without ``Authorization: Bearer <control token>``. Workspaces and legacy keys made here live until ``/reset``,
which brings back the seeded ``source`` and ``target`` and the key ``create_app`` was given.
"""

from __future__ import annotations

import hmac
import math
import time
from collections.abc import Iterator
from typing import Annotated

import pydantic
from fastapi import APIRouter, Depends, HTTPException
from pydantic import AfterValidator, BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from bridge.emulator.control.faults import FaultPlan
from bridge.emulator.control.state import EmulatorState, state_of
from bridge.emulator.core.errors import NotFound
from bridge.emulator.core.ids import new_api_key
from bridge.emulator.v1.errors import ValidationError
from bridge.emulator.v1.requests import field_errors, field_path
from bridge.emulator.v1.routing import json_body
from bridge.emulator.v1.webhooks import format_origin, parse_target

# -- the control API ----------------------------------------------------------------------------------------


async def require_control_token(request: Request) -> None:
    """401 unless the request carries the app's control token (an app without one is open: loopback only).
    ``async`` only to stay out of FastAPI's thread pool (it does no I/O)."""
    expected = state_of(request).control_token
    if expected is None:
        return
    scheme, _, given = (request.headers.get("authorization") or "").partition(" ")
    if scheme.lower() == "bearer" and hmac.compare_digest(given.strip().encode(), expected.encode()):
        return
    raise HTTPException(
        401,
        "the control API needs its own token: send 'Authorization: Bearer <control token>' (bridge emulate "
        "printed it at start, unless it came from EMULATOR_CONTROL_TOKEN or --control-token-file)",
        headers={"WWW-Authenticate": 'Bearer realm="emulator control"'},
    )


router = APIRouter(prefix="/_emulator", dependencies=[Depends(require_control_token)])


def _objects(state: EmulatorState) -> dict[str, dict[str, int]]:
    """Live object counts per workspace (by name: ``source``, ``target``) and kind."""
    counts: dict[str, dict[str, int]] = {}
    for workspace in state.service.workspaces.values():
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
            "webhooks": sum(s.workspace == workspace.id for s in state.webhooks.subscriptions.values()),
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
    state = state_of(request)
    return JSONResponse(
        {
            **state.stats.as_json(),
            "replays": state.idempotency.replays,
            "faultsInjected": dict(state.faults.injected),
            "objects": _objects(state),
            # Billable: every v1 document upload that made a document (a replay makes none), and its bytes.
            "documentUploads": {
                "count": sum(w.files.uploads for w in state.service.workspaces.values()),
                "bytes": sum(w.files.uploaded_bytes for w in state.service.workspaces.values()),
            },
            "tenants": [
                {"name": tenant.name, "source": tenant.source, "target": tenant.target, "seed": tenant.seed}
                for tenant in state.tenants
            ],
        }
    )


@router.get("/faults")
async def get_faults(request: Request) -> JSONResponse:
    return JSONResponse(state_of(request).faults.plan.model_dump(by_alias=True))


@router.post("/faults")
async def set_faults(request: Request) -> JSONResponse:
    try:
        plan = FaultPlan.model_validate(await _body(request))
    except pydantic.ValidationError as exc:
        raise _refused("fault plan", field_errors(exc)) from None
    # The plan's bounds let an infinite wait through (a stall or latency that never ends, and a plan JSON
    # cannot render): every number in it must be finite.
    infinite = {field_path(loc): ["must be a finite number"] for loc in _non_finite(plan.model_dump(by_alias=True))}
    if infinite:
        raise _refused("fault plan", infinite)
    state_of(request).faults.set_plan(plan)
    return JSONResponse(plan.model_dump(by_alias=True))


@router.post("/reset")
async def reset(request: Request) -> JSONResponse:
    state_of(request).reset()
    return JSONResponse({"reset": True})


@router.post("/workspaces", status_code=201)
async def create_workspace(request: Request) -> JSONResponse:
    """Another, empty workspace in the same service (behind the same URLs); fill it through either surface."""
    body = await _body(request)
    service = state_of(request).service
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
    service = state_of(request).service
    try:
        api_key = service.add_api_key(str(body.get("workspace", "source")), new_api_key())
    except NotFound as exc:
        raise HTTPException(400, str(exc)) from exc
    return JSONResponse({"key": api_key.key, "workspace": api_key.workspace_id}, status_code=201)


@router.delete("/legacy-keys/{key}", status_code=204)
async def revoke_legacy_key(request: Request, key: str) -> Response:
    if not state_of(request).service.revoke_api_key(key):
        raise HTTPException(404, "no such legacy key")
    return Response(status_code=204)


@router.post("/tokens", status_code=201)
async def issue_token(request: Request) -> JSONResponse:
    body = await _body(request)
    state = state_of(request)
    try:
        workspace = state.service.workspace(str(body.get("workspace", "target"))).id
        lifetime = body.get("expiresInS")
        expires_at = None if lifetime is None else time.time() + _lifetime(lifetime)
        grant = state.tokens.issue(workspace, str(body.get("role", "admin")), expires_at=expires_at)
    except (NotFound, ValueError) as exc:
        raise HTTPException(400, str(exc)) from exc
    return JSONResponse({"token": grant.token, "workspace": workspace, "role": grant.role}, status_code=201)


@router.delete("/tokens/{token}", status_code=204)
async def revoke_token(request: Request, token: str) -> Response:
    if not state_of(request).tokens.revoke(token):
        raise HTTPException(404, "no such token")
    return Response(status_code=204)


@router.patch("/tokens/{token}")
async def set_token_role(request: Request, token: str) -> JSONResponse:
    body = await _body(request)
    try:
        found = state_of(request).tokens.set_role(token, str(body.get("role")))
    except ValueError as exc:
        raise HTTPException(400, str(exc)) from exc
    if not found:
        raise HTTPException(404, "no such token")
    return JSONResponse({"role": body.get("role")})


def _lifetime(value: object) -> float:
    """A token's lifetime in seconds: a finite JSON number, 0 or more (NaN would make it never expire)."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or value < 0:
        raise ValueError(f"expiresInS must be a number of seconds, 0 or more; got {value!r}")
    return float(value)


def _non_finite(value: object, loc: tuple[int | str, ...] = ()) -> Iterator[tuple[int | str, ...]]:
    """Where a decoded JSON value holds NaN or an infinity."""
    if isinstance(value, float) and not math.isfinite(value):
        yield loc
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _non_finite(item, (*loc, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _non_finite(item, (*loc, index))


def _refused(what: str, errors: dict[str, list[str]]) -> ValidationError:
    """The v1 envelope's 400 ``validation`` for a refused control body, each refused field in ``fieldErrors``."""
    listed = "; ".join(f"{name}: {', '.join(messages)}" for name, messages in errors.items())
    return ValidationError(f"Invalid {what} ({listed}). Nothing was changed.", fieldErrors=errors)


def _target(text: str) -> str:
    parse_target(text)
    return text


class Settings(BaseModel):
    """What ``POST /_emulator/settings`` takes: known names only, JSON types as they are (no "5" for 5, no
    "nan"), finite numbers. Only the fields sent are applied, and nothing is applied unless all of them fit;
    the defaults here only make every field optional."""

    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False, alias_generator=to_camel)

    idempotency_retention_s: float = Field(default=0.0, ge=0)
    webhook_time_scale: float = Field(default=1.0, ge=0)
    webhook_targets: list[Annotated[str, AfterValidator(_target)]] = Field(default_factory=list)
    budget_line_limit: int = Field(default=1, ge=1)


@router.get("/settings")
async def get_settings(request: Request) -> JSONResponse:
    state = state_of(request)
    return JSONResponse(
        {
            "idempotencyRetentionS": state.idempotency.retention_s,
            "webhookTimeScale": state.webhooks.time_scale,
            "webhookTargets": sorted(format_origin(origin) for origin in state.webhooks.targets),
            "budgetLineLimit": state.budget_line_limit,
        }
    )


@router.post("/settings")
async def set_settings(request: Request) -> JSONResponse:
    """Test knobs: key retention (s), webhook backoff time scale, the origins webhooks may be delivered to (A35,
    replacing the list), budget size limit. A refused body is the v1 400 ``validation`` with ``fieldErrors``."""
    try:
        settings = Settings.model_validate(await json_body(request))
    except pydantic.ValidationError as exc:
        raise _refused("emulator settings", field_errors(exc)) from None
    state = state_of(request)
    sent = settings.model_fields_set
    if "idempotency_retention_s" in sent:
        state.idempotency.retention_s = settings.idempotency_retention_s
    if "webhook_time_scale" in sent:
        state.webhooks.time_scale = settings.webhook_time_scale
    if "webhook_targets" in sent:
        state.webhooks.targets = frozenset(parse_target(text) for text in settings.webhook_targets)
    if "budget_line_limit" in sent:
        state.budget_line_limit = settings.budget_line_limit
    return await get_settings(request)


@router.post("/webhooks/drain")
async def drain_webhooks(request: Request) -> JSONResponse:
    """Wait for every queued webhook delivery to finish (tests read the outcomes afterwards)."""
    await state_of(request).webhooks.drain()
    return JSONResponse({"drained": True})
