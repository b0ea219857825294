"""What quarantine holds back: records under a refused record, and the money that never reached v1.

A refused record (a quarantine row) keeps more than itself off v1: a project its phases, lines, actuals,
split parts and library copies; a space the projects that wait for it; an account line its subtree; an actual
its split parts. Verification finds those from the source and the state file alone (never from what a run
says it did): a record is *held back by* the highest refused record above it when it reached v1 neither
itself nor through a migrated ancestor, and it has no refusal of its own (or only ``tree.ancestor_quarantined``,
the mappings' way of saying the same thing). It is labelled ``<kind> <legacy id> (<code>)`` after that record.

The money follows into the totals: a project that never reached v1 is reported with every phase's legacy total
held back (``quarantined_minor`` = the whole figure, ``v1_minor`` null), a refused phase likewise, and the
quarantined lines and actuals of a migrated project by what they add (``quarantine.py``). "Explained by
quarantine" therefore always comes with the amount it explains; nothing is silently absent. ``summarize``
turns it all into the headline every report and the terminal print.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal

from bridge.engine.kinds import order
from bridge.verify.amounts import amount
from bridge.verify.compare import Verdict
from bridge.verify.convert import PhaseRate, as_counted, convert_amount
from bridge.verify.schema import (
    NOTHING_HELD_BACK,
    ActualsSum,
    Figure,
    HeldBack,
    HeldBackGroup,
    HeldBackMoney,
    HeldBackReason,
    HeldBackTotal,
    KindLedger,
    PhaseSummary,
    ProjectReport,
    QuarantinedRecord,
)
from mappings.errors import ErrorCode
from mappings.kinds import Kind
from mappings.records import Phase, RawNumber

RecordKey = tuple[str, str, str]
"""(kind, scope, legacy id) of one source record, as the crosswalk and the quarantine key it."""

GROUPS_NAMED = 3
"""Refused records the headline names before it says how many more there are."""
KIND_ORDER: tuple[Kind, ...] = order()
"""The ledger's order of kinds: the order a run writes them (``engine.kinds``); others follow by name."""


@dataclass(frozen=True, slots=True)
class HeldBy:
    """The refused record holding another back."""

    kind: str
    scope: str
    legacy_id: str
    code: str

    @property
    def label(self) -> str:
        return label(self.kind, self.legacy_id, self.code)


def label(kind: str, legacy_id: str, code: str) -> str:
    return f"{kind} {legacy_id} ({code})"


def held_back(
    records: Iterable[RecordKey],
    parents: Mapping[RecordKey, RecordKey],
    migrated: Collection[RecordKey],
    quarantine: Mapping[RecordKey, str],
) -> dict[RecordKey, HeldBy]:
    """Each record a refused record above it holds back, with that (highest) refused record."""
    found: dict[RecordKey, HeldBy] = {}
    for key in records:
        own = quarantine.get(key)
        if key in migrated or (own is not None and own != ErrorCode.TREE_ANCESTOR_QUARANTINED):
            continue
        top: RecordKey | None = None
        seen: set[RecordKey] = set()
        current = parents.get(key)
        # Upward until a migrated ancestor (it stands on v1, so what is below it waits for nothing above it).
        while current is not None and current not in seen and current not in migrated:
            seen.add(current)
            if current in quarantine:
                top = current
            current = parents.get(current)
        if top is not None:
            found[key] = HeldBy(*top, quarantine[top])
    return found


def held_figure(raw: RawNumber, rate: PhaseRate, currency: str, held_by: str | None) -> Figure:
    """A legacy figure that has no v1 counterpart: all of it held back (``held_by`` set) or simply missing."""
    amount = as_counted(raw)
    converted = convert_amount(amount, rate)
    return Figure(
        legacy_amount=str(amount),
        legacy_currency=rate.currency,
        rate=str(rate.rate),
        legacy_minor=converted.minor,
        v1_minor=None,
        currency=currency,
        difference_minor=None,
        verdict=Verdict.QUARANTINE if held_by else Verdict.MISMATCH,
        rounding_bound_minor="0",
        quarantined_minor=converted.minor if held_by else 0,
        held_back_by=held_by,
    )


def held_phase(phase: Phase, raw: RawNumber, rate: PhaseRate, currency: str, held_by: str | None) -> PhaseSummary:
    """A phase whose total never reached v1 (refused itself, or in a project that never did)."""
    return PhaseSummary(
        legacy_phase_id=phase.id,
        v1_phase_id=None,
        name=phase.name or phase.alias or phase.id,
        type=phase.type,
        total=held_figure(raw, rate, currency, held_by),
        fringe=None,
    )


