"""Transport limits (issue 15, item 2): a total deadline per request, a response size cap, a page budget.

Each hostile server is real where the wire matters (a loopback socket dripping bytes or streaming a huge body)
and an httpx transport where only the answers matter (endless cursors). Every case checks what the operator
would see: the error, its exit code, the setting it names, how long it took and what it cost in memory.
"""

from __future__ import annotations

import asyncio
import gzip
import random
import time
import tracemalloc
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from bridge.cli import exit_code
from bridge.clients.http import Call, HttpSession, Limits, RunControls, make_endpoint
from bridge.clients.pages import iterate_pages
from bridge.clients.retry import RetryPolicy
from bridge.config import load_settings
from bridge.errors import ConfigError, CursorInvalid, ResumableStop, ServiceUnavailable
from tests.clients.fakes import FakeClock, controls_for

MiB = 1024 * 1024


@dataclass
class Wire:
    """What a loopback server saw: connections accepted and body bytes it managed to send."""

    url: str = ""
    connections: int = 0
    sent: int = 0


@asynccontextmanager
async def loopback(body: Callable[[asyncio.StreamWriter, Wire], Awaitable[None]]) -> AsyncIterator[Wire]:
    """A raw HTTP/1.1 server on a loopback port: reads one request per connection, then lets ``body`` answer."""
    wire = Wire()

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        wire.connections += 1
        try:
            await reader.readuntil(b"\r\n\r\n")
            await body(writer, wire)
        except (ConnectionError, asyncio.IncompleteReadError):
            pass  # the client hung up: exactly what a limit should make it do
        finally:
            writer.close()

    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    wire.url = f"http://127.0.0.1:{port}/v1"
    async with server:
        yield wire


def _session(url: str, controls: RunControls, *, timeout: float = 30.0) -> HttpSession:
    return HttpSession(make_endpoint(url, {}, timeout=timeout), "v1", controls)


def _controls(*, attempts: int = 3, limits: Limits | None = None) -> RunControls:
    controls = controls_for(FakeClock(), policy=RetryPolicy(max_attempts=attempts, rng=random.Random(3)))
    controls.limits = limits or Limits()
    return controls


async def _drip(writer: asyncio.StreamWriter, wire: Wire) -> None:
    """A valid answer of 1,000 bytes sent one byte every 20 ms: no single read ever waits long."""
    writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n")
    for _ in range(1000):
        writer.write(b" ")
        await writer.drain()
        wire.sent += 1
        await asyncio.sleep(0.02)


@pytest.mark.anyio
async def test_a_server_dripping_bytes_is_stopped_by_the_total_deadline_of_each_try() -> None:
    """One byte every 20 ms never trips a per-read timeout; the 0.3 s request_timeout ends each of the 3 tries,
    and the call stops resumably (exit 3) naming request_timeout, in about 3 x 0.3 s instead of 3 x 20 s."""
    async with loopback(_drip) as wire, _session(wire.url, _controls(attempts=3), timeout=0.3) as session:
        started = time.monotonic()
        with pytest.raises(ServiceUnavailable) as stopped:
            await session.send(Call("GET", "/spaces"))
        elapsed = time.monotonic() - started
    assert exit_code(stopped.value) == 3
    assert "request_timeout (0.3 s)" in str(stopped.value)
    assert "3 attempts" in str(stopped.value)
    assert wire.connections == 3
    assert 0.9 <= elapsed < 2.5
    assert wire.sent < 3 * 1000 // 2  # each try was cut off long before its body ended


@pytest.mark.anyio
async def test_retries_of_a_slow_server_never_outlive_the_call_deadline() -> None:
    """With real time, the tries of one call end at the policy's deadline even mid-request (the deadline is no
    longer checked only between tries): 1 s of deadline with tries of up to 0.4 s stops after about 1 s."""
    controls = RunControls(policy=RetryPolicy(base=0.01, cap=0.01, max_attempts=100, deadline=1.0))
    async with loopback(_drip) as wire, _session(wire.url, controls, timeout=0.4) as session:
        started = time.monotonic()
        with pytest.raises(ServiceUnavailable):
            await session.send(Call("GET", "/spaces"))
        elapsed = time.monotonic() - started
    assert 0.9 <= elapsed < 1.6
    assert wire.connections == 3  # 0.4 s, 0.4 s, then the 0.2 s the deadline had left


