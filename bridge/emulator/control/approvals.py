"""``POST /_emulator/purchase-orders/{id}/decision``: the approval flow's moves for tests.

No published v1 operation approves, rejects or starts actualizing a purchase order: the service's approval
flow does. The emulator has no such flow, so tests drive it here (``{"status": "approved" | "rejected" |
"actualizing"}``), from pending (approved, rejected) or approved (actualizing); the webhook for the new status
fires as the v1 seed lists it. Behind the control token like the rest of the control API.
"""

from __future__ import annotations

from fastapi import APIRouter, Depends, HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse

from bridge.emulator.control.api import require_control_token
from bridge.emulator.control.state import state_of
from bridge.emulator.core.errors import EmulatorError, InvalidInput, NotFound
from bridge.emulator.v1.routing import json_body

router = APIRouter(prefix="/_emulator", dependencies=[Depends(require_control_token)])


@router.post("/purchase-orders/{order_id}/decision")
async def decide(request: Request, order_id: str) -> JSONResponse:
    state = state_of(request)
    body = await json_body(request)
    owner = next((w for w in state.service.workspaces.values() if order_id in w.purchase_orders), None)
    try:
        if owner is None:
            raise NotFound("purchase order", order_id)
        order = state.service.decide_order(owner, order_id, str(body.get("status")))
    except NotFound as exc:
        raise HTTPException(404, exc.message) from exc
    except InvalidInput as exc:
        raise HTTPException(400, exc.message) from exc
    except EmulatorError as exc:
        raise HTTPException(409, exc.message) from exc
    state.webhooks.emit(owner.id, f"purchaseOrder.{order.status}", "purchaseOrder", order.id, order.project_id)
    return JSONResponse({"id": order.id, "status": order.status})
