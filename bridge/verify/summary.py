"""The verdict summary of a reconciliation: the answer, the counts, each project's verdict, the files written.

`bridge verify --json` prints it and a fleet workflow records it as its verify step's result, so one shape
serves both; it is built from the report alone.
"""

from __future__ import annotations

from pathlib import Path

from bridge.verify.ledger import is_clean
from bridge.verify.schema import Reconciliation


def summary(report: Reconciliation, written: list[Path]) -> dict[str, object]:
    """The verdict summary `verify --json` prints: the answer, the counts, each project's verdict, the files."""
    return {
        "reconciled": report.reconciled,
        "fail_on": report.fail_on.value,
        "migration": report.migration,
        "run": report.run,
        "currency": report.currency,
        "verdicts": report.verdicts.model_dump(),
        "held_back": report.held_back.summary,
        "ledger_open": open_ledgers(report),
        "projects": [{"project_id": p.project_id, "name": p.name, "verdict": p.verdict.value} for p in report.projects],
        "reports": [str(path) for path in written],
    }


def open_ledgers(report: Reconciliation) -> list[str]:
    """The kinds whose ledger is not closed (the summary lists them; the terminal table's caption names them)."""
    return [e.kind for e in report.ledger if not is_clean([e])]
