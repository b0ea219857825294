"""Test doubles of the client tests: a fake clock whose sleep only moves time, run controls built on it."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from bridge.clients.http import RunControls
from bridge.clients.limiter import AimdLimiter
from bridge.clients.retry import RetryBudget, RetryPolicy, Timing

WALL_START = datetime(2026, 1, 5, 12, 0, 0, tzinfo=UTC)


@dataclass
class FakeClock:
    """Monotonic and wall time that advance only when the code under test sleeps."""

    now: float = 1000.0
    sleeps: list[float] = field(default_factory=list)
    # Emulator tests start the wall clock at the real time: the emulator dates its HTTP-date Retry-After by it.
    wall_start: datetime = WALL_START

    def monotonic(self) -> float:
        return self.now

    def wall(self) -> datetime:
        return self.wall_start + timedelta(seconds=self.now - 1000.0)

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += max(0.0, seconds)

    def timing(self) -> Timing:
        return Timing(monotonic=self.monotonic, wall=self.wall, sleep=self.sleep)


def controls_for(clock: FakeClock, *, concurrency: int = 4, policy: RetryPolicy | None = None) -> RunControls:
    """Run controls on the fake clock with a seeded jitter, so a failing case replays exactly."""
    timing = clock.timing()
    return RunControls(
        policy=policy or RetryPolicy(rng=random.Random(7)),
        budget=RetryBudget(),
        timing=timing,
        limiter=AimdLimiter(concurrency, timing=timing),
    )
