"""The verdict summary of a reconciliation: the answer, the counts, each project's verdict, the files written.

`bridge verify --json` prints it and a fleet workflow records it as its verify step's result, so one shape
serves both; it is built from the report alone.
"""

from __future__ import annotations

from pathlib import Path

from bridge.verify.closing import closing, open_ledgers
from bridge.verify.schema import Reconciliation


def summary(report: Reconciliation, written: list[Path]) -> dict[str, object]:
    """The verdict summary `verify --json` prints: the answer, the counts, each project's verdict, the files."""
    said = closing(report)
    return {
        "reconciled": report.reconciled,
        "fail_on": report.fail_on.value,
        "migration": report.migration,
        "run": report.run,
        "currency": report.currency,
        "verdicts": report.verdicts.model_dump(),
        # Structured since schema 1.9.0: the sentence, then the records and the money per currency and reason.
        "held_back": report.held_back.model_dump(include={"summary", "records", "by_currency", "by_reason"}),
        "closing": said.answer,
        "next": said.next_step,
        "ledger_open": open_ledgers(report),
        "projects": [{"project_id": p.project_id, "name": p.name, "verdict": p.verdict.value} for p in report.projects],
        "reports": [str(path) for path in written],
    }
