"""What the reports lead with: is the money the same, and if not, where.

Pure functions over one ``Reconciliation``, shared by the HTML and Markdown writers:

- ``money_rows``: per currency and phase, the legacy total, the v1 total, the difference and what quarantine
  holds back (phase totals are never added across phases: estimate, working and actual overlap);
- ``differences``: every total that is not exact (a phase total, an actuals sum, or a difference the drill
  found with no differing phase above it), largest first, each with the accounts and lines the drill-down
  pinned it on and, for actuals, the transactions quarantine holds back;
- ``by_severity``: projects mismatch first, then quarantine, rounding and exact;
- ``quarantine_rows``: each refused record with its code, the catalogue's fix and what it holds back;
- ``phases_not_compared``: the phases (the seed's committed phase among them) verification could not
  compare, grouped by name and reason.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from bridge.verify.compare import Verdict
from bridge.verify.schema import (
    Difference,
    ProjectReport,
    QuarantinedRecord,
    Reconciliation,
    TransactionDifference,
)
from mappings.errors import CATALOGUE, ErrorCode

ACTUALS = "actuals"
TRANSACTION_KINDS = frozenset({"actual", "split"})
ALONE = "the total itself (nothing below it differs)"
ROLLUP = "a rollup: it follows the differences of the phases it is computed from"


@dataclass(slots=True)
class MoneyRow:
    """One currency and phase over every project: amounts in ``currency`` minor units."""

    source_currency: str
    phase: str
    currency: str
    legacy_minor: int = 0
    v1_minor: int = 0
    held_back_minor: int = 0
    reached_v1: bool = False
    verdict: Verdict = Verdict.EXACT

    @property
    def difference_minor(self) -> int:
        return self.v1_minor - self.legacy_minor

    @property
    def label(self) -> str:
        """The currency column of every rendering: ``USD``, or ``JPY as USD`` for a converted phase."""
        same = self.source_currency == self.currency
        return self.currency if same else f"{self.source_currency} as {self.currency}"


def money_rows(report: Reconciliation) -> list[MoneyRow]:
    """Per legacy currency and phase (in the order first met), then the actuals ledger per currency."""
    rows: dict[tuple[str, str], MoneyRow] = {}
    for project in report.projects:
        for phase in project.phases:
            f = phase.total
            row = rows.setdefault((f.legacy_currency, phase.name), MoneyRow(f.legacy_currency, phase.name, f.currency))
            _add(row, f.legacy_minor, f.v1_minor, f.quarantined_minor, f.verdict)
    actuals: dict[str, MoneyRow] = {}
    for project in report.projects:
        for a in project.actuals:
            row = actuals.setdefault(a.currency, MoneyRow(a.currency, ACTUALS, a.currency))
            _add(row, a.legacy_minor, a.v1_minor if project.v1_project_id else None, a.held_back_minor, a.verdict)
    return [*rows.values(), *actuals.values()]


def _add(row: MoneyRow, legacy: int | None, v1: int | None, held: int, verdict: Verdict) -> None:
    row.legacy_minor += legacy or 0
    row.v1_minor += v1 or 0
    row.reached_v1 |= v1 is not None
    row.held_back_minor += held
    row.verdict = max(row.verdict, verdict, key=lambda v: v.severity)


@dataclass(frozen=True, slots=True)
class Entry:
    """One total that is not exact, with what explains it below: accounts and lines, then transactions."""

    project: ProjectReport
    what: str
    phase_id: str | None
    legacy_minor: int | None
    v1_minor: int | None
    currency: str
    verdict: Verdict
    held_back_minor: int
    held_back_by: str | None
    steps: list[Difference] = field(default_factory=list)
    transactions: list[QuarantinedRecord] = field(default_factory=list)
    moved: list[TransactionDifference] = field(default_factory=list)
    """Transactions whose v1 copy differs or is gone (or v1 only): the actuals' level of the drill-down."""
    alone: str = ALONE
    """What to say when nothing below the total explains it."""

    @property
    def difference_minor(self) -> int | None:
        """v1 - legacy; a total that never reached v1 differs by all of it."""
        if self.legacy_minor is None and self.v1_minor is None:
            return None
        return (self.v1_minor or 0) - (self.legacy_minor or 0)

    @property
    def size(self) -> int:
        return abs(self.difference_minor or 0)


def differences(report: Reconciliation) -> list[Entry]:
    """Every total that is not exact (not-carried tag figures aside: they are noted), largest first."""
    entries: list[Entry] = []
    for project in report.projects:
        entries += _project_entries(project, report.quarantine)
    return sorted(entries, key=lambda e: (-e.size, -e.verdict.severity))