@dataclass(frozen=True, slots=True)
class Unmigrated:
    """A selected legacy project with no v1 project, as read from the source."""

    project_id: str
    name: str
    phases: Sequence[tuple[Phase, PhaseRate]]
    totals: Mapping[str, RawNumber]
    actual_count: int
    actual_total: Decimal
    actual_rate: PhaseRate
    held_by: str | None
    """The refused record holding it back; None when nothing does (then it is simply not migrated yet)."""


def unmigrated_report(project: Unmigrated, currency: str) -> ProjectReport:
    """The report of a project that never reached v1: every figure legacy-only, held back or missing."""
    phases = [held_phase(p, project.totals.get(p.id, 0), rate, currency, project.held_by) for p, rate in project.phases]
    actuals = convert_amount(project.actual_total, project.actual_rate)
    held = project.held_by is not None
    verdict = Verdict.QUARANTINE if held else Verdict.MISMATCH
    why = (
        f"never reached v1: held back by {project.held_by}; every figure below is held back by quarantine"
        if held
        else "not migrated yet (no v1 project in the crosswalk, nothing refused above it): run `bridge run`"
    )
    return ProjectReport(
        project_id=project.project_id,
        v1_project_id=None,
        name=project.name,
        verdict=verdict,
        held_back_by=project.held_by,
        phases=phases,
        accounts=[],
        tags=[],
        actuals=[
            ActualsSum(
                currency=project.actual_rate.currency,
                legacy_count=project.actual_count,
                v1_count=0,
                legacy_amount=str(project.actual_total),
                legacy_minor=actuals.minor,
                v1_minor=0,
                verdict=verdict if actuals.minor else Verdict.EXACT,
                held_back_minor=actuals.minor if held else 0,
            )
        ],
        differences=[],
        library=[],
        tree=[],
        notes=[why],
    )


def money_of(projects: Iterable[ProjectReport]) -> list[HeldBackMoney]:
    """Per project, phase and actuals currency: the money quarantine holds back (figures that say so)."""
    money: list[HeldBackMoney] = []
    for project in projects:
        common = {"project_id": project.project_id, "project_name": project.name}
        money += [
            HeldBackMoney(
                **common,
                phase_id=phase.legacy_phase_id,
                phase_name=phase.name,
                phase_type=phase.type,
                legacy_currency=phase.total.legacy_currency,
                rate=phase.total.rate,
                minor=phase.total.quarantined_minor,
                currency=phase.total.currency,
                held_back_by=phase.total.held_back_by,
            )
            for phase in project.phases
            if phase.total.quarantined_minor
        ]
        money += [
            HeldBackMoney(
                **common,
                phase_id=None,
                phase_name="actuals",
                phase_type="actuals",
                legacy_currency=actuals.currency,
                rate="1",
                minor=actuals.held_back_minor,
                currency=actuals.currency,
                held_back_by=project.held_back_by,
            )
            for actuals in project.actuals
            if actuals.held_back_minor
        ]
    return money


@dataclass(frozen=True, slots=True)
class HeldCount:
    """What refused records hold back, counted instead of listed (counts of several scopes add up)."""

    below: Counter[tuple[RecordKey, str]] = field(default_factory=Counter)
    """(refused record, kind) -> how many records of that kind it holds back."""
    refused: frozenset[RecordKey] = frozenset()
    """Refused records that a refused record above them holds back (they head no group of their own)."""

    def __add__(self, other: HeldCount) -> HeldCount:
        return HeldCount(self.below + other.below, self.refused | other.refused)

    @classmethod
    def of(cls, held: Mapping[RecordKey, HeldBy], quarantine: Collection[RecordKey]) -> HeldCount:
        below = Counter(((by.kind, by.scope, by.legacy_id), kind) for (kind, _scope, _id), by in held.items())
        return cls(below, frozenset(key for key in held if key in quarantine))


