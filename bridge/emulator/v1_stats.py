"""Request counters for the control API, and the middleware that stamps a request id on every response (A30).

Counted per request: the surface (v1, legacy, control), the method, the route template (``/v1/projects/
{projectId}/budget/lines``, not the concrete path, so counts aggregate), the error statuses, and the writes:
successful state-changing v1 requests that were not idempotent replays.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from bridge.emulator.v1_errors import REQUEST_ID_HEADER, new_request_id

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
class RequestStats:
    """Counters since start or the last reset."""

    total: int = 0
    writes: int = 0
    by_surface: Counter[str] = field(default_factory=Counter)
    by_method: Counter[str] = field(default_factory=Counter)
    by_route: Counter[str] = field(default_factory=Counter)
    errors: Counter[str] = field(default_factory=Counter)

    def clear(self) -> None:
        self.total = self.writes = 0
        for counter in (self.by_surface, self.by_method, self.by_route, self.errors):
            counter.clear()

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
        elif surface == "v1" and method in WRITE_METHODS and not replayed:
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
        }


class StatsMiddleware:
    """Outermost middleware: gives each request an id (header and error bodies) and counts it."""

    def __init__(self, app: ASGIApp, stats: RequestStats) -> None:
        self.app = app
        self.stats = stats

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request_id = new_request_id()
        scope.setdefault("state", {})["request_id"] = request_id
        seen: dict[str, object] = {"status": None, "replayed": False}

        async def stamped(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                names = {name.lower() for name, _ in headers}
                seen["status"] = message["status"]
                seen["replayed"] = b"idempotency-replayed" in names
                if b"x-request-id" not in names:
                    headers.append((REQUEST_ID_HEADER.lower().encode(), request_id.encode()))
                message = {**message, "headers": headers}
            await send(message)

        try:
            await self.app(scope, receive, stamped)
        finally:
            route = scope.get("route")
            template = route_template(scope["path"], getattr(route, "path", None))
            status = seen["status"]
            dropped = scope["state"].get("dropped", False)
            self.stats.record(
                scope["method"],
                scope["path"],
                template,
                None if dropped or not isinstance(status, int) else status,
                bool(seen["replayed"]),
            )
