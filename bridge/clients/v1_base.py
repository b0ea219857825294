"""What every group of v1 calls shares: the session, the Idempotency-Key rule, and the one write path."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from types import TracebackType
from typing import Self, TypeVar

from pydantic import BaseModel

from bridge.clients.compose import Encoded
from bridge.clients.http import REQUEST_ID_HEADER, Call, HttpSession, Json, json_body, parse_model
from bridge.clients.pages import iterate_pages
from bridge.clients.transfer import Spooled, upload_body
from bridge.clients.v1_requests import BY_ID, Operation, checked, encoded, wire
from bridge.errors import FatalError, ServiceUnavailable, UnexpectedResponse

ModelT = TypeVar("ModelT", bound=BaseModel)

KEY_MIN, KEY_MAX = 16, 255


def key_header(key: str) -> dict[str, str]:
    """The Idempotency-Key header; a key outside 16..255 characters is a bug in key derivation, never sent."""
    if not KEY_MIN <= len(key) <= KEY_MAX:
        raise FatalError(f"an Idempotency-Key of {len(key)} characters was derived; v1 accepts {KEY_MIN} to {KEY_MAX}")
    return {"Idempotency-Key": key}


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

    async def send_write(
        self, operation: str, params: Sequence[str], body: Mapping[str, object], key: str | None, *, leaf: bool = False
    ) -> object:
        """The engine's one way to write: ``operation`` with its path ``params``, the body checked against the
        operation's closed published shape (UnpublishedBody, a record error, if it does not fit), sent
        replay-safe (keyed, or idempotent by nature), and the answer's JSON returned for the engine to read ids
        from. A ``leaf`` (no other write waits for its answer) lets the writes others wait for go first
        (``Call.leaf``)."""
        found = BY_ID[operation]
        headers = key_header(key) if key is not None else {}
        call = Call(
            found.method, found.render(params), body=_wire(found, body), headers=headers, replay_safe=True, leaf=leaf
        )
        response = await self.session.send(call)
        # A delete answers 204 with no content.
        return None if response.status_code == 204 else json_body(response, call.what)

    async def send_upload(
        self, operation: str, body: Mapping[str, object], spooled: Spooled, mime_type: str, key: str
    ) -> object:
        """A multipart write (``documents_upload``): ``body`` checked as its published ``metadata`` part, the
        file streamed from its spool file beside it, under a boundary derived from ``key`` (``transfer``)."""
        found = BY_ID[operation]
        if not found.multipart:
            raise FatalError(f"{operation} is not a multipart operation")
        metadata = wire(checked(found, body)) or {}
        name = str(metadata.get("name") or "document")
        content = upload_body(spooled, metadata, name, mime_type, key)
        call = Call(found.method, found.render(()), body=content, headers=key_header(key), replay_safe=True)
        return json_body(await self.session.send(call), call.what)

    async def read(self, operation: str, params: Sequence[str] = (), query: Sequence[tuple[str, str]] = ()) -> object:
        """The JSON answer of a read ``operation`` with its path ``params`` and ``query``."""
        path = BY_ID[operation].render(params)
        return json_body(await self.session.send(Call("GET", path, params=query)), f"GET {path}")

    def rows(
        self, operation: str, params: Sequence[str] = (), query: Sequence[tuple[str, str]] = ()
    ) -> AsyncIterator[list[object]]:
        """The pages of a list ``operation`` (its ``data`` rows), cursor by cursor; a list the description
        answers whole is read in one request with no paging parameter."""
        found = BY_ID[operation]
        if found.pages:
            return iterate_pages(self.session, found.render(params), list(query))
        return self._whole(found.render(params), query)

    async def _whole(self, path: str, query: Sequence[tuple[str, str]]) -> AsyncIterator[list[object]]:
        """The one answer of a list that takes no limit or cursor; an answer naming a nextCursor would leave rows
        out with no published way to ask for them, so the read stops instead."""
        call = Call("GET", path, params=query)
        response = await self.session.send(call)
        page = json_body(response, call.what)
        request_id = response.headers.get(REQUEST_ID_HEADER)
        if not isinstance(page, dict) or not isinstance(page.get("data"), list):
            raise UnexpectedResponse(f"v1 {call.what} answered without a data array", request_id=request_id)
        if page.get("nextCursor") is not None:
            raise ServiceUnavailable(f"v1 {call.what} answered more rows than one answer", request_id=request_id)
        yield page["data"]


def _wire(operation: Operation, body: Mapping[str, object]) -> Json | Encoded:
    """The body of ``operation`` as its published closed shape lets it go on the wire (UnpublishedBody if not).

    What is sent is the checked model's fields as set, which for a body that fits is the body unchanged (so a
    journalled body, its hash and its Idempotency-Key stay what they were)."""
    model = checked(operation, body)
    if model is None:
        return None  # an operation that publishes no body (a link, a submit) is sent with none
    return encoded(operation, model) or wire(model) or {}
