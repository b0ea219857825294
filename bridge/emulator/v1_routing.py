"""What every v1 route does the same way: authenticate, parse the body, map store refusals, replay keys, page.

Routes decode the body here and check it against its published shape with ``v1_requests.parse`` (not as a
FastAPI body parameter), so every malformed input becomes the v1 error envelope with code ``validation`` and
``fieldErrors`` rather than a framework-shaped 422.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping, Sequence
from types import TracebackType
from typing import Annotated, TypeVar

import pydantic
from fastapi import Depends
from starlette.requests import Request
from starlette.responses import Response

from bridge.emulator import errors as domain
from bridge.emulator.auth import Grant, require
from bridge.emulator.cursors import CursorCodec, parse_limit
from bridge.emulator.idempotency import KEY_HEADER, Fingerprint
from bridge.emulator.json_wire import V1JSONResponse
from bridge.emulator.model import Project, Workspace
from bridge.emulator.v1_context import context_of
from bridge.emulator.v1_errors import (
    NotFoundError,
    UnprocessableError,
    V1Error,
    ValidationError,
)
from bridge.emulator.v1_requests import BODY, Closed, parse, wire_fields

T = TypeVar("T")
Json = dict[str, object]


async def authenticated(request: Request) -> Grant:
    """The token's grant; every v1 route depends on it, so an unauthenticated call never reaches a handler.

    ``async`` although it awaits nothing: FastAPI runs a plain ``def`` dependency in its thread pool, a hand-off
    to another thread and back on every v1 request for a dictionary lookup."""
    return context_of(request).tokens.authenticate(request.headers.get("authorization"))


Auth = Annotated[Grant, Depends(authenticated)]


def project_of(request: Request, grant: Grant, project_id: str) -> tuple[Workspace, Project]:
    """The token's workspace and one of its live projects (by id or slug), else 404 not_found."""
    context = context_of(request)
    workspace = context.workspace(grant)
    with domain_errors():
        return workspace, context.service.get_project(workspace, project_id)


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