def summarize(
    ledgers: Sequence[KindLedger],
    quarantine: Sequence[QuarantinedRecord],
    held: HeldCount,
    money: list[HeldBackMoney],
) -> HeldBack:
    """Records per kind, the refused records with what each holds back, the money, and the one-line summary."""
    records: Counter[str] = Counter()
    in_ledger = {e.kind for e in ledgers}
    for entry in ledgers:
        records[entry.kind] += sum(entry.quarantined.values()) + sum(entry.held_back.values())
    records.update(q.kind for q in quarantine if q.kind not in in_ledger)
    below: dict[RecordKey, Counter[str]] = defaultdict(Counter)
    for (by, kind), count in held.below.items():
        below[by][kind] += count
    groups = [
        HeldBackGroup(
            label=label(q.kind, q.legacy_id, q.code),
            kind=q.kind,
            scope=q.scope,
            legacy_id=q.legacy_id,
            code=q.code,
            records=_ordered(Counter({q.kind: 1}) + below[(q.kind, q.scope, q.legacy_id)]),
        )
        for q in quarantine
        if (q.kind, q.scope, q.legacy_id) not in held.refused
    ]
    groups.sort(key=lambda g: (-sum(g.records.values()), g.label))
    counts = _ordered(+records)
    return HeldBack(
        summary=_summary(counts, groups, money),
        records=counts,
        money=money,
        groups=groups,
        by_currency=by_currency(money),
        by_reason=by_reason(groups),
    )


INSIDE = "quarantined records inside"
"""The reason of money a total holds back through the refused lines and actuals within it."""


def by_currency(money: Iterable[HeldBackMoney]) -> list[HeldBackTotal]:
    """The money held back per currency and reason: the actuals ledger added up (a transaction is counted
    once), each phase's totals added up over the projects (phases are never added together)."""
    actuals: dict[tuple[str, str], int] = defaultdict(int)
    phases: dict[tuple[str, str], dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for row in money:
        # The label ends with the refusing code: ``<kind> <legacy id> (<code>)`` (``label``).
        reason = row.held_back_by.rsplit("(", 1)[-1].rstrip(")") if row.held_back_by else INSIDE
        key = (row.currency, reason)
        if row.phase_id is None:
            actuals[key] += row.minor
        else:
            phases[key][row.phase_name] += row.minor
    return [
        HeldBackTotal(
            currency=currency,
            reason=reason,
            actuals_minor=str(actuals.get((currency, reason), 0)),
            phase_totals_minor={name: str(minor) for name, minor in phases.get((currency, reason), {}).items()},
        )
        for currency, reason in sorted({*actuals, *phases})
    ]


def by_reason(groups: Iterable[HeldBackGroup]) -> list[HeldBackReason]:
    """The refused records per error code, with the records they keep off v1 per kind."""
    refused: Counter[str] = Counter()
    records: dict[str, Counter[str]] = defaultdict(Counter)
    for group in groups:
        refused[group.code] += 1
        records[group.code].update(group.records)
    return [
        HeldBackReason(reason=code, refused=n, records=_ordered(records[code])) for code, n in sorted(refused.items())
    ]


def _ordered(counts: Counter[str]) -> dict[str, int]:
    rank: dict[str, int] = {kind: n for n, kind in enumerate(KIND_ORDER)}
    return {kind: counts[kind] for kind in sorted(counts, key=lambda k: (rank.get(k, len(rank)), k))}


def _summary(records: Mapping[str, int], groups: Sequence[HeldBackGroup], money: Sequence[HeldBackMoney]) -> str:
    if not records and not money:
        return NOTHING_HELD_BACK
    what = ", ".join(f"{n} {kind if n == 1 else _plural(kind)}" for kind, n in records.items())
    named = "; ".join(f"{g.label}: {sum(g.records.values())}" for g in groups[:GROUPS_NAMED])
    more = f"; and {len(groups) - GROUPS_NAMED} more refused" if len(groups) > GROUPS_NAMED else ""
    phases: dict[tuple[str, str, str], int] = defaultdict(int)
    actuals: dict[str, int] = defaultdict(int)
    for row in money:
        if row.phase_id is None:
            actuals[row.currency] += row.minor
        else:
            phases[(row.phase_name, row.legacy_currency, row.currency)] += row.minor
    # Phase totals are listed, never added up: an estimate, a working budget and the actuals overlap.
    per_phase = ", ".join(
        f"{name} {amount(minor, cur)}" + (f" (from {source})" if source != cur else "")
        for (name, source, cur), minor in phases.items()
    )
    ledger = ", ".join(amount(minor, cur) for cur, minor in actuals.items())
    return (
        f"held back by quarantine: {what or 'no records'} (by {named or 'no refused record'}{more}); "
        f"money held back, per phase total: {per_phase or 'none'}; in the actuals ledger: {ledger or 'none'}"
    )


def _plural(kind: str) -> str:
    return kind if kind.endswith("s") else f"{kind}s"
