"""Fault injection: the failures a real network and a real service produce, seeded and chosen per route.

A ``FaultPlan`` is a seed, a latency (fixed plus jitter, from a request's arrival to its answer), an optional
token-bucket rate limit (one bucket per tenant, so one tenant's 429s never stall another's;
``bridge.emulator.control.tenants``) and a list of rules ``{kind, rate, route}``. ``route`` is an fnmatch pattern on the
request path; rules apply to the v1 surface unless the pattern names the legacy one (``/api/v1``); the control
API is never faulted. Kinds:

- ``rate_limit``: 429 ``rate_limited`` with ``Retry-After`` as delta-seconds or an HTTP-date (A21, A02);
- ``error_500`` / ``error_502`` / ``error_503`` / ``error_504``: that status before the handler runs (a 504
  on a budget read is ``budget_compute_timeout``, the real service's code for it; A33);
- ``reset``: the connection drops before the request is handled;
- ``commit_then_drop``: the request is handled (the write is applied, its idempotency key stored), then the
  connection drops before the client reads the response. Only a request that changed the service loses its
  answer: a read, a refused request, a keyed replay (``Idempotency-Replayed``), a create answered 200 with the
  record already there instead of its 201 (A18), and a PATCH/PUT that leaves its record as it was (read
  through the surface before and after, ``updatedAt`` aside) commit nothing, so they are answered. A retry of
  a dropped write therefore goes through, as it does on a real network after a blip, and a run under this
  fault on every write can finish;
- ``stall``: the request is held ``stall_s`` seconds (longer than a client's timeout) before it is handled;
- ``revoke_token``: the bearer token is revoked after its ``after``-th matching request;
- ``echo_credentials``: 401 whose message repeats the request's credential (bearer token or ``X-API-Key``)
  raw, base64 and hex encoded, with terminal escape sequences: a careless server, for the leak tests.

A dropped connection is a started response (with a Content-Length it never fulfils) followed by an exception
that subclasses ``httpx.RemoteProtocolError``: under uvicorn the server closes the socket mid-response, and in
process ``httpx.ASGITransport`` re-raises it, so a client sees a transport error either way.
"""

from __future__ import annotations

import asyncio
import base64
import email.utils
import fnmatch
import json
import random
import re
import time
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

import httpx
from pydantic import BaseModel, ConfigDict, Field
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from bridge.emulator.v1.auth import TokenRegistry
from bridge.emulator.v1.errors import (
    REQUEST_ID_HEADER,
    BadGatewayError,
    BudgetComputeTimeoutError,
    GatewayTimeoutError,
    InternalError,
    InvalidTokenError,
    RateLimitedError,
    TemporarilyUnavailableError,
    V1Error,
    new_request_id,
)

FaultKind = Literal[
    "rate_limit",
    "error_500",
    "error_502",
    "error_503",
    "error_504",
    "reset",
    "commit_then_drop",
    "stall",
    "revoke_token",
    "echo_credentials",
]
FAULT_KINDS: tuple[str, ...] = FaultKind.__args__  # type: ignore[attr-defined]
LEGACY_PREFIX = "/api/v1"
V1_PREFIX = "/v1"
WRITE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
UPDATE_METHODS = frozenset({"PUT", "PATCH"})
REPLAYED_HEADER = b"idempotency-replayed"
CREDENTIAL_HEADERS = frozenset({b"authorization", b"x-api-key"})
# What an internal read keeps of the request's scope: the connection, not what routing added to it.
CONNECTION_KEYS = ("type", "asgi", "http_version", "scheme", "server", "client", "root_path", "app")
# What an echoing server wraps around a credential: a title change, a screen clear and a bell for the terminal.
ECHO_ESCAPES = "\x1b]0;owned\x07\x1b[2J"
# A link (PUT /purchase-orders/{id}/transactions/{txn}) has no read of its own: it shows on its order, read
# with its transactions expanded, so linking again (no change) is answered like a PATCH that changes nothing.
LINK_PATH = re.compile(r"^(?P<order>.*/purchase-orders/[^/]+)/transactions/[^/]+$")


