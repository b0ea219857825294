"""A run stopped by a slow server's deadline resumes to completion once the server behaves (issue 15, item 2).

The engine runs in process over the emulator; one route is wrapped so its answers stall after the emulator has
done the work: the hardest case for a resume, since the target holds writes whose answers never arrived.
"""

from __future__ import annotations

import asyncio
import fnmatch
import random
import time
from pathlib import Path

import httpx
import pytest

from bridge.cli import exit_code
from bridge.clients.http import RunControls
from bridge.clients.limiter import AimdLimiter
from bridge.clients.retry import RetryBudget, RetryPolicy, Timing
from bridge.errors import ServiceUnavailable
from mappings.kinds import Kind
from tests.support.world import fresh_world, no_wait

ROUTE = "POST /v1/projects/*/budget/lines/bulk"
REQUEST_TIMEOUT = 1.0
ATTEMPTS = 2


class StallAfterFirst(httpx.AsyncBaseTransport):
    """Passes requests through; while ``stalling``, every answer of ``route`` after the first is held back
    (the emulator has already applied the request) until the bridge gives up on it."""

    def __init__(self, inner: httpx.AsyncBaseTransport, route: str) -> None:
        self.inner = inner
        self.route = route
        self.stalling = True
        self.seen = 0
        self.stalled = 0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await self.inner.handle_async_request(request)
        if self.stalling and fnmatch.fnmatch(f"{request.method} {request.url.path}", self.route):
            self.seen += 1
            if self.seen > 1:
                self.stalled += 1
                await asyncio.sleep(3600)  # cancelled by the request's total deadline
        return response


def _controls() -> RunControls:
    """Few tries and no backoff, so the stop comes after about ATTEMPTS x REQUEST_TIMEOUT of real time."""
    timing = Timing(sleep=no_wait)
    return RunControls(
        policy=RetryPolicy(max_attempts=ATTEMPTS, rng=random.Random(5)),
        timing=timing,
        budget=RetryBudget(ratio=5.0),
        limiter=AimdLimiter(4, timing=timing),
    )


@pytest.mark.anyio
async def test_a_run_stopped_by_the_request_deadline_resumes_to_completion(tmp_path: Path) -> None:
    """Answers to line bulks stall for an hour; the run stops with exit 3 naming request_timeout within seconds,
    and the next run, the server behaving, migrates everything once: the target equals a clean run's."""
    clean = fresh_world(tmp_path / "clean.sqlite")
    await clean.run()
    reference = await clean.census()

    world = fresh_world(tmp_path / "state.sqlite")
    assert world.transport is not None
    stall = StallAfterFirst(world.transport, ROUTE)
    world.wrap = lambda _inner: stall
    started = time.monotonic()
    with pytest.raises(ServiceUnavailable) as stopped:
        await world.run(controls=_controls(), request_timeout=REQUEST_TIMEOUT)
    elapsed = time.monotonic() - started
    assert exit_code(stopped.value) == 3
    assert f"request_timeout ({REQUEST_TIMEOUT:g} s)" in str(stopped.value)
    assert stall.stalled >= ATTEMPTS
    # The stalled bulk costs its tries; the rest of the run up to it is seconds of in-process work.
    assert elapsed < ATTEMPTS * REQUEST_TIMEOUT + 10, f"stopped after {elapsed:.1f} s"

    stall.stalling = False
    resumed = await world.run(controls=_controls(), request_timeout=REQUEST_TIMEOUT)
    assert not resumed.ledger.quarantine
    assert resumed.ledger.of(Kind.LINE).replayed > 0  # the bulks whose answers never came were sent again
    assert await world.census() == reference