def _huge(*, declared: bool) -> Callable[[asyncio.StreamWriter, Wire], Awaitable[None]]:
    """A 100 MiB answer, with its length declared or streamed in chunks of 64 KiB."""
    chunk = b"[" + b"0," * (32 * 1024 - 1) + b"0"  # 64 KiB, built once: the server itself holds one chunk

    async def send(writer: asyncio.StreamWriter, wire: Wire) -> None:
        length = f"Content-Length: {100 * MiB}" if declared else "Transfer-Encoding: chunked"
        writer.write(f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n{length}\r\n\r\n".encode())
        for _ in range(100 * MiB // len(chunk)):
            writer.write(chunk if declared else f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
            await writer.drain()
            wire.sent += len(chunk)

    return send


@pytest.mark.anyio
@pytest.mark.parametrize("declared", [True, False], ids=["content-length", "chunked"])
async def test_an_oversized_body_is_refused_while_streaming_without_being_held(declared: bool) -> None:
    """A 100 MiB answer against a 1 MiB max_response_bytes stops at once (exit 3, naming the setting, not
    retried): the bridge never holds more than about the cap, and the server could send only a few MiB."""
    controls = _controls(limits=Limits(max_response_bytes=MiB))
    async with loopback(_huge(declared=declared)) as wire, _session(wire.url, controls) as session:
        tracemalloc.start()
        try:
            with pytest.raises(ResumableStop) as stopped:
                await session.send(Call("GET", "/spaces"))
            _current, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    assert exit_code(stopped.value) == 3
    assert "max_response_bytes (1048576 bytes)" in str(stopped.value)
    assert wire.connections == 1
    assert peak < 3 * MiB, f"{peak} bytes traced"
    assert wire.sent < 16 * MiB  # the rest stayed unsent: the connection was closed, not drained


@pytest.mark.anyio
async def test_an_answer_at_the_cap_is_read_whole() -> None:
    """The cap refuses only what exceeds it: a body of exactly max_response_bytes arrives intact."""
    body = b'{"data": [], "pad": "' + b"x" * 1000 + b'"}'
    transport = httpx.MockTransport(lambda _request: httpx.Response(200, content=body))
    controls = _controls(limits=Limits(max_response_bytes=len(body)))
    async with HttpSession(make_endpoint("http://v1.test/v1", {}, transport=transport), "v1", controls) as session:
        response = await session.send(Call("GET", "/spaces"))
    assert response.content == body


def _pages(*, rows: int) -> tuple[httpx.MockTransport, list[str]]:
    """A list whose every page carries a fresh cursor (and ``rows`` rows); the cursors it was asked for."""
    asked: list[str] = []

    def answer(request: httpx.Request) -> httpx.Response:
        asked.append(request.url.params.get("cursor", ""))
        data = [{"id": f"spc_{len(asked)}_{n}"} for n in range(rows)]
        return httpx.Response(200, json={"data": data, "nextCursor": f"c{len(asked)}"})

    return httpx.MockTransport(answer), asked


async def _read_all(transport: httpx.MockTransport, limits: Limits) -> list[object]:
    client = make_endpoint("http://v1.test/v1", {}, transport=transport)
    async with HttpSession(client, "v1", _controls(limits=limits)) as session:
        return [row async for rows in iterate_pages(session, "/spaces") for row in rows]


@pytest.mark.anyio
async def test_an_endless_cursor_stops_at_the_page_budget() -> None:
    """Every page with rows and a new cursor: paging stops after max_list_pages pages (exit 3, naming the
    setting), not after tens of thousands of requests."""
    transport, asked = _pages(rows=2)
    with pytest.raises(ResumableStop) as stopped:
        await _read_all(transport, Limits(max_list_pages=25))
    assert exit_code(stopped.value) == 3
    assert "max_list_pages (25)" in str(stopped.value)
    assert len(asked) == 25


@pytest.mark.anyio
async def test_an_empty_page_with_a_cursor_is_a_contract_break() -> None:
    """An empty page that still hands out a cursor moved nothing forward: paging stops on it (exit 4), at the
    first such page, whatever the budget."""
    transport, asked = _pages(rows=0)
    with pytest.raises(CursorInvalid) as stopped:
        await _read_all(transport, Limits(max_list_pages=10_000))
    assert exit_code(stopped.value) == 4
    assert "empty page with a next cursor" in str(stopped.value)
    assert len(asked) == 1


@pytest.mark.anyio
async def test_a_list_within_the_page_budget_is_read_whole() -> None:
    """A list of exactly max_list_pages pages ends normally: the budget refuses only a page beyond it."""
    pages = 5

    def answer(request: httpx.Request) -> httpx.Response:
        number = int(request.url.params.get("cursor", "1"))
        following = str(number + 1) if number < pages else None
        return httpx.Response(200, json={"data": [{"id": f"spc_{number}"}], "nextCursor": following})

    rows = await _read_all(httpx.MockTransport(answer), Limits(max_list_pages=pages))
    assert rows == [{"id": f"spc_{n}"} for n in range(1, pages + 1)]


def test_the_limits_are_settings_a_run_builds_its_controls_from(tmp_path: Path) -> None:
    """request_timeout, max_response_bytes and max_list_pages come from the --config file like any setting."""
    config = tmp_path / "bridge.toml"
    config.write_text("[bridge]\nrequest_timeout = 2.5\nmax_response_bytes = 4096\nmax_list_pages = 7\n")
    settings = load_settings(config, env={})
    assert settings.request_timeout == 2.5
    assert RunControls.of(settings).limits == Limits(max_response_bytes=4096, max_list_pages=7)


@pytest.mark.parametrize(
    ("key", "value"),
    [("request_timeout", "0"), ("request_timeout", '"nan"'), ("max_response_bytes", "0"), ("max_list_pages", '"x"')],
)
def test_a_limit_that_could_never_be_met_is_a_configuration_error(tmp_path: Path, key: str, value: str) -> None:
    """A zero, negative or unreadable limit is refused at start (exit 2) naming the setting."""
    config = tmp_path / "bridge.toml"
    config.write_text(f"[bridge]\n{key} = {value}\n")
    with pytest.raises(ConfigError) as refused:
        load_settings(config, env={})
    assert exit_code(refused.value) == 2
    assert key in str(refused.value)


def _gzipped(body: bytes) -> httpx.MockTransport:
    packed = gzip.compress(body)
    headers = {"Content-Encoding": "gzip", "Content-Type": "application/json"}
    return httpx.MockTransport(lambda _request: httpx.Response(200, headers=headers, content=packed))


@pytest.mark.anyio
async def test_a_compressed_answer_is_decoded_once_and_capped_by_its_decoded_size() -> None:
    """The cap counts what the bridge would hold, not what crossed the wire: 2 MiB of zeros packed into a few
    KiB are refused under a 1 MiB cap, and a small packed answer arrives decoded once, as JSON."""
    controls = _controls(limits=Limits(max_response_bytes=MiB))
    bomb = _gzipped(b'{"data": [], "pad": "' + b"0" * (2 * MiB) + b'"}')
    async with HttpSession(make_endpoint("http://v1.test/v1", {}, transport=bomb), "v1", controls) as session:
        with pytest.raises(ResumableStop):
            await session.send(Call("GET", "/spaces"))
    small = _gzipped(b'{"data": [{"id": "spc_1"}]}')
    async with HttpSession(make_endpoint("http://v1.test/v1", {}, transport=small), "v1", controls) as session:
        response = await session.send(Call("GET", "/spaces"))
    assert response.json() == {"data": [{"id": "spc_1"}]}
