"""A request as httpx composes it, byte for byte, for a fraction of what composing it through httpx costs.

``httpx.Request(method, httpx.URL(base + path, params=...), headers=..., json=body)`` cost about 65 us, a fifth
of a split item's request: httpx parses and re-quotes the whole URL, normalises every header twice (once as
given, once more to put ``Host`` in front) and encodes the body through the ``json`` module's Python layer.
``Composer`` builds the same request from what it works out once per endpoint:

- the URL: a path of plain segments (letters, digits, ``-``, ``_``, ``~``: what every id and route is) is one
  httpx quotes, normalises and parses as it is, so it is put after the parsed base URL's path directly; any
  other path, or one with a query, goes through ``httpx.URL`` as before;
- the headers of a request with a body: ``Host`` first, the endpoint's, the call's, then ``Content-Length``
  and ``Content-Type``, the order and values httpx gives them;
- the body: the bytes httpx writes for ``json=`` (``json.dumps`` compact, not ASCII-only, NaN refused), or
  the same bytes already written by whoever built the body (``Encoded``: the v1 client has pydantic write a
  checked body whose shape holds no float, as json.dumps would).

A request without a body is left to httpx entirely (reads are few, and httpx adds ``Content-Length: 0`` to a
bodiless write). tests/clients/test_compose.py holds every request to the one httpx composes.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass

import httpx

# Segments httpx leaves alone: no quoting (unreserved characters), no dot segment to drop (no dot at all).
_PLAIN_PATH = re.compile(r"(?:/[A-Za-z0-9_~-]+)+")
_PLAIN_PATH_MAX = 2000  # far below httpx's limit on a whole URL


@dataclass(frozen=True, slots=True)
class Encoded:
    """A JSON body already written, byte for byte what ``json_bytes`` writes for its value."""

    content: bytes


@dataclass(frozen=True, slots=True)
class Streamed:
    """A body sent as it is read (a document upload from its spool file), never held whole in memory.

    ``chunks`` opens the body anew for each try of the request, so a retry sends the same bytes again."""

    content_type: str
    length: int
    chunks: Callable[[], AsyncIterator[bytes]]


class _Chunks(httpx.AsyncByteStream):
    def __init__(self, body: Streamed) -> None:
        self._body = body

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self._body.chunks():
            yield chunk


def json_bytes(body: object) -> bytes:
    """The bytes httpx sends for ``json=body``."""
    return json.dumps(body, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode("utf-8")


class Composer:
    """Builds the requests of one endpoint: its base URL, the headers each carries, one timeout."""

    def __init__(self, base_url: str, headers: Mapping[str, str], timeout: float) -> None:
        self._base_url = base_url
        self._headers = dict(headers)
        self._extensions = {"timeout": dict.fromkeys(("connect", "read", "write", "pool"), timeout)}
        self._given = frozenset(name.lower() for name in headers)
        base = httpx.URL(base_url)
        # Joined to a plain path only when the base is an origin and a path (no query or fragment, which the
        # path would land after).
        self._base = base if base.host and not (base.query or base.fragment) else None

    def url(self, path: str, params: Sequence[tuple[str, str]]) -> httpx.URL:
        """``httpx.URL(base_url + path, params=params or None)``."""
        base = self._base
        if base is None or params or len(path) > _PLAIN_PATH_MAX or not _PLAIN_PATH.fullmatch(path):
            return httpx.URL(self._base_url + path, params=list(params) or None)
        # httpx has no public way to extend a parsed URL's path without parsing it all again (copy_with
        # re-parses each component): the parsed form is a named tuple, and the path is appended to it.
        joined = httpx.URL.__new__(httpx.URL)  # unparsed: its one attribute is set below
        reference = base._uri_reference
        joined._uri_reference = reference._replace(path=reference.path + path)
        return joined

    def request(
        self,
        method: str,
        path: str,
        params: Sequence[tuple[str, str]],
        body: object,
        headers: Mapping[str, str],
    ) -> httpx.Request:
        """``httpx.Request(method, url, headers={**endpoint headers, **headers}, json=body)`` (no ``json`` when
        ``body`` is None), with the timeout of every connect, read, write and pool wait."""
        url = self.url(path, params)
        if body is None:
            return httpx.Request(method, url, headers={**self._headers, **headers}, extensions=self._extensions)
        if isinstance(body, Streamed):
            sent = {**self._headers, **headers, "Content-Length": str(body.length), "Content-Type": body.content_type}
            return httpx.Request(method, url, headers=sent, stream=_Chunks(body), extensions=self._extensions)
        content = body.content if isinstance(body, Encoded) else json_bytes(body)
        # httpx's header names are case-insensitive: what the caller gave keeps its place and value.
        given = self._given.union(name.lower() for name in headers) if headers else self._given
        sent = {} if "host" in given or not url.host else {"Host": url.netloc.decode("ascii")}
        sent.update(self._headers)
        sent.update(headers)
        if "content-length" not in given:
            sent["Content-Length"] = str(len(content))
        if "content-type" not in given:
            sent["Content-Type"] = "application/json"
        request = httpx.Request(
            method, url, headers=sent, stream=httpx.ByteStream(content), extensions=self._extensions
        )
        request.read()  # as httpx does for content it was given, so ``request.content`` is there to read
        return request
