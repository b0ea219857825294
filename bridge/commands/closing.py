"""How `bridge plan` and `bridge run` end: the details grouped by reason, one line each, then one closing line
with the answer (what would be or was written, in how many requests and how long, what stays behind and where
it is listed), then the next step.

Every figure is the run's own (``Plan``): records are source records (one fate each, ``KindPlan.records``), so
"created" here, the table's columns, plan.json and the census count the same units. A detail line is cut to the
terminal's width (never wrapped: one reason, one line); the whole text is in plan.json or the run's report file,
and a pipe gets it whole (``bridge.terminal.WIDE``).
"""

from __future__ import annotations

from collections import Counter

from rich.text import Text

from bridge.engine.plan import Plan
from bridge.engine.rate import Estimate, duration
from bridge.terminal import console, plain


def say(line: str) -> None:
    """One detail line on stdout, cut with an ellipsis at the terminal's edge rather than wrapped. ``line`` is
    already made safe (``plain``/``shown``); printed as text, never markup."""
    console().print(Text(line), no_wrap=True, overflow="ellipsis", crop=True, soft_wrap=False)


def left_behind(plan: Plan) -> tuple[int, int]:
    """Records the run does not write (kinds not carried, kinds left out) and values of written records v1
    has no field for: the closing line's "not carried" counts."""
    records = sum(stock.count for _held, stock in plan.held()) + sum(row.left_out for row in plan.ordered())
    return records, len(plan.not_carried)


def counted(n: int, unit: str) -> str:
    """``1 record``, ``1,850 records``: a count with its unit, so counts reconcile by name."""
    return f"{n:,} {unit}" if n == 1 else f"{n:,} {unit}s"


def _written(plan: Plan, *, done: bool) -> str:
    """``would create 12 records (update 3)``: the records that cost requests, by what they cost."""
    rows = plan.ordered()
    created = sum(row.to_create for row in rows)
    updated, replayed = sum(row.to_update for row in rows), sum(row.replayed for row in rows)
    others = [f"{'updated' if done else 'update'} {updated:,}"] if updated else []
    if replayed:
        others.append(f"{'replayed' if done else 'replay'} {replayed:,} left in flight")
    said = f" ({', '.join(others)})" if others else ""
    return f"{'created' if done else 'would create'} {counted(created, 'record')}{said}"


def _unsent(plan: Plan, listed: str) -> list[str]:
    """The clauses after the figures: quarantined, not carried, and where each record is listed."""
    clauses = []
    quarantined = len(plan.quarantine)
    if quarantined:
        clauses.append(f"{counted(quarantined, 'record')} quarantined ({listed})")
    records, values = left_behind(plan)
    if records or values:
        both = " and ".join(counted(n, unit) for n, unit in ((records, "record"), (values, "value")) if n)
        clauses.append(f"{both} not carried ({listed})")
    return clauses


def plan_closing(plan: Plan, estimate: Estimate, listed: str) -> str:
    """The plan's answer: ``would create 13,730 records in 3,807 requests, about 1 min at the 192 requests/s run
    3 measured; 1,517 values not carried (each listed in plan.json)``."""
    if not plan.requests:
        unchanged = sum(row.unchanged + row.adopted for row in plan.ordered())
        head = (
            f"nothing to write (0 requests): {counted(unchanged, 'record')} already on the target as the source "
            "has them"
        )
    else:
        head = (
            f"{_written(plan, done=False)} in {counted(plan.requests, 'request')}, about {duration(estimate.seconds)} "
            f"{estimate.basis}"
        )
    return "; ".join([head, *_unsent(plan, listed)])


def run_closing(plan: Plan, seconds: float, listed: str) -> str:
    """The run's answer, past tense: ``created 13,730 records in 3,807 requests in 19.8 s, 192 requests/s``."""
    rows = plan.ordered()
    unchanged = sum(row.unchanged + row.adopted for row in rows)
    rate = f", {plan.requests / seconds:,.0f} requests/s" if seconds > 0 and plan.requests else ""
    head = f"{_written(plan, done=True)} in {counted(plan.requests, 'request')} in {duration(seconds)}{rate}"
    if unchanged:
        head += f"; {counted(unchanged, 'record')} already on the target"
    return "; ".join([head, *_unsent(plan, listed)])


def quarantine_lines(plan: Plan) -> list[str]:
    """One line per kind and code: how many records the run quarantines for it (the records themselves are in
    the plan's JSON and, after a run, in the state file's quarantine)."""
    codes = Counter((record.kind, record.code) for record in plan.quarantine)
    return [
        f"  {plain(kind)} {plain(code)}: {counted(count, 'record')}" for (kind, code), count in sorted(codes.items())
    ]
