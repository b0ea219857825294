"""The endpoint and aiohttp transport under every surface, read off a real socket: the bytes sent are the
request the session composed (with the headers httpx's client sent before), connections are pooled, and each
way a connection can fail says whether the request can have reached the service."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

import httpx
import pytest

from bridge.clients.http import Call, Endpoint, HttpSession, Limits, RunControls, error_for_transport, make_endpoint
from bridge.errors import NetworkError, ResumableStop

Handler = Callable[[bytes, asyncio.StreamWriter], Awaitable[None]]
pytestmark = pytest.mark.anyio
OK = b'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\n\r\n{"ok":true}'


def _content_length(head: bytes) -> int:
    lines = (line for line in head.split(b"\r\n") if line.lower().startswith(b"content-length:"))
    return next((int(line.split(b":")[1]) for line in lines), 0)


class Server:
    """A loopback HTTP/1.1 server of a few lines: it keeps each request's bytes and counts connections."""

    def __init__(self, handler: Handler) -> None:
        self.handler = handler
        self.requests: list[bytes] = []
        self.connections = 0

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            while head := await reader.readuntil(b"\r\n\r\n"):
                request = head + await reader.readexactly(_content_length(head))
                self.requests.append(request)
                await self.handler(request, writer)
                if writer.is_closing():
                    return
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()


@asynccontextmanager
async def serving(handler: Handler) -> AsyncIterator[tuple[Server, str]]:
    server = Server(handler)
    listener = await asyncio.start_server(server._serve, "127.0.0.1", 0)
    port = listener.sockets[0].getsockname()[1]
    try:
        yield server, f"http://127.0.0.1:{port}"
    finally:
        listener.close()


async def answer(_: bytes, writer: asyncio.StreamWriter) -> None:
    writer.write(OK)
    await writer.drain()


async def exchange(endpoint: Endpoint, call: Call) -> bytes:
    """One request straight through the endpoint's transport, its body read whole."""
    response = await endpoint.transport.handle_async_request(endpoint.request(call))
    try:
        return await response.aread()
    finally:
        await response.aclose()


async def test_the_request_on_the_wire_is_the_one_the_session_composed() -> None:
    call = Call("POST", "/v1/projects/p 1/lines", params=(("expands[]", "phase"), ("q", "a&b")), body={"name": "Café"})
    async with serving(answer) as (server, base):
        endpoint = make_endpoint(base, {"Authorization": "Bearer t0k"})
        async with HttpSession(endpoint, "v1", RunControls()) as session:
            assert (await session.send(call)).json() == {"ok": True}
        composed = endpoint.request(call)
    head, _, body = server.requests[0].partition(b"\r\n\r\n")
    request_line, *header_lines = head.decode("latin-1").split("\r\n")
    assert request_line == "POST /v1/projects/p%201/lines?expands%5B%5D=phase&q=a%26b HTTP/1.1"
    sent = sorted((name.lower(), value.strip()) for name, value in (line.split(":", 1) for line in header_lines))
    assert sent == sorted((name.lower(), value) for name, value in composed.headers.multi_items())
    # The headers httpx's client sent before the bridge composed its requests itself, and no others.
    httpx_client_headers = ("host", "accept-encoding", "connection", "user-agent", "accept")
    ours = ("authorization", "content-length", "content-type")
    assert sorted(name for name, _ in sent) == sorted(httpx_client_headers + ours)
    assert body == composed.content == '{"name":"Café"}'.encode()


async def test_a_connection_is_reused_once_its_answer_is_read_and_dropped_when_it_is_left_unread() -> None:
    long = b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n" + b"x" * 100_000

    async def answers(request: bytes, writer: asyncio.StreamWriter) -> None:
        writer.write(long if b"/long" in request else OK)
        await writer.drain()

    controls = RunControls(limits=Limits(max_response_bytes=1000))
    async with serving(answers) as (server, base), HttpSession(make_endpoint(base, {}), "v1", controls) as session:
        await session.send(Call("GET", "/a"))
        await session.send(Call("GET", "/b"))
        assert server.connections == 1
        with pytest.raises(ResumableStop, match="max_response_bytes"):
            await session.send(Call("GET", "/long"))
        await session.send(Call("GET", "/c"))
        assert server.connections == 2
        assert (await session.send(Call("GET", "/d"))).json() == {"ok": True}


async def hang_up(_: bytes, writer: asyncio.StreamWriter) -> None:
    writer.close()


async def cut_short(_: bytes, writer: asyncio.StreamWriter) -> None:
    writer.write(b'HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{"partial')
    await writer.drain()
    writer.close()


async def not_http(_: bytes, writer: asyncio.StreamWriter) -> None:
    writer.write(b"SSH-2.0-OpenSSH_9.6\r\n\r\n")
    await writer.drain()
    writer.close()


async def never_answer(_: bytes, writer: asyncio.StreamWriter) -> None:
    await asyncio.sleep(5)


WRITE = Call("POST", "/v1/contacts", body={"name": "x"}, headers={"Idempotency-Key": "k" * 16})


@pytest.mark.parametrize(
    ("handler", "raised"),
    [
        (hang_up, httpx.RemoteProtocolError),
        (cut_short, httpx.ReadError),
        (not_http, httpx.RemoteProtocolError),
        (never_answer, httpx.ReadTimeout),
    ],
    ids=["hung up before answering", "body cut short", "not HTTP", "no answer in time"],
)
async def test_a_connection_lost_after_the_request_went_may_have_reached_the_service(
    handler: Handler, raised: type[httpx.TransportError]
) -> None:
    async with serving(handler) as (server, base):
        endpoint = make_endpoint(base, {}, timeout=0.5)
        with pytest.raises(raised) as caught:
            await exchange(endpoint, WRITE)
        await endpoint.aclose()
        assert len(server.requests) == 1
    error = error_for_transport(caught.value, "POST /v1/contacts", "v1")
    assert isinstance(error, NetworkError)
    assert error.reached_server


async def test_a_connection_refused_never_reached_the_service() -> None:
    async with serving(answer) as (_, base):
        pass  # closed again: nothing listens on the port now
    endpoint = make_endpoint(base, {})
    with pytest.raises(httpx.ConnectError) as caught:
        await exchange(endpoint, WRITE)
    await endpoint.aclose()
    error = error_for_transport(caught.value, "POST /v1/contacts", "v1")
    assert isinstance(error, NetworkError)
    assert not error.reached_server


async def test_a_proxy_named_in_the_environment_carries_requests_unless_no_proxy_names_the_host(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async with serving(answer) as (proxy, proxy_url):
        monkeypatch.setenv("HTTP_PROXY", proxy_url)
        monkeypatch.setenv("NO_PROXY", "direct.invalid")
        through, around = make_endpoint("http://legacy.invalid", {}), make_endpoint("http://direct.invalid", {})
        assert await exchange(through, Call("GET", "/api/v1/projects")) == b'{"ok":true}'
        with pytest.raises(httpx.ConnectError):  # not through the proxy: the host does not resolve
            await exchange(around, Call("GET", "/api/v1/projects"))
        await through.aclose()
        await around.aclose()
    assert len(proxy.requests) == 1
    assert proxy.requests[0].startswith(b"GET http://legacy.invalid/api/v1/projects HTTP/1.1\r\n")
