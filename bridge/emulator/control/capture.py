"""A record of every exchange the emulator serves, one JSON line each, for the contract conformance check.

``bridge emulate --capture FILE`` (or ``create_app(capture=FILE)``) appends one line per request to FILE:
method, path, query string, the headers a contract names (content type, idempotency key, replay flag,
``Retry-After``), whether and how the request authenticated, the request body and the response status and
body. Credentials are never written: the key and the token are reduced to the scheme that carried them.
Exchanges on the control API (``/_emulator``) are not product traffic and are left out.

The file is appended to, so several emulators (or one restarted) can share one capture; a line is written
whole under a lock, so lines from concurrent requests never interleave.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from bridge.emulator.wire.multipart import MultipartError, parse

CONTROL_PREFIX = "/_emulator"
# Headers a published contract speaks of; everything else (host, user agent, ...) says nothing about conformance.
KEPT_REQUEST_HEADERS = ("content-type", "idempotency-key", "if-none-match")
KEPT_RESPONSE_HEADERS = ("content-type", "idempotency-replayed", "retry-after", "etag")
MAX_BODY_BYTES = 8 * 1024 * 1024


def _auth(headers: dict[str, str]) -> list[str]:
    """How the request authenticated, without the secret: the header names and the scheme only."""
    seen = []
    if "x-api-key" in headers:
        seen.append("x-api-key")
    scheme = headers.get("authorization", "").split(" ", 1)[0]
    if scheme:
        seen.append(f"authorization:{scheme.lower()}")
    return seen


class _NotJsonError(ValueError):
    """A body Python's json module would read but JSON forbids (NaN, Infinity)."""


def _refuse_constant(name: str) -> object:
    raise _NotJsonError(name)


def _body(raw: bytes, content_type: str) -> object:
    """The request body as ``_json`` keeps it; a multipart form as its parts (``$multipart``: each part's content
    type, file name and size, and a field's text), never a file's bytes."""
    if not content_type.lower().startswith("multipart/form-data"):
        return _json(raw)
    try:
        parts = parse(raw, content_type)
    except MultipartError as exc:
        return {"$notJson": f"a multipart body that does not parse: {exc}"}
    return {
        "$multipart": {
            name: {
                "contentType": part.content_type,
                "filename": part.filename,
                "bytes": len(part.data),
                "text": None if part.filename is not None else part.data.decode("utf-8", "replace"),
            }
            for name, part in parts.items()
        }
    }


def _answer(raw: bytes, content_type: str) -> object:
    """The response body as ``_json`` keeps it; a file's bytes (any type but JSON) as their count (``$bytes``)."""
    if content_type and "json" not in content_type.lower():
        return {"$bytes": len(raw)}
    return _json(raw)


def _json(raw: bytes) -> object:
    """The body as JSON, or a marker saying why it is not (too large to keep, not JSON at all)."""
    if not raw:
        return None
    if len(raw) > MAX_BODY_BYTES:
        return {"$truncated": len(raw)}
    try:
        return json.loads(raw, parse_constant=_refuse_constant)
    except _NotJsonError as exc:
        return {"$notJson": f"the literal {exc} (JSON has no such value)"}
    except (UnicodeDecodeError, ValueError):
        return {"$notJson": f"{len(raw)} bytes that do not parse as JSON"}


class CaptureMiddleware:
    """ASGI middleware appending each product exchange to a JSON-lines file."""

    def __init__(self, app: ASGIApp, path: Path) -> None:
        self.app = app
        self.path = path
        self.lock = threading.Lock()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"].startswith(CONTROL_PREFIX):
            await self.app(scope, receive, send)
            return
        # Read the whole request first and hand it on as one message: a request refused before its route
        # reads the body (an unknown path, an auth failure) is still recorded with what the client sent.
        request_body = bytearray()
        while True:
            message = await receive()
            if message["type"] != "http.request":
                break
            request_body.extend(message.get("body", b""))
            if not message.get("more_body", False):
                break
        response_body = bytearray()
        response: dict[str, object] = {}
        replayed = False

        async def receiving() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": bytes(request_body), "more_body": False}
            return await receive()

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                response["status"] = message["status"]
                response["headers"] = _headers(message.get("headers", []), KEPT_RESPONSE_HEADERS)
            elif message["type"] == "http.response.body":
                response_body.extend(message.get("body", b""))
            await send(message)

        try:
            await self.app(scope, receiving, sending)
        finally:
            headers = {name.decode("latin-1").lower(): value.decode("latin-1") for name, value in scope["headers"]}
            record = {
                "method": scope["method"],
                # As the client sent it: a file id's %2F stays one path segment (A78).
                "path": scope.get("raw_path", b"").decode("latin-1") or scope["path"],
                "query": scope.get("query_string", b"").decode("latin-1"),
                "auth": _auth(headers),
                "headers": {name: headers[name] for name in KEPT_REQUEST_HEADERS if name in headers},
                "body": _body(bytes(request_body), headers.get("content-type", "")),
                "status": response.get("status"),
                "responseHeaders": response.get("headers", {}),
                "response": _answer(bytes(response_body), _kept(response).get("content-type", "")),
            }
            line = json.dumps(record, separators=(",", ":")) + "\n"
            with self.lock, self.path.open("a", encoding="utf-8") as out:
                out.write(line)


def _headers(raw: list[tuple[bytes, bytes]], kept: tuple[str, ...]) -> dict[str, str]:
    pairs = {name.decode("latin-1").lower(): value.decode("latin-1") for name, value in raw}
    return {name: pairs[name] for name in kept if name in pairs}


def _kept(response: dict[str, object]) -> dict[str, str]:
    headers = response.get("headers")
    return headers if isinstance(headers, dict) else {}
