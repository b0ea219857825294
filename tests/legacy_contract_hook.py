"""Holds the emulator's legacy answers to the published response shapes (``bridge.emulator.legacy.contract``).

``violations(response)`` lists how one answer breaks its operation's shape; ``held_to_legacy_contract`` is an
httpx response hook the legacy emulator fixtures install, so a test whose request gets a non-conforming
answer fails at that request, naming the operation and the field.
"""

from __future__ import annotations

import json

import httpx
from fastapi import FastAPI

from bridge.emulator.legacy import contract as legacy_contract
from tests.v1_contract_hook import ContractViolationError


def _is_json(response: httpx.Response) -> bool:
    """Whether the answer is a JSON body (a file download is bytes, judged as no body)."""
    return bool(response.content) and "json" in response.headers.get("content-type", "")


def violations(response: httpx.Response) -> list[str]:
    """Every way ``response`` (already read) breaks the published shape of its legacy operation."""
    path = response.request.url.path
    if not path.startswith(legacy_contract.BASE + "/"):
        return []
    body = json.loads(response.content) if _is_json(response) else None
    method, status = response.request.method, response.status_code
    return legacy_contract.violations(method, path.removeprefix(legacy_contract.BASE), status, body)


async def held_to_legacy_contract(response: httpx.Response) -> None:
    """httpx response hook: raise ContractViolationError on an answer that breaks its published shape."""
    await response.aread()
    problems = violations(response)
    if problems:
        raise ContractViolationError(
            "the emulator's answer breaks the published legacy shape:\n  " + "\n  ".join(problems)
        )


class HeldTransport(httpx.AsyncBaseTransport):
    """An in-process transport over the emulator app that holds every legacy answer to its published shape:
    for clients built by the bridge (``open_legacy``), which take a transport but not event hooks."""

    def __init__(self, app: FastAPI) -> None:
        self._inner = httpx.ASGITransport(app=app)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await self._inner.handle_async_request(request)
        await response.aread()
        response.request = request
        await held_to_legacy_contract(response)
        return response

    async def aclose(self) -> None:
        await self._inner.aclose()