def _project_entries(project: ProjectReport, quarantine: list[QuarantinedRecord]) -> list[Entry]:
    transactions = [q for q in quarantine if q.scope == project.project_id and q.kind in TRANSACTION_KINDS]
    steps = sorted((d for d in project.differences if d.location.kind != "project"), key=_depth)
    claimed: set[int] = set()
    entries: list[Entry] = []
    for phase in project.phases:
        f = phase.total
        if f.verdict in (Verdict.EXACT, Verdict.NOT_CARRIED):
            continue
        below = [d for d in steps if d.location.phase_id == phase.legacy_phase_id]
        claimed.update(id(d) for d in below)
        actual = phase.type == "actual"
        entries.append(
            Entry(
                project,
                f"phase {phase.name}",
                phase.legacy_phase_id,
                f.legacy_minor,
                f.v1_minor,
                f.currency,
                f.verdict,
                f.quarantined_minor,
                f.held_back_by or project.held_back_by,
                below,
                transactions if actual and f.verdict is Verdict.QUARANTINE else [],
                project.transactions if actual else [],
                ROLLUP if phase.type == "rollup" else ALONE,
            )
        )
    for a in project.actuals:
        if a.verdict in (Verdict.EXACT, Verdict.NOT_CARRIED):
            continue
        v1 = a.v1_minor if project.v1_project_id else None
        explaining = transactions if a.verdict is Verdict.QUARANTINE else []
        entries.append(
            Entry(
                project,
                f"{ACTUALS} in {a.currency}",
                None,
                a.legacy_minor,
                v1,
                a.currency,
                a.verdict,
                a.held_back_minor,
                project.held_back_by,
                [],
                explaining,
                [t for t in project.transactions if a.currency in (t.currency, t.v1_currency)],
            )
        )
    # A difference the drill found under a phase whose own total agrees (an account's rounding, say).
    entries += [
        Entry(
            project,
            f"phase {d.location.phase_name}",
            d.location.phase_id,
            d.figure.legacy_minor,
            d.figure.v1_minor,
            d.figure.currency,
            d.figure.verdict,
            d.figure.quarantined_minor,
            d.figure.held_back_by,
            [d],
        )
        for d in steps
        if id(d) not in claimed
    ]
    return entries


def _depth(difference: Difference) -> tuple[str, str]:
    """Accounts before the lines under them: by path, then the line id."""
    loc = difference.location
    return (loc.path or "", loc.line_id or loc.v1_line_id or "")


def by_severity(projects: Iterable[ProjectReport]) -> list[ProjectReport]:
    """Mismatch, then quarantine, rounding, not carried and exact; source order within each."""
    return sorted(projects, key=lambda p: -p.verdict.severity)


@dataclass(frozen=True, slots=True)
class QuarantineRow:
    record: QuarantinedRecord
    project: str
    fix: str
    holds_back: dict[str, int]


def quarantine_rows(report: Reconciliation) -> list[QuarantineRow]:
    """Each refused record with its project's name, the catalogue's fix and the records it holds back."""
    names = {p.project_id: p.name for p in report.projects}
    groups = {(g.kind, g.scope, g.legacy_id): g.records for g in report.held_back.groups}
    return [
        QuarantineRow(q, names.get(q.scope, q.scope), fix_for(q.code), groups.get((q.kind, q.scope, q.legacy_id), {}))
        for q in report.quarantine
    ]


def fix_for(code: str) -> str:
    """What the operator can do about a code, from the mappings' catalogue (the message carries it too)."""
    try:
        return CATALOGUE[ErrorCode(code)][1]
    except ValueError:
        return "see the message"


# The verifier's own note for a phase it skipped (bridge/verify/project.py, phase_plans).
_SKIPPED = re.compile(r"^phase (?P<name>'[^']*'|\"[^\"]*\") \((?P<id>[^()]*)\) (?P<why>.+)$")


@dataclass(frozen=True, slots=True)
class NotCompared:
    name: str
    why: str
    projects: int


def phases_not_compared(report: Reconciliation) -> list[NotCompared]:
    """Phases skipped by name and reason (a hidden committed phase: v1 lists visible phases only)."""
    counts: dict[tuple[str, str], int] = {}
    for project in report.projects:
        for note in project.notes:
            match = _SKIPPED.match(note)
            if match:
                key = (match["name"][1:-1], match["why"])
                counts[key] = counts.get(key, 0) + 1
    return [NotCompared(name, why, n) for (name, why), n in counts.items()]


def committed_compared(report: Reconciliation) -> int:
    """How many committed phases were compared with their v1 copy."""
    return sum(1 for p in report.projects for ph in p.phases if ph.type == "committed" and ph.v1_phase_id)
