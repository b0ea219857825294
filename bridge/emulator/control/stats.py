"""Request counters for the control API, and the middleware that stamps a request id on every response (A30).

Counted per request: the surface (v1, legacy, control), the method, the route template (``/v1/projects/
{projectId}/budget/lines``, not the concrete path, so counts aggregate), the error statuses, and the writes:
successful state-changing v1 requests that were not idempotent replays. And per workspace a request's
credential belongs to, per ``User-Agent``, a client timeline: when its first request began, when its last one
ended, how many it sent and how many of them were writes; two migrations of one target at once show as two
clients whose spans overlap.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from bridge.emulator.v1.errors import REQUEST_ID_HEADER, new_request_id

WRITE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})


def surface_of(path: str) -> str:
    """Which surface a path belongs to."""
    if path.startswith("/api/v1"):
        return "legacy"
    if path.startswith("/v1"):
        return "v1"
    if path.startswith("/_emulator"):
        return "control"
    return "other"


SURFACE_PREFIXES = ("/api/v1", "/v1")


def route_template(path: str, route_path: str | None) -> str:
    """The matched route's template with its surface prefix (routers included under a prefix omit it)."""
    if route_path is None:
        return "<unmatched>"
    prefix = next((p for p in SURFACE_PREFIXES if path.startswith(p + "/")), "")
    return route_path if route_path.startswith(prefix) else prefix + route_path


@dataclass(slots=True)
class ClientUse:
    """One client (``User-Agent``) of one workspace: the span of its requests and how many it sent."""

    first: datetime
    last: datetime
    requests: int = 0
    writes: int = 0

    def as_json(self, user_agent: str | None) -> dict[str, object]:
        return {
            "userAgent": user_agent,
            "first": self.first.isoformat(timespec="milliseconds"),
            "last": self.last.isoformat(timespec="milliseconds"),
            "requests": self.requests,
            "writes": self.writes,
        }


def is_write(surface: str, method: str, status: int | None, replayed: bool) -> bool:
    """A v1 request that changed the service: a successful write, not an idempotent replay."""
    return surface == "v1" and method in WRITE_METHODS and status is not None and status < 400 and not replayed


@dataclass(slots=True)
class RequestStats:
    """Counters since start or the last reset."""

    total: int = 0
    writes: int = 0
    by_surface: Counter[str] = field(default_factory=Counter)
    by_method: Counter[str] = field(default_factory=Counter)
    by_route: Counter[str] = field(default_factory=Counter)
    errors: Counter[str] = field(default_factory=Counter)
    clients: dict[str, dict[str | None, ClientUse]] = field(default_factory=dict)
    # Per User-Agent, over every workspace: requests in the service right now, and the most there ever were
    # at once (a fleet worker's --concurrency caps its own).
    in_flight: Counter[str | None] = field(default_factory=Counter)
    peak_in_flight: Counter[str | None] = field(default_factory=Counter)

    def clear(self) -> None:
        self.total = self.writes = 0
        for counter in (self.by_surface, self.by_method, self.by_route, self.errors, self.peak_in_flight):
            counter.clear()
        self.clients.clear()

    def entered(self, user_agent: str | None) -> None:
        self.in_flight[user_agent] += 1
        self.peak_in_flight[user_agent] = max(self.peak_in_flight[user_agent], self.in_flight[user_agent])

    def left(self, user_agent: str | None) -> None:
        self.in_flight[user_agent] -= 1

    def record_client(
        self, workspace: str, user_agent: str | None, began: datetime, ended: datetime, *, wrote: bool
    ) -> None:
        """Count one request of ``workspace`` by the client ``user_agent`` (None: no header sent)."""
        uses = self.clients.setdefault(workspace, {})
        use = uses.get(user_agent)
        if use is None:
            use = uses[user_agent] = ClientUse(first=began, last=ended)
        use.first, use.last = min(use.first, began), max(use.last, ended)
        use.requests += 1
        use.writes += wrote

    def record(self, method: str, path: str, route: str, status: int | None, replayed: bool) -> None:
        """Count one finished (or dropped: ``status`` None) request."""
        surface = surface_of(path)
        self.total += 1
        self.by_surface[surface] += 1
        self.by_method[method] += 1
        self.by_route[f"{method} {route}"] += 1
        if status is None:
            self.errors["dropped"] += 1
        elif status >= 400:
            self.errors[str(status)] += 1
        elif is_write(surface, method, status, replayed):
            self.writes += 1

    def as_json(self) -> dict[str, object]:
        return {
            "requests": {
                "total": self.total,
                "bySurface": dict(self.by_surface),
                "byMethod": dict(self.by_method),
                "byRoute": dict(self.by_route),
            },
            "writes": self.writes,
            "errors": dict(self.errors),
            "clients": {
                workspace: [use.as_json(agent) for agent, use in sorted(uses.items(), key=lambda kv: kv[1].first)]
                for workspace, uses in sorted(self.clients.items())
            },
            "peakInFlight": [
                {"userAgent": agent, "requests": peak} for agent, peak in sorted(self.peak_in_flight.items(), key=str)
            ],
        }


