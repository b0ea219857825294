"""respx for the bridge's own transport: ``respx.mock(using="bridge")`` answers the requests ``HttpSession``
hands to ``AiohttpTransport`` (the transport every surface uses by default), so a test pins the exact request
the bridge composed, as respx's own mockers do for httpx's and httpcore's."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import ClassVar

import httpx
from respx.mocks import Mocker

from bridge.clients.wire import AiohttpTransport

Handle = Callable[[AiohttpTransport, httpx.Request], Awaitable[httpx.Response]]


class BridgeTransportMocker(Mocker):
    name = "bridge"
    targets: ClassVar[list[str]] = [f"{AiohttpTransport.__module__}.{AiohttpTransport.__qualname__}"]
    target_methods: ClassVar[list[str]] = ["handle_async_request"]

    @classmethod
    def mock(cls, spec: Handle) -> Handle:
        async def handle_async_request(self: AiohttpTransport, request: httpx.Request) -> httpx.Response:
            response: httpx.Response = await cls.async_handler(request)  # type: ignore[no-untyped-call]  # respx is untyped here
            return response

        return handle_async_request
