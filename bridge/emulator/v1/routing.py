"""What every v1 route does the same way: authenticate, parse the body, map store refusals, replay keys, page.

Routes decode the body here and check it against its published shape with ``v1.requests.parse`` (not as a
FastAPI body parameter), so every malformed input becomes the v1 error envelope with code ``validation`` and
``fieldErrors`` rather than a framework-shaped 422.

Every v1 operation takes the same things: the request, the grant of its token and its path parameters (all
strings). So its routes are ``V1Route``s, declared on a ``V1Router`` as on FastAPI's APIRouter, which
authenticate and call the operation themselves: FastAPI's per-request work (solving the dependencies and
parameters of each call, its exit stacks, matching through each included router twice) was about a third of
what an item's handling cost, for the same answers.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping, Sequence
from types import TracebackType
from typing import Any, TypeVar

import pydantic
from starlette._utils import get_route_path
from starlette.datastructures import URLPath
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Match, NoMatchFound, compile_path, replace_params
from starlette.types import Receive, Scope, Send

from bridge.emulator.core import errors as domain
from bridge.emulator.core.model import Project, Workspace
from bridge.emulator.v1.auth import Grant, require
from bridge.emulator.v1.context import context_of
from bridge.emulator.v1.cursors import CursorCodec, parse_limit
from bridge.emulator.v1.errors import (
    NotFoundError,
    UnprocessableError,
    V1Error,
    ValidationError,
)
from bridge.emulator.v1.idempotency import KEY_HEADER, Fingerprint
from bridge.emulator.v1.requests import BODY, Closed, parse, wire_fields
from bridge.emulator.wire.json_bodies import V1JSONResponse

T = TypeVar("T")
Json = dict[str, object]


# A v1 operation: ``operation(request, grant, **path_params)``.
Operation = Callable[..., Awaitable[Response]]


class V1Route(BaseRoute):
    """One v1 operation at ``path`` for one method. It matches as FastAPI's APIRoute did (the same path
    pattern, the method alone, no implied HEAD, ``route`` in the scope for the counters), and authenticates
    before it calls the operation, so an unauthenticated call never reaches one. A matched path with another
    method is a 405 for the app's handler (the v1 surface answers it as an unknown operation, A57)."""

    def __init__(self, path: str, method: str, operation: Operation, status_code: int) -> None:
        self.path = path
        self.methods = frozenset({method})
        self.operation = operation
        # What the operation answers when it succeeds; the fault layer reads it (a create answered 200).
        self.status_code = status_code
        self.name = operation.__name__
        self.path_regex, self.path_format, self.param_convertors = compile_path(path)

    def matches(self, scope: Scope) -> tuple[Match, Scope]:
        if scope["type"] != "http":
            return Match.NONE, {}
        found = self.path_regex.match(get_route_path(scope))
        if found is None:
            return Match.NONE, {}
        params = {**scope.get("path_params", {}), **found.groupdict()}
        child = {"endpoint": self.operation, "path_params": params, "route": self}
        return (Match.FULL if scope["method"] in self.methods else Match.PARTIAL), child

    def url_path_for(self, name: str, /, **path_params: Any) -> URLPath:
        if name != self.name or set(path_params) != set(self.param_convertors):
            raise NoMatchFound(name, path_params)
        path, _ = replace_params(self.path_format, self.param_convertors, path_params)
        return URLPath(path=path, protocol="http")

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["method"] not in self.methods:
            raise HTTPException(status_code=405, headers={"Allow": ", ".join(self.methods)})
        request = Request(scope, receive, send)
        grant = context_of(request).tokens.authenticate(request.headers.get("authorization"))
        response = await self.operation(request, grant, **scope["path_params"])
        await response(scope, receive, send)


class V1Router:
    """v1 operations declared as on an APIRouter (``@router.post(path, status_code=201)``), in order: routes
    are tried one by one in the order they are mounted."""

    def __init__(self, prefix: str = "") -> None:
        self.prefix = prefix
        self.operations: list[tuple[str, str, Operation, int]] = []

    def _declare(self, method: str, path: str, status_code: int) -> Callable[[Operation], Operation]:
        def declare(operation: Operation) -> Operation:
            self.operations.append((method, self.prefix + path, operation, status_code))
            return operation

        return declare

    def get(self, path: str, *, status_code: int = 200) -> Callable[[Operation], Operation]:
        return self._declare("GET", path, status_code)

    def post(self, path: str, *, status_code: int = 200) -> Callable[[Operation], Operation]:
        return self._declare("POST", path, status_code)

    def put(self, path: str, *, status_code: int = 200) -> Callable[[Operation], Operation]:
        return self._declare("PUT", path, status_code)

    def patch(self, path: str, *, status_code: int = 200) -> Callable[[Operation], Operation]:
        return self._declare("PATCH", path, status_code)

    def delete(self, path: str, *, status_code: int = 200) -> Callable[[Operation], Operation]:
        return self._declare("DELETE", path, status_code)

    def routes(self, prefix: str) -> list[V1Route]:
        """The operations as routes under ``prefix``, in the order they were declared."""
        return [V1Route(prefix + path, method, op, status) for method, path, op, status in self.operations]


def workspace_of(request: Request, grant: Grant) -> Workspace:
    """The one workspace the request's token is bound to."""
    return context_of(request).service.workspace(grant.workspace)


