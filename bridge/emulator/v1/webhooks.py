"""Webhook subscriptions and signed, retried deliveries of the v1 surface.

A subscription names an HTTPS URL on a public host; unsafe URLs (not HTTPS, localhost, private, loopback or
link-local addresses) are refused at registration. The emulator runs on an operator's machine, so it sends
nothing anywhere by default: a delivery goes out only to an origin (scheme, host and port) on its
``webhookTargets`` allow-list (``bridge emulate --webhook-target``, or the control API's settings), and a URL
on such an origin may be registered even on a loopback host over plain HTTP, where tests run their receiver
(A35). A delivery to any other URL ends ``blocked`` without a request. Each event becomes one delivery per matching
active subscription with a thin body ``{id, event, workspaceId, projectId?, occurredAt, data: {kind, id}}``,
signed as the v1 document says: ``X-Service-Signature: sha256=<lowercase hex HMAC-SHA256 of
"<X-Service-Timestamp>.<raw body>">``, re-signed with a fresh timestamp on every attempt.

A subscription is read, listed (filtered by events and active state), paused or changed with PATCH, and
deleted (a repeated delete is still 204). Its creation response always carries the signing secret, the one
time it is shown. A paused subscription receives no new deliveries.

Deliveries run on background tasks, never inside the request that caused them. Up to five attempts with
exponential backoff 30 s x 2^(attempt-1), scaled by ``time_scale`` for tests (A23). Outcomes: ``pending``
while attempts remain, ``success`` on a 2xx, ``failed`` after the fifth failure, ``blocked`` when the URL is
unsafe or off the allow-list at send time, ``dropped`` when the subscription stopped (its owner's token lost access).
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import ipaddress
import json
import secrets
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Literal
from urllib.parse import urlsplit

import httpx

from bridge.emulator.v1.auth import Grant
from bridge.emulator.v1.errors import NotFoundError, ValidationError

EVENTS = (
    "transaction.created",
    "transaction.updated",
    "budget.changed",
    "purchaseOrder.created",
    "purchaseOrder.pending",
    "purchaseOrder.approved",
    "purchaseOrder.rejected",
    "purchaseOrder.actualizing",
    "purchaseOrder.paid",
    "purchaseOrder.void",
    "document.created",
    "document.linked",
    "document.unlinked",
    "document.deleted",
    "incentive.added",
    "pack.installed",
    "pack.uninstalled",
)
TEST_EVENT = "ping"
MAX_ATTEMPTS = 5
FIRST_BACKOFF_S = 30.0
Outcome = Literal["pending", "success", "failed", "blocked", "dropped"]


Origin = tuple[str, str, int]
DEFAULT_PORTS = {"http": 80, "https": 443}


def origin_of(url: str) -> Origin | None:
    """``(scheme, host, port)`` of an http(s) URL, the port made explicit; None for anything else."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:  # a port that is not a number, or out of range
        return None
    scheme, host = parts.scheme.lower(), (parts.hostname or "").lower()
    if scheme not in DEFAULT_PORTS or not host:
        return None
    return scheme, host, port or DEFAULT_PORTS[scheme]


def format_origin(origin: Origin) -> str:
    """An origin as the allow-list writes it: ``http://127.0.0.1:9000``."""
    scheme, host, port = origin
    return f"{scheme}://{f'[{host}]' if ':' in host else host}:{port}"


def parse_target(text: str) -> Origin:
    """An allow-list entry: exactly an origin like ``http://127.0.0.1:9000``; ValueError says what is wrong."""
    parts = urlsplit(text)
    origin = origin_of(text)
    if (
        origin is None
        or parts.username
        or parts.password
        or parts.path not in ("", "/")
        or parts.query
        or parts.fragment
    ):
        raise ValueError(f"{text!r} is not an origin; write scheme, host and port only, like http://127.0.0.1:9000")
    return origin


