"""What `bridge status` says: one opening line, the runs, the records, the journal, and the next step.

The opening line answers "where is this migration": which migration (and target workspace), its last run with
its outcome and duration, how many records are migrated, and the last verify's verdict. Then records (what
the crosswalk maps to v1 objects, what quarantine holds: one legacy record each) and the journal (write
requests by status: one intent a request, a bulk request writing many records) under titles of their own,
since the two count different things. The last line is what to do next.

`bridge verify` only reads the state, so its verdict is found where it writes its reports: the newest
``reconciliation.json`` under the report directory of this migration (A127).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TypedDict

from rich.console import Console
from rich.table import Table
from rich.text import Text

from bridge.terminal import console, plain, shown
from state.models import INTENT_STATUSES
from state.status import RunInfo, StatusReport

FINISHED = ("completed", "completed_with_quarantine")
JSON_NAME = "reconciliation.json"
"""`bridge verify`'s JSON report (``bridge.verify.report.JSON_NAME``, which a test holds equal): importing it
would load the verifier and its clients, and `bridge status` starts without them."""


class LastVerify(TypedDict):
    """The newest verification of this migration: its answer, the run it verified, when, and its report."""

    reconciled: bool
    run: int | None
    generated_at: str
    report: str


def last_verify(report_dir: Path, migration: str) -> LastVerify | None:
    """The newest ``reconciliation.json`` of ``migration`` one level under ``report_dir`` (where `bridge verify`
    writes ``run-<id>/``), or None; a report unreadable or of another migration is passed over."""
    found: list[LastVerify] = []
    for path in sorted(report_dir.glob(f"*/{JSON_NAME}")):
        try:
            report = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if not isinstance(report, dict) or report.get("migration") != migration:
            continue
        run = str(report.get("run"))  # the report names the run as text
        found.append(
            {
                "reconciled": report.get("reconciled") is True,
                "run": int(run) if run.isdecimal() else None,
                "generated_at": str(report.get("generated_at", "")),
                "report": str(path),
            }
        )
    return max(found, key=lambda v: v["generated_at"], default=None)


def elapsed(seconds: float) -> str:
    """A duration as a person reads it: ``19.8 s``, ``3 min 12 s``, ``2 h 05 min``."""
    if seconds < 60:
        return f"{seconds:.1f} s"
    whole = round(seconds)
    if whole < 3600:
        return f"{whole // 60} min {whole % 60:02d} s"
    return f"{whole // 3600} h {whole % 3600 // 60:02d} min"


def run_outcome(run: RunInfo) -> str:
    """A run's outcome in words: ``completed in 19.8 s``, ``interrupted (no live process)``, ``running for 4.0 s
    (pid 12 on host)``."""
    status = run["status"].replace("_", " ")
    if run["process"] == "gone":
        return "interrupted (no live process)"
    if run["status"] == "running":
        where = f" (pid {run['pid']} on {run['host']})" if run["pid"] is not None else ""
        alive = "" if run["process"] == "live" else ", its process not checkable from here"
        so_far = f" for {elapsed(run['duration_s'])}" if run["duration_s"] is not None else ""
        return f"running{so_far}{where}{alive}"
    took = run["duration_s"]
    if took is None:
        return status
    return f"{status} {'in' if run['status'] in FINISHED else 'after'} {elapsed(took)}"


def verdict(verify: LastVerify | None) -> str:
    if verify is None:
        return "none found"
    answer = "reconciled" if verify["reconciled"] else "NOT reconciled"
    return f"{answer} (run {verify['run'] if verify['run'] is not None else '-'}, {verify['generated_at']})"


def headline(status: StatusReport, verify: LastVerify | None) -> str:
    """The opening line: migration and target, last run with outcome and duration, records, last verdict."""
    runs = status["runs"]
    migration = runs[0]["migration"] if runs else "-"
    target = status["target"] or "no target yet"
    migrated = sum(info["migrated"] for info in status["records"].values())
    last = f"run {runs[0]['id']} {run_outcome(runs[0])}" if runs else "no run yet"
    return f"migration {migration} -> {target}: {last}; {migrated:,} records migrated; last verify: {verdict(verify)}"


def next_step(status: StatusReport, verify: LastVerify | None) -> str:
    """What to do next, from the last run and the last verify."""
    if not status["runs"]:
        return "bridge plan, then bridge run"
    run = status["runs"][0]
    if run["status"] == "running":
        return "wait for it to finish (`bridge status` again shows how far it is)"
    if run["status"] not in FINISHED:
        flight = len(status["in_flight"])
        return f"bridge run: it resumes where run {run['id']} stopped ({flight:,} write(s) in flight replayed first)"
    if verify is None or verify["run"] != run["id"]:
        return "bridge verify"
    if not verify["reconciled"]:
        return f"read the differences in {Path(verify['report']).with_suffix('.md')}, fix them, bridge run again"
    if status["quarantine_by_code"]:
        return "fix the quarantined records (codes below, runbooks/06-quarantined-records.md), then bridge run"
    return "nothing: the last run is verified reconciled (bridge sync keeps v1 in step until cutover)"


def _table(title: str | None, *columns: str) -> Table:
    table = Table(title=title, title_justify="left")
    for column in columns:
        table.add_column(column, justify="left" if column in ("kind", "run", "migration", "status") else "right")
    return table


REPORT_COLUMNS = (
    ("to_create", "created"),
    ("replayed", "replayed"),
    ("adopted", "adopted"),
    ("to_update", "updated"),
    ("unchanged", "unchanged"),
    ("held_back", "held back"),
    ("left_out", "left out"),
    ("quarantined", "quarantined"),
    ("removed_at_source", "removed at source"),
    ("conflicted", "conflicted"),
    ("deleted_on_target", "deleted on v1"),
    ("requests", "requests"),
)


def _render_report(out: Console, run: RunInfo) -> None:
    """The last run's own counts per kind (what its summary showed), when it recorded them."""
    kinds = run["report"].get("kinds")
    if not isinstance(kinds, dict) or not kinds:
        return
    table = _table(f"Run {run['id']}: what it did", "kind", *(title for _, title in REPORT_COLUMNS))
    for kind, row in kinds.items():
        if isinstance(row, dict):
            table.add_row(plain(str(kind)), *(f"{row.get(field, 0):,}" for field, _ in REPORT_COLUMNS))
    out.print(table)


