"""What every group of v1 calls shares: the session, the Idempotency-Key rule, and reading a write's outcome."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from types import TracebackType
from typing import Self, TypeVar

import httpx
from pydantic import BaseModel

from bridge.clients.compose import Encoded
from bridge.clients.http import REQUEST_ID_HEADER, Call, HttpSession, Json, json_body, parse_model
from bridge.clients.models import Written
from bridge.clients.v1_requests import Operation, checked, encoded, operation_of, wire
from bridge.errors import FatalError, UnexpectedResponse

ModelT = TypeVar("ModelT", bound=BaseModel)
T = TypeVar("T")

KEY_MIN, KEY_MAX = 16, 255
REPLAYED_HEADER = "Idempotency-Replayed"


def key_header(key: str) -> dict[str, str]:
    """The Idempotency-Key header; a key outside 16..255 characters is a bug in key derivation, never sent."""
    if not KEY_MIN <= len(key) <= KEY_MAX:
        raise FatalError(f"an Idempotency-Key of {len(key)} characters was derived; v1 accepts {KEY_MIN} to {KEY_MAX}")
    return {"Idempotency-Key": key}


def written(response: httpx.Response, value: T) -> Written[T]:
    """Wrap a write's value with the replay flag (``Idempotency-Replayed: true``), requestId and status."""
    replayed = response.headers.get(REPLAYED_HEADER, "").strip().lower() == "true"
    return Written(value, replayed, response.headers.get(REQUEST_ID_HEADER), response.status_code)


class V1Calls:
    """Base of the v1 call groups; holds the session and the helpers that turn responses into models."""

    def __init__(self, session: HttpSession) -> None:
        self.session = session
        # ETag and body of the last answer per conditional GET (path + query), for If-None-Match reuse.
        self._etags: dict[tuple[str, tuple[tuple[str, str], ...]], tuple[str, BaseModel]] = {}

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.session.aclose()

    async def _get(self, path: str, model: type[ModelT], params: Sequence[tuple[str, str]] = ()) -> ModelT:
        call = Call("GET", path, params=params)
        response = await self.session.send(call)
        return parse_model(model, json_body(response, call.what), call.what, response.headers.get(REQUEST_ID_HEADER))

    async def _send_parsed(self, call: Call, parse: Callable[[object, str, str | None], T]) -> Written[T]:
        response = await self.session.send(call)
        request_id = response.headers.get(REQUEST_ID_HEADER)
        body: object = None if response.status_code == 204 else json_body(response, call.what)
        return written(response, parse(body, call.what, request_id))

    async def send_write(
        self, operation: str, method: str, path: str, body: Mapping[str, object], key: str | None, *, leaf: bool = False
    ) -> object:
        """The engine's one way to write: ``body`` checked against ``operation``'s closed published shape
        (UnpublishedBody, a record error, if it does not fit), sent replay-safe (keyed, or idempotent by
        nature), and the answer's JSON returned for the engine to read ids from. A ``leaf`` (no other write
        waits for its answer) lets the writes others wait for go first (``Call.leaf``)."""
        found = operation_of(method, path)
        if found.id != operation:
            raise FatalError(f"{method} {path} is {found.id}, not the journalled {operation}")
        headers = key_header(key) if key is not None else {}
        call = Call(method, path, body=_wire(found, body), headers=headers, replay_safe=True, leaf=leaf)
        return json_body(await self.session.send(call), call.what)

    async def _create(self, path: str, body: Mapping[str, object], key: str, model: type[ModelT]) -> Written[ModelT]:
        """POST a create with its Idempotency-Key; 201 (or a 200 replay) parsed as ``model``."""
        call = Call("POST", path, body=_json(body, "POST", path), headers=key_header(key))
        return await self._send_parsed(call, lambda data, what, rid: parse_model(model, data, what, rid))

    async def _create_many(
        self, path: str, body: Mapping[str, object], key: str, model: type[ModelT]
    ) -> Written[list[ModelT]]:
        """POST a bulk write with its key; the answer's ``data`` array parsed item by item, in request order."""
        call = Call("POST", path, body=_json(body, "POST", path), headers=key_header(key))
        return await self._send_parsed(call, lambda data, what, rid: data_items(model, data, what, rid))

    async def _patch(self, path: str, body: Mapping[str, object], model: type[ModelT]) -> ModelT:
        call = Call("PATCH", path, body=_json(body, "PATCH", path))
        response = await self.session.send(call)
        return parse_model(model, json_body(response, call.what), call.what, response.headers.get(REQUEST_ID_HEADER))


def data_items(model: type[ModelT], data: object, what: str, request_id: str | None) -> list[ModelT]:
    """The ``data`` array of a collection answer, each item parsed as ``model``."""
    rows = data.get("data") if isinstance(data, dict) else None
    if not isinstance(rows, list):
        raise UnexpectedResponse(f"{what} answered without a data array", request_id=request_id)
    return [parse_model(model, row, what, request_id) for row in rows]


def _json(body: Mapping[str, object], method: str, path: str) -> Json | Encoded:
    """The body of ``method path`` as its published closed shape lets it go on the wire (UnpublishedBody if not).

    What is sent is the checked model's fields as set, which for a body that fits is the body unchanged (so a
    journalled body, its hash and its Idempotency-Key stay what they were)."""
    return _wire(operation_of(method, path), body)


def _wire(operation: Operation, body: Mapping[str, object]) -> Json | Encoded:
    """``_json`` for a request whose operation is already known (matching a path against every published
    template is a cost per request)."""
    model = checked(operation, body)
    if model is None:
        return {}
    return encoded(operation, model) or wire(model) or {}