def sign(secret: str, timestamp: str, body: bytes) -> str:
    """The documented signature header value for one attempt."""
    digest = hmac.new(secret.encode(), timestamp.encode() + b"." + body, hashlib.sha256).hexdigest()
    return f"sha256={digest}"


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


@dataclass(slots=True)
class Subscription:
    id: str
    workspace: str
    url: str
    events: list[str]
    secret: str
    owner: Grant
    created_at: str
    updated_at: str
    is_active: bool = True

    @property
    def delivering(self) -> bool:
        """Whether it receives deliveries: not paused, and its owner's token still has access."""
        return self.is_active and not self.owner.revoked


@dataclass(slots=True)
class Delivery:
    id: str
    subscription_id: str
    event: str
    body: bytes
    entity_kind: str
    entity_id: str
    request_url: str
    occurred_at: str
    outcome: Outcome = "pending"
    attempts: int = 0
    last_status: int | None = None
    next_retry_at: str | None = None
    delivered_at: str | None = None
    error: str | None = None


@dataclass(slots=True)
class WebhookHub:
    """Subscriptions, the delivery log and the background senders."""

    targets: frozenset[Origin] = frozenset()
    time_scale: float = 1.0
    timeout_s: float = 5.0
    subscriptions: dict[str, Subscription] = field(default_factory=dict)
    deliveries: dict[str, Delivery] = field(default_factory=dict)
    _tasks: set[asyncio.Task[None]] = field(default_factory=set)

    def clear(self) -> None:
        """Forget every subscription and delivery (the control API's reset); running senders are cancelled."""
        for task in self._tasks:
            task.cancel()
        self._tasks.clear()
        self.subscriptions.clear()
        self.deliveries.clear()

    def unsafe_reason(self, url: str) -> str | None:
        """Why a URL may not be registered, or None when it may (an allow-listed origin always may)."""
        try:
            parts = urlsplit(url)
        except ValueError:  # an unclosed IPv6 bracket
            return "it is not a URL"
        host = (parts.hostname or "").lower()
        if not host:
            return "it has no host"
        origin = origin_of(url)
        if origin in self.targets:
            return None
        hint = "" if origin is None else f" (add {format_origin(origin)} to the emulator's webhookTargets to use it)"
        if host == "localhost" or host.endswith(".localhost"):
            return f"its host {host} is a loopback address{hint}"
        try:
            address = ipaddress.ip_address(host)
        except ValueError:
            address = None
        if address is not None and address.is_loopback:
            return f"its host {host} is a loopback address{hint}"
        if address is not None and (address.is_private or address.is_link_local or address.is_unspecified):
            return f"its host {host} is a private, link-local or unspecified address"
        if parts.scheme != "https":
            return "it is not HTTPS"
        return None

    def send_refusal(self, url: str) -> str | None:
        """Why a delivery to ``url`` is not sent, or None: only allow-listed origins receive anything."""
        origin = origin_of(url)
        if origin in self.targets:
            return None
        shown = repr(url) if origin is None else format_origin(origin)
        return (
            f"the emulator delivers only to the origins in its webhookTargets setting, and {shown} is "
            "not one (bridge emulate --webhook-target ORIGIN, or POST /_emulator/settings)"
        )

    def _checked_url(self, url: object) -> str:
        if not isinstance(url, str) or not url:
            raise ValidationError("url is required: an HTTPS URL on a public host.")
        reason = self.unsafe_reason(url)
        if reason is not None:
            raise ValidationError(f"url {url!r} is refused because {reason}; use an HTTPS URL on a public host.")
        return url

    @staticmethod
    def _checked_events(events: object) -> list[str]:
        if not isinstance(events, list) or not events or not all(isinstance(e, str) for e in events):
            raise ValidationError("events must be a non-empty list of event names.")
        unknown = sorted(set(events) - set(EVENTS))
        if unknown:
            raise ValidationError(f"events {unknown} are not in the event catalogue; use names from {EVENTS}.")
        return list(events)

    def subscribe(self, owner: Grant, url: object, events: object, secret: object) -> Subscription:
        """A new subscription; without a secret the service generates one."""
        checked_url, checked_events = self._checked_url(url), self._checked_events(events)
        if secret is None:
            secret = "whsec_" + secrets.token_hex(24)
        if not isinstance(secret, str) or not 16 <= len(secret) <= 256:
            raise ValidationError("secret must be a string of 16 to 256 characters (or omitted to generate one).")
        now = _now()
        subscription = Subscription(
            "whk_" + secrets.token_hex(6), owner.workspace, checked_url, checked_events, secret, owner, now, now
        )
        self.subscriptions[subscription.id] = subscription
        return subscription

    def update(self, subscription: Subscription, changes: dict[str, object]) -> Subscription:
        """Change the URL, the event set or the active state (at least one; nothing else is writable)."""
        unknown = sorted(set(changes) - {"url", "events", "isActive"})
        if unknown:
            raise ValidationError(f"{unknown[0]} is not a writable webhook field; send url, events or isActive.")
        if not changes:
            raise ValidationError("Send at least one of url, events or isActive.")
        active = changes.get("isActive", subscription.is_active)
        if not isinstance(active, bool):
            raise ValidationError("isActive must be true or false.")
        url = self._checked_url(changes["url"]) if "url" in changes else subscription.url
        events = self._checked_events(changes["events"]) if "events" in changes else subscription.events
        subscription.url, subscription.events, subscription.is_active = url, events, active
        subscription.updated_at = _now()
        return subscription

    def delete(self, workspace: str, subscription_id: str) -> None:
        """Forget a subscription of this workspace; deleting an absent one is not an error."""
        subscription = self.subscriptions.get(subscription_id)
        if subscription is not None and subscription.workspace == workspace:
            subscription.is_active = False  # its queued retries end as dropped
            del self.subscriptions[subscription_id]

    def listed(self, workspace: str, events: list[str], active: bool | None) -> list[Subscription]:
        """The workspace's subscriptions, oldest first, holding any of ``events`` and in the ``active`` state."""
        return [
            s
            for s in self.subscriptions.values()
            if s.workspace == workspace
            and (not events or set(events) & set(s.events))
            and (active is None or s.delivering == active)
        ]

    def get(self, workspace: str, subscription_id: str) -> Subscription:
        """A subscription of this workspace, else 404 (other workspaces' subscriptions are not visible)."""
        subscription = self.subscriptions.get(subscription_id)
        if subscription is None or subscription.workspace != workspace:
            raise NotFoundError(f"Webhook subscription {subscription_id!r} was not found in this workspace.")
        return subscription

    def deliveries_of(self, subscription_id: str) -> list[Delivery]:
        """Recent deliveries of a subscription, newest first."""
        found = [d for d in self.deliveries.values() if d.subscription_id == subscription_id]
        return found[::-1]

    def emit(self, workspace: str, event: str, kind: str, entity_id: str, project_id: str | None = None) -> None:
        """Queue one delivery of ``event`` to every active subscription of the workspace that listens to it."""
        for subscription in list(self.subscriptions.values()):
            if subscription.workspace == workspace and subscription.is_active and event in subscription.events:
                self._queue(subscription, event, kind, entity_id, project_id)

    def test_delivery(self, subscription: Subscription) -> Delivery:
        """Queue a ``ping`` delivery to one subscription."""
        return self._queue(subscription, TEST_EVENT, "webhook", subscription.id, None)

    def _queue(
        self, subscription: Subscription, event: str, kind: str, entity_id: str, project_id: str | None
    ) -> Delivery:
        body: dict[str, object] = {
            "id": "evt_" + secrets.token_hex(8),
            "event": event,
            "workspaceId": subscription.workspace,
            "occurredAt": _now(),
            "data": {"kind": kind, "id": entity_id},
        }
        if project_id is not None:
            body["projectId"] = project_id
        delivery = Delivery(
            "whd_" + secrets.token_hex(8),
            subscription.id,
            event,
            json.dumps(body, separators=(",", ":")).encode(),
            kind,
            entity_id,
            subscription.url,
            str(body["occurredAt"]),
        )
        self.deliveries[delivery.id] = delivery
        task = asyncio.get_running_loop().create_task(self._deliver(subscription, delivery))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return delivery

    async def _deliver(self, subscription: Subscription, delivery: Delivery) -> None:
        # No redirects: a target on the allow-list must not hand the delivery on to one that is not.
        async with httpx.AsyncClient(timeout=self.timeout_s, follow_redirects=False) as client:
            while True:
                if not subscription.delivering:
                    delivery.outcome, delivery.error = "dropped", "the subscription stopped delivering"
                    return
                reason = self.send_refusal(subscription.url)
                if reason is not None:
                    delivery.outcome, delivery.error = "blocked", f"the URL is refused: {reason}"
                    return
                delivery.attempts += 1
                timestamp = _now()
                headers = {
                    "Content-Type": "application/json",
                    "X-Service-Signature": sign(subscription.secret, timestamp, delivery.body),
                    "X-Service-Timestamp": timestamp,
                    "X-Service-Delivery-Id": delivery.id,
                    "X-Service-Event": delivery.event,
                }
                try:
                    response = await client.post(subscription.url, content=delivery.body, headers=headers)
                    delivery.last_status = response.status_code
                    if response.is_success:
                        delivery.outcome, delivery.next_retry_at, delivery.delivered_at = "success", None, _now()
                        return
                    delivery.error = f"the endpoint answered {response.status_code}"
                except httpx.HTTPError as exc:
                    delivery.last_status = None
                    delivery.error = f"the endpoint could not be reached ({type(exc).__name__})"
                if delivery.attempts >= MAX_ATTEMPTS:
                    delivery.outcome, delivery.next_retry_at, delivery.delivered_at = "failed", None, _now()
                    return
                wait = FIRST_BACKOFF_S * 2 ** (delivery.attempts - 1) * self.time_scale
                moment = datetime.fromtimestamp(datetime.now(UTC).timestamp() + wait, UTC)
                delivery.next_retry_at = moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")
                await asyncio.sleep(wait)

    async def drain(self, timeout_s: float = 10.0) -> None:
        """Wait until every queued delivery has finished (tests and the control API's flush)."""
        if self._tasks:
            await asyncio.wait(set(self._tasks), timeout=timeout_s)


