"""Classification of one compared total, and the --fail-on threshold."""

from __future__ import annotations

from decimal import Decimal

import pytest

from bridge.verify.compare import Explanation, FailOn, Verdict, classify, worst


@pytest.mark.parametrize(
    ("legacy", "v1", "explanation", "expected"),
    [
        (100, 100, Explanation(), Verdict.EXACT),
        (100, 101, Explanation(rounding_bound=Decimal(1)), Verdict.ROUNDING),
        (100, 102, Explanation(rounding_bound=Decimal(1)), Verdict.MISMATCH),
        (100, 70, Explanation(quarantined=30), Verdict.QUARANTINE),
        (100, 71, Explanation(rounding_bound=Decimal(1), quarantined=30), Verdict.QUARANTINE),
        (100, 60, Explanation(quarantined=30), Verdict.MISMATCH),
        (100, None, Explanation(), Verdict.MISMATCH),
        (None, 5, Explanation(), Verdict.MISMATCH),
        (None, None, Explanation(), Verdict.EXACT),
    ],
)
def test_classify_explains_differences_by_rounding_then_quarantine(
    legacy: int | None, v1: int | None, explanation: Explanation, expected: Verdict
) -> None:
    """A difference within the rounding bound is rounding; one equal to the quarantined part is quarantine."""
    assert classify(legacy, v1, explanation) is expected


def test_a_difference_the_other_way_is_not_explained_by_quarantine() -> None:
    """v1 holding more than legacy can never be explained by records that were kept out of v1."""
    assert classify(100, 130, Explanation(quarantined=30)) is Verdict.MISMATCH


@pytest.mark.parametrize(
    ("fail_on", "verdict", "fails"),
    [
        (FailOn.MISMATCH, Verdict.ROUNDING, False),
        (FailOn.MISMATCH, Verdict.QUARANTINE, False),
        (FailOn.MISMATCH, Verdict.MISMATCH, True),
        (FailOn.ROUNDING, Verdict.EXACT, False),
        (FailOn.ROUNDING, Verdict.ROUNDING, True),
        (FailOn.ROUNDING, Verdict.QUARANTINE, True),
    ],
)
def test_fail_on_is_a_severity_threshold(fail_on: FailOn, verdict: Verdict, fails: bool) -> None:
    """Only a mismatch fails by default; --fail-on rounding fails anything not exact."""
    assert fail_on.fails(verdict) is fails


def test_worst_picks_the_most_severe_verdict() -> None:
    """A project's verdict is its worst total's."""
    assert worst([Verdict.EXACT, Verdict.MISMATCH, Verdict.ROUNDING]) is Verdict.MISMATCH
    assert worst([]) is Verdict.EXACT