class LegacyUnauthorizedError(V1Error):
    """The legacy surface's 401 (A01's ``unauthorized``), for a fault answered there."""

    status = 401
    code = "unauthorized"


class FaultRule(BaseModel):
    """One kind of fault, fired with probability ``rate`` on requests whose path matches ``route``."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    kind: FaultKind
    rate: float = Field(default=1.0, ge=0.0, le=1.0)
    route: str = "*"
    methods: list[str] | None = None
    retry_after_s: int = Field(default=1, alias="retryAfterS", ge=0)
    retry_after_format: Literal["seconds", "http-date"] = Field(default="seconds", alias="retryAfterFormat")
    stall_s: float = Field(default=30.0, alias="stallS", ge=0)
    after: int = Field(default=1, ge=0)

    def applies_to(self, method: str, path: str) -> bool:
        """Whether this rule covers the request (surface, route pattern, method)."""
        legacy_rule = LEGACY_PREFIX in self.route
        if path.startswith(LEGACY_PREFIX) != legacy_rule:
            return False
        if not path.startswith((LEGACY_PREFIX, V1_PREFIX)):
            return False
        if self.methods is not None and method.upper() not in {m.upper() for m in self.methods}:
            return False
        return fnmatch.fnmatchcase(path, self.route)


class RateLimitPlan(BaseModel):
    """A token bucket: ``capacity`` requests at once, refilled at ``refill_per_s``, on matching routes."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    capacity: int = Field(ge=1)
    refill_per_s: float = Field(alias="refillPerS", gt=0)
    route: str = "*"
    retry_after_format: Literal["seconds", "http-date"] = Field(default="seconds", alias="retryAfterFormat")


class FaultPlan(BaseModel):
    """The faults in force; the control API and `bridge emulate` both build one."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    seed: int = 0
    latency_ms: float = Field(default=0.0, alias="latencyMs", ge=0)
    # Added to every legacy answer (bridge mode's lag is mostly legacy reads); v1's is ``latency_ms``.
    legacy_latency_ms: float = Field(default=0.0, alias="legacyLatencyMs", ge=0)
    jitter_ms: float = Field(default=0.0, alias="jitterMs", ge=0)
    rules: list[FaultRule] = Field(default_factory=list)
    rate_limit: RateLimitPlan | None = Field(default=None, alias="rateLimit")


def parse_fault_option(option: str) -> FaultRule:
    """A rule from the command line's ``KIND:RATE[:ROUTE]``; ValueError says what is wrong."""
    kind, _, rest = option.partition(":")
    rate_text, _, route = rest.partition(":")
    if kind not in FAULT_KINDS:
        raise ValueError(f"unknown fault kind {kind!r} in {option!r}; use one of {', '.join(FAULT_KINDS)}")
    try:
        rate = float(rate_text) if rate_text else 1.0
    except ValueError:
        raise ValueError(f"fault rate {rate_text!r} in {option!r} is not a number from 0 to 1") from None
    return FaultRule.model_validate({"kind": kind, "rate": rate, "route": route or "*"})


class DroppedConnectionError(httpx.RemoteProtocolError):
    """Raised inside the app after a response has started: the client sees the connection drop."""


@dataclass(slots=True)
class _Bucket:
    tokens: float
    stamp: float


