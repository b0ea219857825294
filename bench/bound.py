"""The least wall time any schedule of a run's requests could take, from the work alone (not from the run).

The model: every request costs its surface's latency, no request can start before the answers it needs have
come back, and at most ``concurrency`` requests are in flight at once (the run's one limiter, shared by both
surfaces). Server time, the client's CPU and the network beyond the injected latency all count as zero, so
the figure says how far a run is from what the service allows, not what a process could reach.

A request's *level* is the length of the chain of answers it cannot be built without, itself included: 1 for
a request that needs nothing, 2 for one that needs the answer of a level-1 request, and so on. Levels are
counted per project (a project's requests wait for its own, never another project's) and pooled across
projects, which share the concurrency. Summing the rounds each level needs would not be a bound: the
levels of independent projects overlap in a good schedule (while one project's deep level runs, another's
shallow one fills the free slots). What no schedule escapes is, for every level k, that the requests of
level k and deeper cannot start before k - 1 latencies have passed and then share the slots:

    bound = max over k of (k - 1 + ceil(requests at level >= k / concurrency)) x latency

(``k = 1`` is every request sharing the slots; the deepest ``k`` is the longest chain). Placing a request at
a level lower than its true one only lowers the figure, so a level in doubt is taken at its lowest.

Reads of the other surface, at their own latency, can only add busy time to the same slots: the bound is
at least every request's latency summed over the slots, ``(requests x latency + reads x read latency) /
concurrency``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping


def lower_bound_s(
    levels: Mapping[int, int],
    *,
    concurrency: int,
    latency_s: float,
    other_reads: int = 0,
    other_latency_s: float = 0.0,
) -> float:
    """Seconds no schedule can beat: ``levels`` maps a level (1, 2, ...) to its requests at ``latency_s``;
    ``other_reads`` are requests of the other surface at ``other_latency_s``, needing nothing."""
    if concurrency < 1 or any(level < 1 or count < 0 for level, count in levels.items()):
        raise ValueError(f"levels start at 1 and hold no negative count, concurrency >= 1: {dict(levels)}")
    deepest = max((level for level, count in levels.items() if count), default=0)
    rounds = max(
        (
            k - 1 + math.ceil(sum(n for level, n in levels.items() if level >= k) / concurrency)
            for k in range(1, deepest + 1)
        ),
        default=0,
    )
    busy = sum(levels.values()) * latency_s + other_reads * other_latency_s
    return max(rounds * latency_s, busy / concurrency)
