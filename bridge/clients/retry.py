"""The one retry policy: which failures repeat, how long to wait, and when a run must stop instead.

Waits are full-jitter exponential (AWS: ``random(0, min(cap, base * 2**n))``) but never shorter than the
service's ``Retry-After``. A per-run ``RetryBudget`` caps retries at a share of all requests (Finagle's 10 %),
so a struggling service gets a resumable stop instead of a storm; a deadline bounds one call's total time.
Time is injected (``Timing``): tests pass a fake clock whose sleep only advances the clock.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

from bridge.errors import (
    BridgeError,
    NetworkError,
    RateLimited,
    RetriableError,
    RetryBudgetExhausted,
    ServiceUnavailable,
)


def _wall_clock() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True, slots=True)
class Timing:
    """The clocks and the sleep the bridge uses; tests swap in a fake so nothing really waits."""

    monotonic: Callable[[], float] = time.monotonic
    wall: Callable[[], datetime] = _wall_clock
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep


def parse_retry_after(value: str | None, now: datetime, served: str | None = None) -> float | None:
    """Seconds to wait from a Retry-After header (delta-seconds or HTTP-date, RFC 9110 10.2.3); None if unusable.

    An HTTP-date is measured from the answer's own ``Date`` header (``served``) when it has a readable one: both
    are the server's clock, so a server minutes ahead of ours is not read as "wait minutes"; else from ``now``.
    """
    if value is None or not value.strip():
        return None
    text = value.strip()
    if text.isdigit():
        return float(text)
    when = _http_date(text)
    if when is None:
        return None
    start = _http_date(served) if served else None
    return max(0.0, (when - (start or now)).total_seconds())


def _http_date(text: str) -> datetime | None:
    try:
        when = parsedate_to_datetime(text)
    except (TypeError, ValueError):
        return None
    return when if when.tzinfo is not None else when.replace(tzinfo=UTC)


@dataclass(slots=True)
class RetryBudget:
    """Retries allowed in one run: ``floor + ratio x requests``; shared by every client of the run."""

    ratio: float = 0.1
    floor: int = 20
    requests: int = 0
    retries: int = 0

    def record_request(self) -> None:
        self.requests += 1

    def try_spend(self) -> bool:
        """Take one retry if the budget allows it."""
        if self.retries >= self.floor + self.ratio * self.requests:
            return False
        self.retries += 1
        return True


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """How one call is retried. ``max_attempts`` counts the first try; ``deadline`` is seconds per call, its
    tries and waits included: a try still running when it passes is cut off (``HttpSession.send``)."""

    base: float = 0.5
    cap: float = 30.0
    max_attempts: int = 8
    deadline: float = 300.0
    # A Retry-After beyond this means "come back much later": stop resumably rather than park the run.
    max_retry_after: float = 120.0
    rng: random.Random = field(default_factory=random.Random)

    def backoff(self, retry_number: int) -> float:
        """Full-jitter wait before retry ``retry_number`` (1-based)."""
        ceiling = min(self.cap, self.base * 2 ** (retry_number - 1))
        return self.rng.uniform(0.0, ceiling)

    def wait_for(self, error: RetriableError, retry_number: int) -> float:
        """The wait before the next try: the jittered backoff, never less than the service's Retry-After."""
        wait = self.backoff(retry_number)
        if isinstance(error, RateLimited) and error.retry_after is not None:
            wait = max(wait, error.retry_after)
        return wait


def may_repeat(error: BridgeError, *, replay_safe: bool) -> bool:
    """Whether a failed request may be sent again without risking a duplicate write.

    A request is replay-safe when it reads, is idempotent by its verb (PUT, PATCH, DELETE), carries an
    Idempotency-Key, or is documented as repeat-safe. Otherwise only failures that prove the service did
    nothing repeat: a 429 (the limiter runs before any handler) and a connection that never opened.
    """
    if not isinstance(error, RetriableError):
        return False
    if replay_safe:
        return True
    if isinstance(error, RateLimited):
        return True
    return isinstance(error, NetworkError) and not error.reached_server


def stop_error(reason: str, last: RetriableError, what: str) -> BridgeError:
    """The resumable stop raised when retrying ends; it names the call and the last failure."""
    if reason == "budget":
        return RetryBudgetExhausted(
            f"{what}: retry budget for this run is spent (last failure: {last.message})", request_id=last.request_id
        )
    return ServiceUnavailable(
        f"{what}: gave up after {reason} (last failure: {last.message})", request_id=last.request_id
    )