@dataclass(slots=True)
class FaultInjector:
    """The plan in force plus its seeded random state, buckets and per-token counters. ``bucket_key`` names
    whose bucket a request spends from (its tenant); by default every request shares one."""

    tokens: TokenRegistry
    plan: FaultPlan = field(default_factory=FaultPlan)
    clock: Callable[[], float] = time.monotonic
    injected: dict[str, int] = field(default_factory=dict)
    bucket_key: Callable[[Scope], str] = lambda scope: ""
    _rng: random.Random = field(default_factory=lambda: random.Random(0))
    _buckets: dict[str, _Bucket] = field(default_factory=dict)
    _token_uses: dict[str, int] = field(default_factory=dict)

    def set_plan(self, plan: FaultPlan) -> None:
        """Put a plan in force, restarting its random sequence, buckets and counters."""
        self.plan = plan
        self._rng = random.Random(plan.seed)
        self._buckets.clear()
        self._token_uses.clear()
        self.injected.clear()

    def _count(self, kind: str) -> None:
        self.injected[kind] = self.injected.get(kind, 0) + 1

    def _retry_after(self, seconds: int, style: str) -> str:
        if style == "http-date":
            return email.utils.formatdate(time.time() + seconds, usegmt=True)
        return str(seconds)

    def _bucket_refuses(self, scope: Scope) -> RateLimitedError | None:
        limit = self.plan.rate_limit
        if limit is None or not fnmatch.fnmatchcase(scope["path"], limit.route):
            return None
        now = self.clock()
        # A bucket first used now is full: it would have refilled to capacity since the plan was set anyway.
        bucket = self._buckets.setdefault(self.bucket_key(scope), _Bucket(float(limit.capacity), now))
        bucket.tokens = min(limit.capacity, bucket.tokens + (now - bucket.stamp) * limit.refill_per_s)
        bucket.stamp = now
        if bucket.tokens >= 1:
            bucket.tokens -= 1
            return None
        wait = max(1, round((1 - bucket.tokens) / limit.refill_per_s + 0.499))
        return RateLimitedError(
            f"Too many requests; wait {wait} s (Retry-After) and retry.",
            retry_after_header=self._retry_after(wait, limit.retry_after_format),
            retry_after_s=wait,
        )

    def _error_for(self, rule: FaultRule, scope: Scope) -> V1Error:
        path: str = scope["path"]
        if rule.kind == "echo_credentials":
            return (LegacyUnauthorizedError if path.startswith(LEGACY_PREFIX) else InvalidTokenError)(_echoed(scope))
        if rule.kind == "rate_limit":
            return RateLimitedError(
                f"Too many requests; wait {rule.retry_after_s} s (Retry-After) and retry.",
                retry_after_header=self._retry_after(rule.retry_after_s, rule.retry_after_format),
                retry_after_s=rule.retry_after_s,
            )
        if rule.kind == "error_504" and path.endswith(("/budget", "/budget/totals")):
            return BudgetComputeTimeoutError("Computing the budget took too long; retry the read shortly.")
        errors: dict[str, V1Error] = {
            "error_500": InternalError("The service failed unexpectedly (injected); retry with the same key."),
            "error_502": BadGatewayError("An upstream gateway failed (injected); retry with the same key."),
            "error_503": TemporarilyUnavailableError("The service is temporarily unavailable (injected); retry."),
            "error_504": GatewayTimeoutError("The gateway timed out (injected); retry with the same key."),
        }
        return errors[rule.kind]

    async def __call__(self, app: ASGIApp, scope: Scope, receive: Receive, send: Send) -> None:
        """Run one request through the plan: delay, refuse, drop or pass it to ``app``."""
        method: str = scope["method"]
        path: str = scope["path"]
        plan = self.plan
        if not path.startswith((LEGACY_PREFIX, V1_PREFIX)):
            await app(scope, receive, send)
            return
        if path.startswith(V1_PREFIX) and (plan.latency_ms or plan.jitter_ms):
            delay = (plan.latency_ms + self._rng.uniform(0, plan.jitter_ms)) / 1000
            send = _AnsweredAt(send, self.clock() + delay, self.clock)
        elif path.startswith(LEGACY_PREFIX) and plan.legacy_latency_ms:
            send = _AnsweredAt(send, self.clock() + plan.legacy_latency_ms / 1000, self.clock)
        refusal = self._bucket_refuses(scope)
        if refusal is not None:
            self._count("rate_limit")
            await _send_error(refusal, scope, send)
            return
        drop_if_changed = False
        revoke_after: str | None = None
        for rule in plan.rules:
            if not rule.applies_to(method, path) or self._rng.random() >= rule.rate:
                continue
            if rule.kind == "revoke_token":
                revoke_after = self._note_token_use(scope, rule.after) or revoke_after
                continue
            if rule.kind == "commit_then_drop":
                drop_if_changed = method.upper() in WRITE_METHODS
                continue
            self._count(rule.kind)
            if rule.kind == "stall":
                await asyncio.sleep(rule.stall_s)
            elif rule.kind == "reset":
                scope.setdefault("state", {})["dropped"] = True
                await _drop(send)
            else:
                await _send_error(self._error_for(rule, scope), scope, send)
                return
        try:
            if not drop_if_changed:
                await app(scope, receive, send)
                return
            before = await _record_as_read(app, scope) if method.upper() in UPDATE_METHODS else None
            held = _HeldResponse()
            await app(scope, receive, held.send)
            if not await held.changed_service(app, scope, before):
                await held.deliver(send)
                return
        finally:
            if revoke_after is not None and self.tokens.revoke(revoke_after):
                self._count("revoke_token")
        self._count("commit_then_drop")
        scope.setdefault("state", {})["dropped"] = True
        await _drop(send)

    def _note_token_use(self, scope: Scope, after: int) -> str | None:
        """Count a use of the request's token; the token to revoke once this request is answered, if any."""
        header = dict(scope["headers"]).get(b"authorization", b"").decode("latin-1")
        token = header.partition(" ")[2].strip()
        if not token:
            return None
        uses = self._token_uses.get(token, 0) + 1
        self._token_uses[token] = uses
        return token if uses == after else None


