"""Classifying one compared total: exact, explained by rounding, explained by quarantine, not carried (v1
publishes no write for it, so v1 cannot hold it), or a mismatch.

Pure functions over plain numbers. Every figure here is already an integer in the workspace currency's
minor units: the legacy side converted (see ``convert.py``), the v1 side as the service reports it. Only
a mismatch fails verification by default; ``--fail-on rounding`` makes every unexplained-to-the-cent
difference fail too.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from enum import StrEnum


class Verdict(StrEnum):
    """How a difference is explained, least to most severe (the order ``--fail-on`` relies on)."""

    EXACT = "exact"
    # The figure rests on something v1 publishes no write for (a budget line's tags): v1 cannot hold it, so
    # the legacy figure is the money not carried, reported as such and never compared.
    NOT_CARRIED = "not_carried"
    ROUNDING = "rounding"
    QUARANTINE = "quarantine"
    MISMATCH = "mismatch"

    @property
    def severity(self) -> int:
        return _SEVERITY[self]


# Not carried ranks above exact (it is listed, counted and noted) but fails no --fail-on level: it is a limit
# of what v1 publishes, the same on every run, not a difference a rerun or a fix at the source could remove.
_SEVERITY = {
    Verdict.EXACT: 0,
    Verdict.NOT_CARRIED: 1,
    Verdict.ROUNDING: 2,
    Verdict.QUARANTINE: 3,
    Verdict.MISMATCH: 4,
}


class FailOn(StrEnum):
    """The least severe verdict that fails verification."""

    ROUNDING = "rounding"
    MISMATCH = "mismatch"

    def fails(self, verdict: Verdict) -> bool:
        return verdict.severity >= Verdict(self.value).severity


@dataclass(frozen=True, slots=True)
class Explanation:
    """What may legitimately separate the two sides of one total, in workspace minor units.

    ``rounding_bound`` is how far rounding may move the total (the mappings' reported rounding for the
    records inside it plus the currency conversion's half unit per side); ``quarantined`` is what the
    quarantined source records inside it contribute on the legacy side and therefore lack on v1.
    """

    rounding_bound: Decimal = Decimal(0)
    quarantined: int = 0


NOTHING = Explanation()


def classify(legacy: int | None, v1: int | None, explanation: Explanation = NOTHING) -> Verdict:
    """The verdict for one total; a side that is missing entirely (None) is a mismatch unless both are."""
    if legacy is None or v1 is None:
        return Verdict.EXACT if legacy is v1 else Verdict.MISMATCH
    difference = v1 - legacy
    if difference == 0:
        return Verdict.EXACT
    if abs(difference) <= explanation.rounding_bound:
        return Verdict.ROUNDING
    # v1 lacks exactly what the quarantined records add on the legacy side, give or take the rounding bound.
    if explanation.quarantined and abs(difference + explanation.quarantined) <= explanation.rounding_bound:
        return Verdict.QUARANTINE
    return Verdict.MISMATCH


def worst(verdicts: list[Verdict]) -> Verdict:
    """The most severe verdict of several (exact when there are none)."""
    return max(verdicts, key=lambda v: v.severity, default=Verdict.EXACT)


def money_verdict(verdicts: list[Verdict]) -> Verdict:
    """A project's verdict, which is about its money: what v1 publishes no write for (not carried) is reported
    in a section of its own, so a project whose every total is exact is exact, never headed "not carried"."""
    return worst([v for v in verdicts if v is not Verdict.NOT_CARRIED])
