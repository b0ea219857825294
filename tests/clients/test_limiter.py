"""The AIMD limiter: halves on a 429 burst (once), grows back one slot per window of successes, pauses."""

from __future__ import annotations

import functools

import anyio
import pytest

from bridge.clients.limiter import AimdLimiter
from tests.clients.fakes import FakeClock


@pytest.mark.anyio
async def test_a_burst_of_429s_halves_the_window_once(clock: FakeClock) -> None:
    """Many 429s from requests started under one window count as one signal: the window halves once."""
    limiter = AimdLimiter(16, timing=clock.timing())
    slots = []
    for _ in range(8):
        async with limiter.slot() as slot:
            slots.append(slot)
    for slot in slots:
        limiter.on_rate_limited(slot, None)
    assert limiter.window == 8


@pytest.mark.anyio
async def test_window_recovers_when_429s_stop(clock: FakeClock) -> None:
    """After a decrease, successes add about one slot per window until the maximum is back."""
    limiter = AimdLimiter(8, timing=clock.timing())
    async with limiter.slot() as slot:
        limiter.on_rate_limited(slot, None)
    assert limiter.window == 4
    for _ in range(5):
        limiter.on_success()
    assert limiter.window == 5
    for _ in range(100):
        limiter.on_success()
    assert limiter.window == 8


@pytest.mark.anyio
async def test_window_never_drops_below_minimum(clock: FakeClock) -> None:
    """However many 429s arrive, at least `minimum` requests may be in flight."""
    limiter = AimdLimiter(4, minimum=1, timing=clock.timing())
    for _ in range(10):
        async with limiter.slot() as slot:
            limiter.on_rate_limited(slot, None)
    assert limiter.window == 1


@pytest.mark.anyio
async def test_in_flight_never_exceeds_window(clock: FakeClock) -> None:
    """Concurrent requests beyond the window wait for a slot."""
    limiter = AimdLimiter(3, timing=clock.timing())
    peak = 0

    async def request() -> None:
        nonlocal peak
        async with limiter.slot():
            peak = max(peak, limiter.in_flight)
            await anyio.sleep(0)

    async with anyio.create_task_group() as group:
        for _ in range(20):
            group.start_soon(request)
    assert peak == 3


@pytest.mark.anyio
async def test_retry_after_pauses_every_new_request(clock: FakeClock) -> None:
    """After a 429 with Retry-After 5 s no slot is granted before 5 s of (fake) time have passed."""
    limiter = AimdLimiter(4, timing=clock.timing())
    async with limiter.slot() as slot:
        limiter.on_rate_limited(slot, 5.0)
    paused_at = clock.now
    async with limiter.slot():
        assert clock.now >= paused_at + 5.0


@pytest.mark.anyio
async def test_freed_slots_go_to_the_longest_waiting_request(clock: FakeClock) -> None:
    """Requests that had to wait are admitted in the order they arrived."""
    limiter = AimdLimiter(2, timing=clock.timing())
    admitted: list[int] = []

    async def request(n: int) -> None:
        async with limiter.slot():
            admitted.append(n)
            await anyio.sleep(0)

    async with anyio.create_task_group() as group:
        for n in range(12):
            group.start_soon(request, n)
            await anyio.sleep(0)  # arrive one after another
    assert admitted == list(range(12))


@pytest.mark.anyio
async def test_waiting_leaves_go_after_every_other_waiting_request(clock: FakeClock) -> None:
    """A request others wait for (a bulk) passes the leaves (split items) queued before it; within each kind
    the order of arrival holds, and a leaf with nothing queued goes at once."""
    limiter = AimdLimiter(1, timing=clock.timing())
    admitted: list[str] = []

    async def request(name: str, *, leaf: bool) -> None:
        async with limiter.slot(leaf=leaf):
            admitted.append(name)
            await anyio.sleep(0)

    # The only slot is taken while they all arrive.
    async with anyio.create_task_group() as group, limiter.slot():
        for name, leaf in (("item-1", True), ("item-2", True), ("bulk-1", False), ("item-3", True), ("bulk-2", False)):
            group.start_soon(functools.partial(request, name, leaf=leaf))
            await anyio.sleep(0)  # arrive one after another
    assert admitted == ["bulk-1", "bulk-2", "item-1", "item-2", "item-3"]
    with anyio.fail_after(1):
        async with limiter.slot(leaf=True):
            assert limiter.in_flight == 1


@pytest.mark.anyio
async def test_a_request_cancelled_while_waiting_takes_no_slot(clock: FakeClock) -> None:
    """Cancelling a queued request leaves the window whole: the next request still gets in."""
    limiter = AimdLimiter(1, timing=clock.timing())
    async with limiter.slot():
        with anyio.move_on_after(0.01):
            async with limiter.slot():
                pytest.fail("a second request got in while the only slot was held")
    assert limiter.in_flight == 0
    with anyio.fail_after(1):
        async with limiter.slot():
            assert limiter.in_flight == 1