@dataclass(frozen=True, slots=True)
class _AnsweredAt:
    """A ``send`` that starts the response no sooner than ``at``.

    A service's latency, as a client measures it, runs from the request's arrival to its answer, the service's
    own handling included. So the request is handled at once and its answer held until the latency has
    passed. Holding the request first and handling it after would add this process's handling on top: one
    process on a shared core serves every request in turn, so concurrent requests would queue behind each
    other there, which a service that serves them in parallel does not do. Refusals and dropped connections
    wait the same way.
    """

    send: Send
    at: float
    clock: Callable[[], float]

    async def __call__(self, message: Message) -> None:
        if message["type"] == "http.response.start":
            await asyncio.sleep(max(0.0, self.at - self.clock()))
        await self.send(message)


@dataclass(slots=True)
class _HeldResponse:
    """A commit-then-drop request's response, held until it is known whether the request changed anything."""

    messages: list[Message] = field(default_factory=list)
    status: int | None = None
    replayed: bool = False

    async def send(self, message: Message) -> None:
        if message["type"] == "http.response.start":
            self.status = int(message["status"])
            self.replayed = any(name.lower() == REPLAYED_HEADER for name, _ in message.get("headers", []))
        self.messages.append(message)

    async def deliver(self, send: Send) -> None:
        for message in self.messages:
            await send(message)

    async def changed_service(self, app: ASGIApp, scope: Scope, before: object) -> bool:
        """Whether the request committed something: a successful write that is not a keyed replay and, for a
        PATCH/PUT, left its record different from how it read before."""
        if self.status is None or not 200 <= self.status < 300 or self.replayed:
            return False
        if self.status == 200 and getattr(scope.get("route"), "status_code", None) == 201:
            return False  # a create answered with what was already there (A18: a project's library copy)
        if scope["method"].upper() not in UPDATE_METHODS:
            return True
        return before is None or await _record_as_read(app, scope) != before


