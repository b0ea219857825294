"""Holds the emulator's v1 answers to the published response shapes (``bridge.emulator.v1.contract``).

``violations(response)`` lists how one answer breaks its operation's shape; ``held_to_contract`` is an httpx
response hook the v1 emulator fixtures install, so any test whose request gets a non-conforming answer fails
at that request, naming the operation and the field.
"""

from __future__ import annotations

import json

import httpx

from bridge.emulator.v1 import contract as v1_contract

V1_BASE = "/v1"


class ContractViolationError(AssertionError):
    """An emulator answer that breaks the published v1 response shape of its operation."""


def _is_json(response: httpx.Response) -> bool:
    """Whether the answer is a JSON body (a file download is bytes, judged as no body)."""
    return bool(response.content) and "json" in response.headers.get("content-type", "")


def violations(response: httpx.Response) -> list[str]:
    """Every way ``response`` (already read) breaks the published shape of its v1 operation."""
    path = response.request.url.path
    if not path.startswith(V1_BASE + "/"):
        return []
    body = json.loads(response.content) if _is_json(response) else None
    return v1_contract.check(response.request.method, path.removeprefix(V1_BASE), response.status_code, body)


async def held_to_contract(response: httpx.Response) -> None:
    """httpx response hook: raise ContractViolationError on an answer that breaks its published shape."""
    await response.aread()
    problems = violations(response)
    if problems:
        raise ContractViolationError("the emulator's answer breaks the published v1 shape:\n  " + "\n  ".join(problems))