def render(status: StatusReport, verify: LastVerify | None) -> None:
    """`bridge status` on a terminal. Ids, names and codes in the state came from the services: printed as
    text, never markup."""
    out = console()
    out.print(Text(plain(headline(status, verify)), style="bold"))
    out.print(Text(f"state: {shown(status['state'])} (schema {status['schema_version']})"))
    out.print(Text(f"source: {shown(status['source'] or '-')}   target: {shown(status['target'] or '-')}"))
    runs = _table("Last runs", "run", "migration", "status", "started", "duration", "finished")
    for run in status["runs"]:
        took = "-" if run["duration_s"] is None else elapsed(run["duration_s"])
        cells = (run["migration"], run_outcome(run), run["started_at"], took, run["finished_at"] or "-")
        runs.add_row(str(run["id"]), *(Text(shown(cell)) for cell in cells))
    out.print(runs)
    if status["runs"]:
        _render_report(out, status["runs"][0])
    records = _table("Records (crosswalk): migrated to v1, quarantined", "kind", "migrated")
    records.add_column("quarantined", justify="right")
    for kind, info in status["records"].items():
        records.add_row(Text(shown(kind)), f"{info['migrated']:,}", f"{info['quarantined']:,}")
    out.print(records)
    journal = _table("Journal: write requests by status (one intent per request)", "kind", *INTENT_STATUSES)
    for kind, counts in status["journal"].items():
        journal.add_row(Text(shown(kind)), *(f"{counts[s]:,}" for s in INTENT_STATUSES))
    out.print(journal)
    _render_flight(out, status)
    codes = status["quarantine_by_code"]
    listed = ", ".join(f"{code} x{n}" for code, n in sorted(codes.items())) or "none"
    out.print(Text("quarantine: " + plain(listed)))
    if "integrity" in status:
        out.print(Text("integrity: " + plain("; ".join(status["integrity"][:5]))))
    out.print(Text("next: " + plain(next_step(status, verify))))


def _render_flight(out: Console, status: StatusReport) -> None:
    flight = status["in_flight"]
    out.print(f"in flight: {len(flight)} intent(s) (the next `bridge run` replays them first)", markup=False)
    if not flight:
        return
    table = _table(None, "step key", "kind", "status", "attempts", "age (s)", "last error")
    for intent in flight:
        table.add_row(
            Text(shown(intent["step_key"])),
            Text(shown(intent["kind"])),
            Text(shown(intent["status"])),
            str(intent["attempts"]),
            str(intent["age_s"]),
            Text(shown(intent["last_error_code"] or "-")),
        )
    out.print(table)