async def _read(app: ASGIApp, scope: Scope, path: str, query: bytes = b"") -> object:
    """GET ``path`` through ``app`` (below the faults and the counters) with the request's credentials; the
    JSON body of a 200, else None."""
    credentials = [(name, value) for name, value in scope["headers"] if name.lower() in CREDENTIAL_HEADERS]
    read_scope: Scope = {
        **{name: scope[name] for name in CONNECTION_KEYS if name in scope},
        "method": "GET",
        "path": path,
        "raw_path": path.encode(),
        "query_string": query,
        "headers": credentials,
        "state": {},
    }
    held = _HeldResponse()

    async def no_body() -> Message:
        return {"type": "http.request", "body": b"", "more_body": False}

    await app(read_scope, no_body, held.send)
    if held.status != 200:
        return None
    body = b"".join(m.get("body", b"") for m in held.messages if m["type"] == "http.response.body")
    return json.loads(body)


async def _record_as_read(app: ASGIApp, scope: Scope) -> object:
    """The record a PATCH/PUT addresses as the surface reads it (``updatedAt`` aside): from its own GET, or
    from its collection's pages where the record has no GET of its own (a v1 space); None if unreadable."""
    path: str = scope["path"]
    link = LINK_PATH.match(path)
    if link is not None:
        return _without_stamps(await _read(app, scope, link["order"], b"expand=transactions"))
    # A document's link (PUT /documents/{id}/links/{kind}) has no GET of its own: it reads as its document.
    owner, document_link, _ = path.partition("/links/")
    found = await _read(app, scope, owner if document_link else path)
    if found is None:
        collection, _, record_id = path.rpartition("/")
        query: dict[str, object] | None = {"limit": 100}
        while found is None and query is not None:
            page = await _read(app, scope, collection, urllib.parse.urlencode(query).encode())
            if not isinstance(page, dict) or not isinstance(page.get("data"), list):
                return None
            found = next((row for row in page["data"] if isinstance(row, dict) and row.get("id") == record_id), None)
            cursor = page.get("nextCursor")
            query = {"limit": 100, "cursor": cursor} if isinstance(cursor, str) else None
    return _without_stamps(found)


def _without_stamps(value: object) -> object:
    # A no-op update still moves updatedAt; it is not a change of the record's content.
    if isinstance(value, dict):
        return {k: _without_stamps(v) for k, v in value.items() if k != "updatedAt"}
    if isinstance(value, list):
        return [_without_stamps(v) for v in value]
    return value


async def _drop(send: Send) -> None:
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"1024")]})
    await send({"type": "http.response.body", "body": b"{", "more_body": True})
    raise DroppedConnectionError("connection dropped by the emulator's fault plan")


def _echoed(scope: Scope) -> str:
    """The request's credential as a careless server repeats it: raw, base64 and hex, escapes around it."""
    headers = dict(scope["headers"])
    credential = headers.get(b"authorization", b"").partition(b" ")[2] or headers.get(b"x-api-key", b"")
    return (
        f"{ECHO_ESCAPES}credential {credential.decode('latin-1')} refused "
        f"(base64 {base64.b64encode(credential).decode()}, hex {credential.hex()}){ECHO_ESCAPES}"
    )


async def _send_error(error: V1Error, scope: Scope, send: Send) -> None:
    state = scope.setdefault("state", {})
    request_id = state.get("request_id") or new_request_id()
    if scope["path"].startswith(LEGACY_PREFIX):
        # Legacy errors follow A01: {error, code}; clients read only the status and the code.
        payload: dict[str, object] = {"error": error.message, "code": error.code}
    else:
        payload = error.body(request_id)
    body = json.dumps(payload).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        (REQUEST_ID_HEADER.lower().encode(), request_id.encode()),
        *((k.lower().encode(), v.encode()) for k, v in error.headers().items()),
    ]
    await send({"type": "http.response.start", "status": error.status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class FaultMiddleware:
    """ASGI middleware putting a ``FaultInjector`` in front of the app."""

    def __init__(self, app: ASGIApp, injector: FaultInjector) -> None:
        self.app = app
        self.injector = injector

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        await self.injector(self.app, scope, receive, send)
