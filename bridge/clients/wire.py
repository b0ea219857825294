"""The network under httpx: one transport over aiohttp's connection pool, what every surface uses by default.

Why not httpx's own pool: httpcore checks each idle pooled connection before every request (a `getpeername`
and a `poll` per connection, for every connection, on every request) and parses HTTP in pure Python; with 16
requests in flight that was a third of a run's CPU. aiohttp learns that a connection closed from its protocol
callbacks and parses HTTP in C. httpx still builds every request (``Endpoint.request``: URL, headers, JSON
body) and decodes every answer, so the bytes sent are the ones httpx composed; tests read them with respx
(``using="bridge"``, tests/respx_bridge.py), and ``tests/clients/test_wire_transport.py`` reads them off a
socket.

A failure keeps what it says about the request (``error_for_transport`` decides from the class whether a
write may have landed): a connection that never opened is ConnectError or ConnectTimeout; one lost or timed
out after that is a ReadError, ReadTimeout or RemoteProtocolError. (httpx-aiohttp maps any lost connection to
ConnectTimeout, which would report a write that may have landed as never sent.)
"""

from __future__ import annotations

import functools
import ssl
import urllib.request
from collections.abc import AsyncIterator

import aiohttp
import httpx
import yarl

# httpx's own defaults, kept so that changing the transport changes nothing a user can configure.
LIMITS = httpx.Limits(max_connections=100, max_keepalive_connections=20, keepalive_expiry=5.0)
# Headers aiohttp would add when httpx left them out: the request goes as httpx composed it.
_NOT_ADDED = ("Accept", "Accept-Encoding", "User-Agent", "Content-Type")


def _mapped(exc: aiohttp.ClientError) -> type[httpx.TransportError]:
    """httpx's class for an aiohttp failure, by whether the request can have reached the server."""
    if isinstance(exc, aiohttp.ConnectionTimeoutError):
        return httpx.ConnectTimeout
    if isinstance(exc, aiohttp.ClientConnectorError):  # refused, unresolved, TLS handshake, proxy: never sent
        return httpx.ConnectError
    if isinstance(exc, aiohttp.InvalidURL | aiohttp.NonHttpUrlClientError):
        return httpx.UnsupportedProtocol
    if isinstance(exc, aiohttp.ServerTimeoutError):
        return httpx.ReadTimeout
    if isinstance(exc, aiohttp.ClientOSError | aiohttp.ClientPayloadError):
        return httpx.ReadError
    return httpx.RemoteProtocolError  # disconnected mid-exchange, or an answer that is not HTTP


@functools.cache
def _trust() -> ssl.SSLContext:
    """httpx's trust store (and SSL_CERT_FILE), loaded once per process: loading the CA bundle takes ~28 ms of
    CPU on the event loop, and every run, fleet step and verify opens sessions of its own (in a fleet worker it
    was an eighth of the CPU). A context is configuration, never changed once made, so sessions share it."""
    return httpx.create_ssl_context()


def _failure(exc: aiohttp.ClientError) -> httpx.TransportError:
    return _mapped(exc)(f"{type(exc).__name__}: {exc}")


def _cause(exc: aiohttp.ClientError) -> BaseException:
    """What to chain: the socket's or TLS's own error of a connection that did not open (a certificate's
    ``verify_message``, an unresolved host's ``gaierror``), so ``error_for_transport`` can name it."""
    return exc.os_error if isinstance(exc, aiohttp.ClientConnectorError) else exc


class _Body(httpx.AsyncByteStream):
    """An answer's body as aiohttp receives it; closing it hands the connection back, or drops it if unread."""

    def __init__(self, response: aiohttp.ClientResponse) -> None:
        self._response = response

    async def __aiter__(self) -> AsyncIterator[bytes]:
        try:
            async for chunk in self._response.content.iter_any():
                yield chunk
        except aiohttp.ClientError as exc:
            raise _failure(exc) from _cause(exc)

    async def aclose(self) -> None:
        if self._response.content.at_eof():
            self._response.release()
        else:  # a body left unread (over the size cap) would be read by the next request on this connection
            self._response.close()


class AiohttpTransport(httpx.AsyncBaseTransport):
    """Sends httpx's requests through one aiohttp session, created on first use inside the running loop."""

    def __init__(self, limits: httpx.Limits = LIMITS) -> None:
        self._limits = limits
        self._session: aiohttp.ClientSession | None = None
        self._proxies: dict[tuple[str, str], str | None] = {}

    def _proxy(self, url: httpx.URL) -> str | None:
        """The proxy HTTP(S)_PROXY and NO_PROXY name for an origin, read once per origin as httpx read them once
        per client (aiohttp's ``trust_env`` would read them, and ~/.netrc, in a thread on every request)."""
        origin = (url.scheme, url.host)
        if origin not in self._proxies:
            bypass = urllib.request.proxy_bypass(url.host)
            self._proxies[origin] = None if bypass else urllib.request.getproxies().get(url.scheme)
        return self._proxies[origin]

    def _open(self) -> aiohttp.ClientSession:
        if self._session is None:
            connector = aiohttp.TCPConnector(
                limit=self._limits.max_connections or 0,
                keepalive_timeout=self._limits.keepalive_expiry,
                ssl=_trust(),
            )
            self._session = aiohttp.ClientSession(
                connector=connector,
                cookie_jar=aiohttp.DummyCookieJar(),  # no cookie kept: the credentials are headers
                auto_decompress=False,  # httpx decodes, so the size cap counts decoded bytes
                skip_auto_headers=_NOT_ADDED,
                timeout=aiohttp.ClientTimeout(total=None),
            )
        return self._session

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        timeouts = request.extensions.get("timeout", {})
        # A streamed body (a document upload) goes as it is read; any other is read whole, as httpx holds it.
        streamed = not isinstance(request.stream, httpx.ByteStream)
        body: object = request.stream if streamed else await request.aread()
        try:
            response = await self._open().request(
                request.method,
                yarl.URL(str(request.url), encoded=True),  # as httpx encoded it: never re-quoted
                headers=request.headers.multi_items(),
                data=body or None,
                allow_redirects=False,
                proxy=self._proxy(request.url),
                timeout=aiohttp.ClientTimeout(
                    total=None,
                    connect=timeouts.get("pool"),
                    sock_connect=timeouts.get("connect"),
                    sock_read=timeouts.get("read"),
                ),
            )
        except aiohttp.ClientError as exc:
            raise _failure(exc) from _cause(exc)
        return httpx.Response(
            response.status,
            headers=response.raw_headers,
            stream=_Body(response),
            extensions={"http_version": b"HTTP/1.1", "reason_phrase": (response.reason or "").encode()},
        )

    async def aclose(self) -> None:
        if self._session is not None:
            await self._session.close()
