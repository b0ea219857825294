"""v1 webhook routes: subscribe, send a test delivery, list a subscription's deliveries."""

from __future__ import annotations

from fastapi import APIRouter
from starlette.requests import Request
from starlette.responses import Response

from bridge.emulator.v1_context import context_of
from bridge.emulator.v1_routing import Auth, can, created, json_body, ok, page_response
from bridge.emulator.webhooks import delivery_view, subscription_view

router = APIRouter(prefix="/webhooks")


@router.post("", status_code=201)
async def subscribe(request: Request, grant: Auth) -> Response:
    can(grant, "create", "Webhook")
    body = await json_body(request)
    subscription, generated = context_of(request).webhooks.subscribe(
        grant, body.get("url"), body.get("events"), body.get("secret")
    )
    return created(subscription_view(subscription, secret_shown=generated))


@router.post("/{webhook_id}/test-delivery")
async def test_delivery(request: Request, grant: Auth, webhook_id: str) -> Response:
    can(grant, "update", "Webhook")
    hub = context_of(request).webhooks
    delivery = hub.test_delivery(hub.get(grant.workspace, webhook_id))
    return ok(delivery_view(delivery))


@router.get("/{webhook_id}/deliveries")
async def deliveries(request: Request, grant: Auth, webhook_id: str) -> Response:
    hub = context_of(request).webhooks
    subscription = hub.get(grant.workspace, webhook_id)
    return page_response(request, hub.deliveries_of(subscription.id), delivery_view, filters={})
