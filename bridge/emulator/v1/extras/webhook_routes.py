"""v1 webhook routes: subscribe, list, read, change, delete, send a test delivery, list a subscription's deliveries."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from bridge.emulator.v1.auth import Grant
from bridge.emulator.v1.context import context_of
from bridge.emulator.v1.errors import ValidationError
from bridge.emulator.v1.routing import V1Router, can, created, json_body, listed, ok, page_response
from bridge.emulator.v1.webhooks import EVENTS, delivery_view, subscription_view

router = V1Router(prefix="/webhooks")


def _order(request: Request, default: str) -> bool:
    """Whether the published ``order`` query asks for the reverse of the stored (oldest first) order."""
    order = request.query_params.get("order", default)
    if order not in ("asc", "desc"):
        raise ValidationError(f"order must be asc or desc; got {order!r}.")
    return order == "desc"


def _active(request: Request) -> bool | None:
    raw = request.query_params.get("active")
    if raw is None:
        return None
    if raw not in ("true", "false"):
        raise ValidationError(f"active must be true or false; got {raw!r}.")
    return raw == "true"


@router.get("")
async def list_subscriptions(request: Request, grant: Grant) -> Response:
    events = listed(request.query_params.get("events"))
    unknown = sorted(set(events) - set(EVENTS))
    if unknown:
        raise ValidationError(f"events {unknown} are not in the event catalogue; use names from {EVENTS}.")
    found = context_of(request).webhooks.listed(grant.workspace, events, _active(request))
    if _order(request, "asc"):
        found.reverse()
    filters = {k: request.query_params.get(k) for k in ("events", "active", "order")}
    return page_response(request, found, subscription_view, filters=filters)


@router.post("", status_code=201)
async def subscribe(request: Request, grant: Grant) -> Response:
    can(grant, "create", "Webhook")
    body = await json_body(request)
    subscription = context_of(request).webhooks.subscribe(
        grant, body.get("url"), body.get("events"), body.get("secret")
    )
    return created(subscription_view(subscription, with_secret=True))


@router.get("/{webhook_id}")
async def get_subscription(request: Request, grant: Grant, webhook_id: str) -> Response:
    return ok(subscription_view(context_of(request).webhooks.get(grant.workspace, webhook_id)))


@router.patch("/{webhook_id}")
async def update_subscription(request: Request, grant: Grant, webhook_id: str) -> Response:
    can(grant, "update", "Webhook")
    body = await json_body(request)
    hub = context_of(request).webhooks
    return ok(subscription_view(hub.update(hub.get(grant.workspace, webhook_id), body)))


@router.delete("/{webhook_id}", status_code=204)
async def delete_subscription(request: Request, grant: Grant, webhook_id: str) -> Response:
    can(grant, "delete", "Webhook")
    context_of(request).webhooks.delete(grant.workspace, webhook_id)
    return Response(status_code=204)


@router.post("/{webhook_id}/test-delivery")
async def test_delivery(request: Request, grant: Grant, webhook_id: str) -> Response:
    """Queue a signed ``ping``; 202 Accepted, as published: it is sent after the answer."""
    can(grant, "update", "Webhook")
    hub = context_of(request).webhooks
    delivery = hub.test_delivery(hub.get(grant.workspace, webhook_id))
    return JSONResponse(delivery_view(delivery), status_code=202)


@router.get("/{webhook_id}/deliveries")
async def deliveries(request: Request, grant: Grant, webhook_id: str) -> Response:
    hub = context_of(request).webhooks
    subscription = hub.get(grant.workspace, webhook_id)
    query = request.query_params
    found = [
        d
        for d in hub.deliveries_of(subscription.id)  # newest first, the published default
        if query.get("status") in (None, d.outcome) and query.get("event") in (None, d.event)
    ]
    if not _order(request, "desc"):
        found.reverse()
    filters = {k: query.get(k) for k in ("order", "status", "event")}
    return page_response(request, found, delivery_view, filters=filters)
