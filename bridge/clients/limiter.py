"""A shared limit on requests in flight that adapts to a rate limit nobody published (A21).

Additive increase, multiplicative decrease (TCP's rule): each success grows the window by ``1/window`` (about
one slot per window of successes); a 429 halves it, once per generation, so a burst of 429s from requests
that all started under the old window counts as one signal. A 429's Retry-After also pauses every new
request until it has passed: no request leaves before the service said it may.

A window alone cannot hold a rate below one request per round trip, and a token bucket in front of a fast
service is exactly that case; so 429s also double a spacing between request starts (from 5 ms, at most
250 ms: slower limits are met by the Retry-After pauses), which each success shrinks by 1%. A rate limit is
then met at a pace close to its refill rate, with few retries.

Waiting requests queue in arrival order and a freed slot is handed to the first of them: a run with
thousands of requests waiting (a fan-out of split items) wakes one waiter per release, not all of them.
A request nothing else waits for (a split item: a ``leaf``) queues behind every other waiting request: a
bulk or a read it would delay holds back the requests its answer lets go (a transaction bulk waited a median
146 ms behind the split items of a medium run, and its own items waited that long to start).
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass

from bridge.clients.retry import Timing

FIRST_SPACING_S = 0.005
MIN_SPACING_S = 0.001
MAX_SPACING_S = 0.25


@dataclass(frozen=True, slots=True)
class Slot:
    """One admitted request: the window generation it started under."""

    generation: int


class AimdLimiter:
    """Requests in flight, bounded by a window between ``minimum`` and ``maximum`` that follows 429s."""

    @classmethod
    def fixed(cls, size: int) -> AimdLimiter:
        """A cap of ``size`` requests in flight that never moves (a fleet worker's ``--concurrency``, shared by
        its runs), with the same queue: leaves after the requests others wait for."""
        return cls(size, minimum=size)

    def __init__(self, maximum: int = 8, *, minimum: int = 1, timing: Timing | None = None) -> None:
        if not 1 <= minimum <= maximum:
            raise ValueError(f"limiter needs 1 <= minimum ({minimum}) <= maximum ({maximum})")
        self.minimum = minimum
        self.maximum = maximum
        self._window = float(maximum)
        self._in_flight = 0
        self._generation = 0
        self._paused_until = 0.0
        self._spacing = 0.0
        self._next_start = 0.0
        self._timing = timing or Timing()
        self._waiters: deque[asyncio.Future[None]] = deque()
        self._leaves: deque[asyncio.Future[None]] = deque()

    @property
    def window(self) -> int:
        """How many requests may be in flight right now."""
        return max(self.minimum, int(self._window))

    @property
    def in_flight(self) -> int:
        return self._in_flight

    def pause_for(self, seconds: float) -> None:
        """Hold every new request until ``seconds`` from now (never shortens an earlier pause)."""
        self._paused_until = max(self._paused_until, self._timing.monotonic() + seconds)

    @property
    def spacing(self) -> float:
        """Seconds kept between two request starts (0 until a 429 has been seen)."""
        return self._spacing

    async def _wait_for_turn(self) -> None:
        while (remaining := self._paused_until - self._timing.monotonic()) > 0:
            await self._timing.sleep(remaining)
        if self._spacing:
            now = self._timing.monotonic()
            start = max(now, self._next_start)
            self._next_start = start + self._spacing
            if start > now:
                await self._timing.sleep(start - now)

    @asynccontextmanager
    async def slot(self, *, leaf: bool = False) -> AsyncIterator[Slot]:
        """Wait for a free slot (and for any Retry-After pause), hold it for one request; a ``leaf`` waits
        behind every other request waiting."""
        await self._admitted(self._leaves if leaf else self._waiters)
        try:
            await self._wait_for_turn()
            yield Slot(self._generation)
        finally:
            self._in_flight -= 1
            self._hand_over()

    async def _admitted(self, queue: deque[asyncio.Future[None]]) -> None:
        if not self._waiters and not self._leaves and self._in_flight < self.window:
            self._in_flight += 1
            return
        turn = asyncio.get_running_loop().create_future()
        queue.append(turn)
        try:
            await turn
        except asyncio.CancelledError:
            if turn.done() and not turn.cancelled():  # the slot was handed over just as we were cancelled
                self._in_flight -= 1
                self._hand_over()
            else:
                with suppress(ValueError):  # a cancelled turn may already have been passed over
                    queue.remove(turn)
            raise

    def _hand_over(self) -> None:
        """Give free slots to the longest waiting requests, leaves last (a slot is counted as taken when handed
        over)."""
        while (self._waiters or self._leaves) and self._in_flight < self.window:
            turn = (self._waiters or self._leaves).popleft()
            if not turn.done():
                self._in_flight += 1
                turn.set_result(None)

    def on_success(self) -> None:
        self._window = min(float(self.maximum), self._window + 1.0 / self._window)
        self._spacing = self._spacing * 0.99 if self._spacing > MIN_SPACING_S else 0.0
        self._hand_over()

    def on_rate_limited(self, slot: Slot, retry_after: float | None) -> None:
        """A 429: halve the window once per generation and pause for Retry-After."""
        if retry_after is not None:
            self.pause_for(retry_after)
        if slot.generation == self._generation:
            self._window = max(float(self.minimum), self._window / 2)
            self._spacing = min(MAX_SPACING_S, max(FIRST_SPACING_S, self._spacing * 2))
            self._generation += 1
