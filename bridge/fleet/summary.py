"""The fleet in one line: how many workspaces are done, running, queued, failed; records; steps; time.

`bridge fleet status` ends with it (and its JSON carries it), so a person watching a fleet reads where it
stands without adding up the table, and a script reads the same figures.
"""

from __future__ import annotations

import time
from typing import TypedDict

from bridge.fleet.control import WorkspaceStatus


class FleetSummary(TypedDict):
    workspaces: int
    done: int
    """Verified (reconciled or not: ``not_reconciled`` says how many found differences)."""
    not_reconciled: int
    running: int
    queued: int
    failed: int
    """Stopped with a reason (``bridge fleet retry`` queues one again)."""
    cancelled: int
    records: int
    """Records migrated, summed over every workspace's crosswalk."""
    steps_done: int
    steps_total: int | None
    """None while a workspace's projects are not listed yet."""
    elapsed_s: float | None
    """From the first step of any workspace to the last end, or to now while one is queued or running."""


def summarize(rows: list[WorkspaceStatus], now: float | None = None) -> FleetSummary:
    """The figures of the whole fleet, from ``control.status``'s rows."""
    states = [row["state"] for row in rows]
    totals = [row["steps_total"] for row in rows]
    spans = [(begun, begun + (row["elapsed_s"] or 0.0)) for row in rows if (begun := row["started_at"]) is not None]
    elapsed = None
    if spans:
        going = "running" in states or "queued" in states
        last = (now or time.time()) if going else max(end for _, end in spans)
        elapsed = round(last - min(begun for begun, _ in spans), 1)
    return {
        "workspaces": len(rows),
        "done": states.count("verified"),
        "not_reconciled": sum(1 for row in rows if row["reconciled"] is False),
        "running": states.count("running"),
        "queued": states.count("queued"),
        "failed": states.count("stopped") + states.count("missing"),
        "cancelled": states.count("cancelled"),
        "records": sum(info["migrated"] for row in rows for info in (row["counts"] or {}).values()),
        "steps_done": sum(row["steps_done"] for row in rows),
        "steps_total": None if None in totals else sum(total or 0 for total in totals),
        "elapsed_s": elapsed,
    }


def next_step(summary: FleetSummary) -> str:
    """What to do next with the fleet."""
    if summary["failed"]:
        return "bridge fleet retry NAME for each stopped workspace, once its reason (in the table) is fixed"
    if summary["running"] or summary["queued"]:
        return "wait (bridge fleet status again shows how far it is; queued work needs a `bridge fleet worker`)"
    if summary["not_reconciled"]:
        return "read the reports of the workspaces not reconciled (in the workers' --report-dir), fix, retry them"
    if summary["workspaces"] and summary["done"] == summary["workspaces"]:
        return "nothing: every workspace is verified reconciled (bridge fleet sync keeps them in step)"
    return "bridge fleet submit MANIFEST, then start workers"
