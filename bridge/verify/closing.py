"""What a reconciliation comes to, in words every rendering shares: the answer, the counts behind it, the money
held back, and what to do next.

``answer`` is the one closing line (``bridge verify`` ends with it; the Markdown and HTML put it under their
heading): the verdict, the totals compared with their verdicts, the differences listed and what explains them,
each in its own unit (``3 mismatch`` totals beside ``1 difference listed largest first, explained below it by
1 line``: a phase, its account and its line are three totals, one entry), the ledger and the money quarantine
holds back. ``next_step`` is the command or the fix that follows. Pure: the report alone.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from bridge.verify.amounts import amount, number
from bridge.verify.headline import differences
from bridge.verify.ledger import is_clean
from bridge.verify.schema import KindLedger, Reconciliation


@dataclass(frozen=True, slots=True)
class Closing:
    answer: str
    next_step: str


def plural(count: int, one: str, many: str | None = None) -> str:
    """``1 total``, ``1,517 totals``: a count with its unit."""
    return f"{number(count)} {one if count == 1 else many or one + 's'}"


def open_ledgers(report: Reconciliation) -> list[str]:
    """The kinds whose ledger is not closed, or has a record pending, missing, unexpected or duplicated."""
    return _open(report.ledger)


def _open(entries: Sequence[KindLedger]) -> list[str]:
    return [e.kind for e in entries if not is_clean([e])]


def totals_compared(report: Reconciliation) -> int:
    """The totals both sides were compared on (figures v1 publishes no write for are not among them)."""
    v = report.verdicts
    return v.exact + v.rounding + v.quarantine + v.mismatch


def held_back_money(report: Reconciliation) -> str:
    """What quarantine keeps off v1: the actuals ledger's money per currency (transactions are counted once;
    phase totals overlap, so they are counted as totals, never added up), and how many phase totals hold some."""
    actuals: dict[str, int] = defaultdict(int)
    for row in report.held_back.money:
        if row.phase_id is None:
            actuals[row.currency] += row.minor
    phases = sum(1 for row in report.held_back.money if row.phase_id is not None)
    said = [f"{', '.join(amount(m, c) for c, m in actuals.items())} of actuals"] if actuals else []
    said += [f"part of {plural(phases, 'phase total')}"] if phases else []
    return "money held back: " + (" and ".join(said) if said else "none")


def listed(report: Reconciliation) -> list[str]:
    """How the totals that are not exact come together in the differences list: a phase total and the
    account and line totals under it are several verdicts but one entry, explained by its lines and
    transactions (``3 totals differ`` beside ``1 difference, 1 line explains it``)."""
    entries = differences(report)
    if not entries:
        return []
    lines = sum(1 for e in entries for d in e.steps if d.location.kind == "line")
    transactions = sum(len(e.moved) + len(e.transactions) for e in entries)
    below = [plural(n, unit) for n, unit in ((lines, "line"), (transactions, "transaction")) if n]
    them = "it" if len(entries) == 1 else "them"
    why = f", explained below {them} by {' and '.join(below)}" if below else ""
    return [f"{plural(len(entries), 'difference')} listed largest first{why}"]


def closing(report: Reconciliation) -> Closing:
    """The closing line and the next step of one reconciliation."""
    v = report.verdicts
    compared = totals_compared(report)
    counts = (
        f"{plural(compared, 'total')} compared ({number(v.exact)} exact, {number(v.rounding)} rounding, "
        f"{number(v.quarantine)} quarantine, {number(v.mismatch)} mismatch)"
    )
    not_carried = [f"{plural(v.not_carried, 'figure')} not carried"] if v.not_carried else []
    still_open = open_ledgers(report)
    ledger = f"ledger open for {', '.join(still_open)}" if still_open else "ledger closed"
    answer = "RECONCILED" if report.reconciled else "NOT RECONCILED"
    line = "; ".join([f"{answer}: {counts}", *listed(report), *not_carried, ledger, held_back_money(report)])
    return Closing(line, _next_step(report, still_open))


def _next_step(report: Reconciliation, still_open: list[str]) -> str:
    if not report.projects or report.run is None:
        return "next: bridge run, then bridge verify"
    if not report.reconciled:
        found = differences(report)
        where = (
            f"the largest difference, {found[0].what} of {found[0].project.name}, comes first"
            if found
            else f"the ledger of {', '.join(still_open) or 'the documents'} says what is missing"
        )
        return f"next: open reconciliation.html ({where}); fix the cause, then bridge run and bridge verify again"
    if report.quarantine:
        return (
            f"next: fix the {plural(len(report.quarantine), 'refused record')} under Quarantine in "
            "reconciliation.html (each names its fix), then bridge run and bridge verify again; "
            "bridge cutover check --project ID wants quarantine empty"
        )
    return "next: bridge cutover check --project ID for each project to cut over"


def ledger_line(entries: Sequence[KindLedger]) -> str:
    """The ledger in one sentence: every source record of every kind, by where it went (all runs together)."""
    source = sum(e.source for e in entries)
    carried = sum(e.migrated + e.unchanged for e in entries)
    quarantined = sum(sum(e.quarantined.values()) for e in entries)
    held = sum(sum(e.held_back.values()) for e in entries)
    left = sum(sum(e.not_carried.values()) for e in entries)
    pending = sum(e.pending for e in entries)
    still_open = _open(entries)
    return (
        f"{plural(source, 'source record')} of {plural(len(entries), 'kind')}: {number(carried)} migrated "
        f"(all runs), {number(quarantined)} quarantined, {number(held)} held back, {number(left)} not carried, "
        f"{number(pending)} pending; " + (f"open for {', '.join(still_open)}" if still_open else "closed")
    )