def delivery_view(delivery: Delivery) -> dict[str, object]:
    """A delivery as published; a queued delivery counts its first attempt as under way (A55)."""
    view: dict[str, object] = {
        "id": delivery.id,
        "event": delivery.event,
        "status": delivery.outcome,
        "entityKind": delivery.entity_kind,
        "entityId": delivery.entity_id,
        "requestUrl": delivery.request_url,
        "attempts": max(delivery.attempts, 1),
        "occurredAt": delivery.occurred_at,
    }
    optional = {
        "responseStatus": delivery.last_status,
        "nextRetryAt": delivery.next_retry_at if delivery.outcome == "pending" else None,
        "error": delivery.error if delivery.outcome != "success" else None,
        "deliveredAt": delivery.delivered_at,
    }
    view.update({name: value for name, value in optional.items() if value is not None})
    return view


def subscription_view(subscription: Subscription, *, with_secret: bool = False) -> dict[str, object]:
    """A subscription; the secret appears only in its creation response."""
    view: dict[str, object] = {
        "id": subscription.id,
        "url": subscription.url,
        "events": subscription.events,
        "isActive": subscription.delivering,
        "workspaceId": subscription.workspace,
        "createdAt": subscription.created_at,
        "updatedAt": subscription.updated_at,
    }
    if with_secret:
        view["secret"] = subscription.secret
    return view
