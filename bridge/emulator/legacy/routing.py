"""What every legacy route shares: key auth, the optional rate limit, query parsing, the error body (A01).

A route declares ``ctx: Ctx`` and gets a ``LegacyRequest``: the workspace the ``X-API-Key`` opens, the
parsed query, and ``view()`` for shaping. ``LegacyRoute`` turns any store error into the legacy error body
``{error, code, details?}`` with the status the legacy document names (A01).
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Coroutine, Mapping
from dataclasses import dataclass, field
from typing import Annotated, Protocol

from fastapi import Depends
from fastapi.routing import APIRoute
from starlette.requests import Request
from starlette.responses import Response

from bridge.emulator.core.errors import EmulatorError, InvalidInput
from bridge.emulator.core.model import Project, Workspace
from bridge.emulator.core.store import Service
from bridge.emulator.legacy.contract import BASE, Param, base_name, check, declared
from bridge.emulator.legacy.errors import AccessRestricted, RateLimited, Unauthenticated, status_of
from bridge.emulator.legacy.shapes import LegacyView
from bridge.emulator.wire.json_bodies import legacy_body

KEY_HEADER = "X-API-Key"


class LegacyJSON(Response):
    """JSON as the legacy service writes it; NaN and Infinity pass through so dirty records stay visible."""

    media_type = "application/json"

    def render(self, content: object) -> bytes:
        return legacy_body(content)


def legacy_error(exc: EmulatorError) -> Response:
    """The A01 error body with the status for the error's class."""
    status = status_of(exc)
    body: dict[str, object] = {"error": exc.message, "code": exc.code}
    if isinstance(exc, InvalidInput):
        body["details"] = {"field": exc.field}
    headers = {"Retry-After": str(exc.retry_after)} if isinstance(exc, RateLimited) else None
    return LegacyJSON(body, status_code=status, headers=headers)


class LegacyRoute(APIRoute):
    """A route whose store errors become legacy error responses; it sees only its declared query parameters."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[None, None, Response]]:
        original = super().get_route_handler()
        route = self.path.removeprefix(BASE)

        async def handler(request: Request) -> Response:
            request.state.declared = declared(request.method, route)
            try:
                return await original(request)
            except EmulatorError as exc:
                return legacy_error(exc)

        return handler


@dataclass
class TokenBucket:
    """An optional request budget per key (A02): ``rate`` requests per second, bursts up to ``capacity``."""

    rate: float
    capacity: float
    clock: Callable[[], float] = time.monotonic
    levels: dict[str, tuple[float, float]] = field(default_factory=dict)

    def take(self, key: str) -> None:
        """Spend one request for ``key`` or raise RateLimited with the seconds until one is available."""
        now = self.clock()
        level, last = self.levels.get(key, (self.capacity, now))
        level = min(self.capacity, level + (now - last) * self.rate)
        if level < 1:
            self.levels[key] = (level, now)
            raise RateLimited(max(1, math.ceil((1 - level) / self.rate)))
        self.levels[key] = (level - 1, now)


class LegacyContext(Protocol):
    """What the legacy surface reads from the emulator's one state holder (``app.state.emulator``,
    ``bridge.emulator.control.state``): the current service (a reset swaps it) and the optional rate limit."""

    service: Service
    legacy_bucket: TokenBucket | None


def truthy(name: str, value: str | None, default: bool = False) -> bool:
    """A boolean query parameter: true/false/1/0 (any case); anything else is a 400 naming the parameter."""
    if value is None or value == "":
        return default
    lowered = value.lower()
    if lowered in ("true", "1"):
        return True
    if lowered in ("false", "0"):
        return False
    raise InvalidInput(name, f"{value!r} is not a boolean; send true or false")


@dataclass
class LegacyRequest:
    """One authenticated legacy request."""

    service: Service
    workspace: Workspace
    request: Request
    declared: Mapping[str, Param] = field(default_factory=dict)

    def param(self, name: str) -> str | None:
        """A declared query parameter's value; an undeclared one reads as absent (legacy_contract)."""
        return self.request.query_params.get(name) if name in self.declared else None

    def multi(self, name: str) -> list[str]:
        """An array parameter in either spelling: ``name[]=a&name[]=b`` or ``name=a,b``."""
        if name not in self.declared:
            return []
        raw = [*self.request.query_params.getlist(f"{name}[]"), *self.request.query_params.getlist(name)]
        return [part.strip() for value in raw for part in value.split(",") if part.strip()]

    def flag(self, name: str, default: bool = False) -> bool:
        return truthy(name, self.param(name), default)

    def system(self, body: Mapping[str, object] | None = None) -> bool:
        """Whether ids are database ids: ``idMode=system`` in the query, or in the body of a write."""
        mode = self.param("idMode") or (str(body.get("idMode")) if body and body.get("idMode") else None) or "user"
        if mode not in ("user", "system"):
            raise InvalidInput("idMode", f"{mode!r} is not user or system")
        return mode == "system"

    def view(self, body: Mapping[str, object] | None = None) -> LegacyView:
        phase_filter = self.multi("phaseId")
        return LegacyView(
            service=self.service,
            workspace=self.workspace,
            system=self.system(body),
            include_hidden=self.flag("includeHiddenPhases"),
            phase_filter=frozenset(phase_filter) if phase_filter else None,
            expands=frozenset(self.multi("expands")),
        )

    def project(self, ref: str) -> Project:
        return self.service.get_project(self.workspace, ref)

    async def body(self) -> dict[str, object]:
        """The JSON object body; anything else is a 400."""
        try:
            parsed = json.loads(await self.request.body() or b"{}")
        except json.JSONDecodeError as exc:
            raise InvalidInput("body", f"is not valid JSON ({exc.msg})") from exc
        if not isinstance(parsed, dict):
            raise InvalidInput("body", "must be a JSON object")
        return parsed


def authenticated_workspace(service: Service, key: str | None) -> Workspace:
    """The workspace a legacy key opens; unknown or missing -> Unauthenticated, restricted -> AccessRestricted."""
    api_key = service.api_keys.get(key) if key else None
    if api_key is None:
        raise Unauthenticated(f"missing or invalid {KEY_HEADER}; send the key from Settings > API Keys")
    if api_key.restricted:
        raise AccessRestricted("workspace access is restricted for this API key; ask a workspace admin")
    return service.workspace(api_key.workspace_id)


async def legacy_request(request: Request) -> LegacyRequest:
    """Authenticate the key (401 missing/unknown, 403 restricted), spend from the optional rate limit, then
    refuse a declared query parameter outside its published type (400). ``async`` so that FastAPI calls it on
    the event loop rather than in its thread pool (it does no I/O)."""
    context: LegacyContext = request.app.state.emulator
    key = request.headers.get(KEY_HEADER)
    workspace = authenticated_workspace(context.service, key)
    if context.legacy_bucket is not None and key:
        context.legacy_bucket.take(key)
    params: Mapping[str, Param] = getattr(request.state, "declared", {})
    for name, value in request.query_params.multi_items():
        if base_name(name) in params:
            check(params, base_name(name), value)
    return LegacyRequest(service=context.service, workspace=workspace, request=request, declared=params)


Ctx = Annotated[LegacyRequest, Depends(legacy_request)]


def ok(content: object, status: int = 200) -> Response:
    return LegacyJSON(content, status_code=status)


def no_content() -> Response:
    return Response(status_code=204)


def renamed(body: Mapping[str, object], names: Mapping[str, str]) -> dict[str, object]:
    """The body's known fields under model names (unknown fields, such as idMode, are left out)."""
    return {names[k]: v for k, v in body.items() if k in names}
