"""What quarantined records add to each legacy total: ancestors, subtotals (A26) and rollups."""

from __future__ import annotations

from decimal import Decimal

from bridge.verify.convert import PhaseRate, as_counted, convert_amount
from bridge.verify.quarantine import contributions
from mappings.records import BudgetLine

USD = PhaseRate("USD", Decimal(1), "USD")
ROOT = "prj"


def _line(line_id: str, parent: str | None, position: int, kind: str = "line") -> BudgetLine:
    return BudgetLine(id=line_id, type=kind, parentId=parent, position=position)


def test_a_quarantined_line_adds_to_every_ancestor_and_to_the_subtotal_summing_it() -> None:
    """A quarantined line under account a1 counts in a1, the project, and the subtotal after it, not the one before."""
    lines = [
        _line("a1", None, 0, "account"),
        _line("s0", "a1", 0, "subtotal"),
        _line("bad", "a1", 1),
        _line("ok", "a1", 2),
        _line("s1", "a1", 3, "subtotal"),
    ]
    parents = {"a1": ROOT, "s0": "a1", "bad": "a1", "ok": "a1", "s1": "a1"}
    figures = {"bad": {"phs_e": convert_amount(Decimal("12.34"), USD)}}
    found = contributions(
        ROOT,
        lines,
        parents=parents,
        figures=figures,
        quarantined_lines={"bad"},
        quarantined_actuals=[],
        rollups={},
    )
    assert {key: found.amounts[key]["phs_e"] for key in ("a1", ROOT, "s0", "s1", "ok")} == {
        "a1": 1234,
        ROOT: 1234,
        "s0": 0,
        "s1": 1234,
        "ok": 0,
    }


def test_a_rollup_phase_takes_its_formula_over_the_inputs_contributions() -> None:
    """A quarantined actual of 5.00 is in legacy's actual phase, so legacy's 'working - actual' is 5.00 lower."""
    lines = [_line("a1", None, 0, "account"), _line("l1", "a1", 0)]
    found = contributions(
        ROOT,
        lines,
        parents={"a1": ROOT, "l1": "a1"},
        figures={},
        quarantined_lines=set(),
        quarantined_actuals=[("l1", {"phs_act": convert_amount(Decimal(5), USD)})],
        rollups={"phs_var": [(1, "phs_work"), (-1, "phs_act")]},
    )
    assert found.amounts[ROOT]["phs_act"] == 500
    assert found.amounts["l1"]["phs_act"] == 500
    assert found.amounts[ROOT]["phs_var"] == -500


def test_amounts_are_counted_as_the_legacy_surface_reads_them() -> None:
    """A39: exponent notation counts at its value; separators, NaN and empty text count as nothing."""
    assert [as_counted(v) for v in ("1e3", "1,000.00", float("nan"), "", None, 2.5)] == [
        Decimal(1000),
        0,
        0,
        0,
        0,
        Decimal("2.5"),
    ]


def test_a_total_beyond_2_53_is_compared_with_its_float_spacing_as_precision() -> None:
    """2^53 + 1 is not refused: it converts, carrying the float's spacing (2 units = 200 cents) as precision."""
    converted = convert_amount(Decimal(2**53 + 1), USD)
    assert converted.minor == (2**53 + 1) * 100
    assert converted.precision == 200