def project_of(request: Request, grant: Grant, project_id: str) -> tuple[Workspace, Project]:
    """The token's workspace and one of its live projects (by id or slug), else 404 not_found."""
    workspace = workspace_of(request, grant)
    with domain_errors():
        return workspace, context_of(request).service.get_project(workspace, project_id)


def can(grant: Grant, action: str, resource_type: str) -> None:
    """Refuse a write the token's role does not permit (403 permission_revoked)."""
    require(grant, action, resource_type)


async def json_body(request: Request) -> Json:
    """The request body as a JSON object, else 400 validation."""
    raw = await request.body()
    if not raw:
        return {}
    try:
        body = json.loads(raw)
    except ValueError:
        raise ValidationError(
            "The request body is not valid JSON; send a JSON object.", fieldErrors={BODY: ["is not valid JSON"]}
        ) from None
    if not isinstance(body, dict):
        raise ValidationError("The request body must be a JSON object.", fieldErrors={BODY: ["must be an object"]})
    return body


async def parsed_body(request: Request, model: type[Closed]) -> Json:
    """The body checked against its published ``model``: what ``parse(model, await json_body(request))`` gives.

    pydantic reads the bytes itself when they are JSON that fits the model (decoding them with ``json.loads``
    first cost as much as checking them); anything else goes that old way, so every refusal is the one it was.
    pydantic's reader refuses all that ``json.loads`` refuses (and more: a byte-order mark, an escaped lone
    surrogate) and reads what both accept to the same values."""
    try:
        checked = model.model_validate_json(await request.body())
    except pydantic.ValidationError:
        return parse(model, await json_body(request))
    return wire_fields(checked)


class _DomainErrors:
    """Turns the store's refusals raised in its ``with`` block into v1 errors (see ``domain_errors``).

    A class rather than a ``contextmanager`` generator: a bulk create enters one per record, and a generator
    costs several times as much to start and close."""

    __slots__ = ("body_refs",)

    def __init__(self, *, body_refs: bool) -> None:
        self.body_refs = body_refs

    def __enter__(self) -> None:
        return None

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, traceback: TracebackType | None
    ) -> None:
        if isinstance(exc, domain.EmulatorError):
            raise self._translated(exc) from exc

    def _translated(self, exc: domain.EmulatorError) -> V1Error:
        if isinstance(exc, domain.NotFound):
            if self.body_refs:
                return UnprocessableError(
                    f"{exc.kind} {exc.ref!r} named in the body does not exist; fix the reference."
                )
            return NotFoundError(f"{exc.kind.capitalize()} {exc.ref!r} was not found.")
        if isinstance(exc, domain.InvalidInput):
            if self.body_refs and "does not exist" in exc.message:
                return UnprocessableError(f"{exc.message}; fix the reference and retry.")
            return ValidationError(exc.message, fieldErrors={exc.field: [exc.message]})
        return ValidationError(exc.message)


_PATH_REFS = _DomainErrors(body_refs=False)
_BODY_REFS = _DomainErrors(body_refs=True)


def domain_errors(*, body_refs: bool = False) -> _DomainErrors:
    """Turn the store's refusals into v1 errors. With ``body_refs`` a missing referenced record (named in the
    request body, not the path) is a 422: the request is well formed but names something that is not there."""
    return _BODY_REFS if body_refs else _PATH_REFS


async def idempotent(request: Request, grant: Grant, produce: Callable[[], Awaitable[Response]]) -> Response:
    """Run a create under its Idempotency-Key (required), replaying the first response on a repeat."""
    body = await request.body()
    key = request.headers.get(KEY_HEADER)
    context = context_of(request)
    return await context.idempotency.run(grant.workspace, key, Fingerprint.of(request, body), produce)


def created(body: object) -> V1JSONResponse:
    return V1JSONResponse(body, status_code=201)


def ok(body: object) -> V1JSONResponse:
    return V1JSONResponse(body)


def page_response(
    request: Request,
    items: Sequence[T],
    shape: Callable[[T], Json],
    *,
    filters: Mapping[str, str | None],
    with_count: bool = False,
    extra: Mapping[str, object] | None = None,
) -> V1JSONResponse:
    """A cursor-paged list page ``{data, nextCursor, count?}`` bound to ``filters``."""
    codec: CursorCodec = context_of(request).cursors
    limit = parse_limit(request.query_params.get("limit"))
    binding = codec.binding(request.url.path, filters)
    page = codec.page(items, cursor=request.query_params.get("cursor"), limit=limit, binding=binding)
    body: Json = {"data": [shape(item) for item in page.items], "nextCursor": page.next_cursor}
    if with_count or flag(request, "withCount"):  # the published lists that page all declare withCount
        body["count"] = len(items)
    if extra:
        body.update(extra)
    return V1JSONResponse(body)


def renamed(body: Json, allowed: Mapping[str, str]) -> dict[str, object]:
    """A body already checked against its published shape, under the model's names; the published fields the
    emulator does not model are accepted and not kept (A53)."""
    return {allowed[key]: value for key, value in body.items() if key in allowed}


def flag(request: Request, name: str) -> bool:
    """A boolean query parameter (``true``/``false``), else 400 validation."""
    raw = request.query_params.get(name)
    if raw is None:
        return False
    if raw.lower() not in ("true", "false", "1", "0"):
        raise ValidationError(f"Query parameter {name} must be true or false; got {raw!r}.")
    return raw.lower() in ("true", "1")


def listed(value: str | None) -> list[str]:
    """A comma-separated query parameter as a list."""
    return [part.strip() for part in (value or "").split(",") if part.strip()]