class StatsMiddleware:
    """Outermost middleware: gives each request an id (header and error bodies) and counts it, in the client
    timeline of the workspace ``workspace_of`` finds behind its credential too."""

    def __init__(self, app: ASGIApp, stats: RequestStats, workspace_of: Callable[[Scope], str | None]) -> None:
        self.app = app
        self.stats = stats
        self.workspace_of = workspace_of

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request_id = new_request_id()
        scope.setdefault("state", {})["request_id"] = request_id
        # Before the request runs: a revoke_token fault may revoke its token on the way out.
        workspace = self.workspace_of(scope)
        began = datetime.now(UTC)
        seen: dict[str, object] = {"status": None, "replayed": False, "answered": False}
        # The answer's declared length and the bytes sent of it: a client holding them all has its answer, even
        # before the server's closing (empty) body message.
        length = {"declared": -1, "sent": 0}
        agent = next((v.decode("latin-1") for k, v in scope["headers"] if k.lower() == b"user-agent"), None)
        self.stats.entered(agent)

        def finished() -> None:
            # In flight from the request's start to its answer's last byte, as its client sees it: the server's
            # send of that byte may return after the client has it and moved on, and an app may still be cleaning
            # up after it (an upload's spooled form).
            if not seen["answered"]:
                seen["answered"] = True
                self.stats.left(agent)

        async def stamped(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                names = {name.lower() for name, _ in headers}
                seen["status"] = message["status"]
                seen["replayed"] = b"idempotency-replayed" in names
                if b"x-request-id" not in names:
                    headers.append((REQUEST_ID_HEADER.lower().encode(), request_id.encode()))
                message = {**message, "headers": headers}
                declared = dict(headers).get(b"content-length", b"")
                length["declared"] = int(declared) if declared.isdigit() else -1
            if message["type"] == "http.response.body":
                length["sent"] += len(message.get("body", b""))
                whole = length["declared"] >= 0 and length["sent"] >= length["declared"]
                if whole or not message.get("more_body", False):
                    finished()  # before the last byte goes: once it is sent the client may start its next request
            await send(message)

        try:
            await self.app(scope, receive, stamped)
        finally:
            finished()
            route = scope.get("route")
            template = route_template(scope["path"], getattr(route, "path", None))
            status = seen["status"]
            answered = None if scope["state"].get("dropped", False) or not isinstance(status, int) else status
            replayed = bool(seen["replayed"])
            self.stats.record(scope["method"], scope["path"], template, answered, replayed)
            if workspace is not None:
                wrote = is_write(surface_of(scope["path"]), scope["method"], answered, replayed)
                self.stats.record_client(workspace, agent, began, datetime.now(UTC), wrote=wrote)
