"""``PUT /_emulator/workspaces/{name}/plan``: switch a workspace's v1 plan, so a test can see rate packs refused
as not available on it (v1 402). ``{"plan": "starter"}`` has no rate packs, ``"studio"`` (the seeded plan) has
them (``core.rates.PLANS``). A reset brings the seeded plan back."""

from __future__ import annotations

from fastapi import APIRouter, Depends, HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse

from bridge.emulator.control.api import require_control_token
from bridge.emulator.control.state import state_of
from bridge.emulator.core.errors import EmulatorError
from bridge.emulator.v1.routing import json_body

router = APIRouter(prefix="/_emulator", dependencies=[Depends(require_control_token)])


@router.put("/workspaces/{name}/plan")
async def set_plan(request: Request, name: str) -> JSONResponse:
    body = await json_body(request)
    service = state_of(request).service
    try:
        workspace = service.workspace(name)
        service.set_plan(workspace, str(body.get("plan")))
    except EmulatorError as exc:
        raise HTTPException(404 if exc.code == "not_found" else 400, exc.message) from exc
    return JSONResponse({"workspace": workspace.id, "plan": workspace.plan})
