"""How long a plan's requests will take: from the rate an earlier run of the same state file measured, or, before
any run has, a guess from the one latency probe preflight made (and the plan says which).

A finished or stopped run keeps in the state file when it started and ended and how many requests it sent
(``state.runs``): its requests per second are the run's own measure, start-up and reading included, so the next
run of the same migration (a resume, a delta, the next projects) is estimated at the pace this machine, this
network and this service actually went. The probe guess divides the requests into rounds of the concurrency at
the probed latency (``Plan.estimate_s``): a lower bound that ignores the service's own pace and every read, so
it is labelled as a guess (A120).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from bridge.engine.plan import Plan
from state.models import RunRow
from state.runs import options_of, report_of

MEASURED_FROM = 50
"""Requests a run must have sent for its rate to stand for the next: a few requests measure start-up alone."""

# Runs that ended on their own or were stopped: both sent requests at the pace of the work (a failed run may
# have stopped at its first request).
PACED = ("completed", "completed_with_quarantine", "stopped", "interrupted")


@dataclass(frozen=True, slots=True)
class Pace:
    """What one run measured: its requests over its wall time."""

    run_id: int
    requests: int
    seconds: float
    concurrency: int | None

    @property
    def per_second(self) -> float:
        return self.requests / self.seconds


@dataclass(frozen=True, slots=True)
class Estimate:
    """A plan's time estimate and what it rests on, as the closing line says it."""

    seconds: float
    basis: str


def pace_of(run: RunRow) -> Pace | None:
    """The run's measured pace, when it finished and sent enough requests to measure one."""
    if run.id is None or run.finished_at is None or run.status not in PACED:
        return None
    requests = report_of(run).get("requests")
    seconds = (run.finished_at - run.started_at).total_seconds()
    if not isinstance(requests, int) or requests < MEASURED_FROM or seconds <= 0:
        return None
    concurrency = options_of(run).get("concurrency")
    return Pace(run.id, requests, seconds, concurrency if isinstance(concurrency, int) else None)


def last_pace(runs: Iterable[RunRow]) -> Pace | None:
    """The pace of the latest run (of ``runs``, newest first) that measured one."""
    return next((pace for pace in map(pace_of, runs) if pace is not None), None)


def estimate(plan: Plan, pace: Pace | None) -> Estimate:
    """The plan's requests at the measured pace, else the latency probe's guess, said as such."""
    if pace is not None:
        return Estimate(
            plan.requests / pace.per_second,
            f"at the {pace.per_second:,.0f} requests/s run {pace.run_id} measured"
            + (f" at concurrency {pace.concurrency}" if pace.concurrency else ""),
        )
    return Estimate(
        plan.estimate_s,
        f"(a guess from one {plan.latency_s * 1000:,.0f} ms latency probe at concurrency {plan.concurrency}: no "
        "run has measured a rate yet, A120)",
    )


def duration(seconds: float) -> str:
    """Seconds as a person reads them: ``0.4 s``, ``38 s``, ``3 min``, ``1.5 h``."""
    if seconds < 10:
        return f"{seconds:.1f} s"
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 90 * 60:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:,.1f} h"
