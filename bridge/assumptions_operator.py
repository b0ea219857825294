"""Guesses behind the figures an operator reads at the end of `bridge plan` (issue 33); part of the registry in
``bridge.assumptions``."""

from __future__ import annotations

from bridge.assumption import Assumption

OPERATOR_FIGURES: tuple[Assumption, ...] = (
    Assumption(
        "A120",
        "the time a first run will take",
        "Before any run of a state file has measured its pace, a plan's time is guessed as the requests in rounds "
        "of the concurrency at the latency of the one request preflight timed, and said to be a guess; once a run "
        "has sent 50 requests or more, the plan divides its requests by that run's requests per second (its "
        "wall time, start-up and reads included).",
        "Neither description publishes v1's throughput, a rate limit's figures or how long a write takes (the v1 "
        "seed names 429 without limits); only a measured run knows this machine's and this service's pace.",
        ("engine.rate",),
    ),
)
