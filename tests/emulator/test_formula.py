"""The safe formula evaluator: arithmetic in Decimal over globals, nothing else."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given

from bridge.emulator.core import formula
from bridge.emulator.core.errors import FormulaError
from tests.strategies import finite_decimals


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("=SHOOT_DAYS * 2", Decimal(70)),
        ("SHOOT_DAYS / 5", Decimal(7)),
        ("=-(PREP_WEEKS + 1) * 0.1", Decimal("-0.7")),
        ("= 0.1 + 0.2", Decimal("0.3")),
        ("+3 - -2", Decimal(5)),
    ],
)
def test_formulas_evaluate_in_decimal(text: str, expected: Decimal) -> None:
    """Numbers, + - * /, parentheses, unary signs and symbols evaluate exactly (0.1 + 0.2 is 0.3)."""
    assert formula.evaluate(text, {"SHOOT_DAYS": Decimal(35), "PREP_WEEKS": Decimal(6)}) == expected


@pytest.mark.parametrize(
    "text",
    ["__import__('os')", "a.b", "2 ** 8", "1 if 1 else 2", "[1]", "'text'", "x < 2", "f(1)", "", "=", "True"],
)
def test_anything_but_arithmetic_is_refused(text: str) -> None:
    """Calls, attributes, powers, comparisons, strings and empty formulas raise FormulaError, never run."""
    with pytest.raises(FormulaError):
        formula.evaluate(text, {"a": Decimal(1), "x": Decimal(1)})


def test_division_by_zero_and_unknown_names_are_formula_errors() -> None:
    """A failing formula names the problem instead of raising a Python error."""
    with pytest.raises(FormulaError, match="divides by zero"):
        formula.evaluate("1 / (A - A)", {"A": Decimal(2)})
    with pytest.raises(FormulaError, match="MISSING"):
        formula.evaluate("MISSING * 2", {})


def test_globals_resolve_through_each_other_and_cycles_are_refused() -> None:
    """A global may use other globals; a cycle is an error that names it."""
    values = formula.evaluate_globals({"SHOOT_WEEKS": "SHOOT_DAYS / 5", "SHOOT_DAYS": "35", "EMPTY": None})
    assert values == {"SHOOT_WEEKS": Decimal(7), "SHOOT_DAYS": Decimal(35), "EMPTY": Decimal(0)}
    with pytest.raises(FormulaError, match="A -> B -> A"):
        formula.evaluate_globals({"A": "B + 1", "B": "A * 2"})


def test_dependents_follow_references_transitively() -> None:
    """The dependents of a global are every global that reaches it through references."""
    formulas = {"A": "1", "B": "A * 2", "C": "B + 1", "D": "5"}
    assert formula.dependents(formulas, "A") == {"B", "C"}
    assert formula.dependents(formulas, "D") == set()


def test_rollup_formulas_reference_phases_by_id() -> None:
    """@id and @{id} both name phases; the rollup evaluates over their values."""
    text = "@phs_a - @{phs-b}"
    assert formula.phase_refs(text) == ["phs_a", "phs-b"]
    assert formula.evaluate_rollup(text, {"phs_a": Decimal(10), "phs-b": Decimal(4)}) == Decimal(6)


@given(finite_decimals, finite_decimals)
def test_sum_and_difference_match_decimal_arithmetic(a: Decimal, b: Decimal) -> None:
    """Evaluating A + B and A - B over any finite decimals equals Decimal arithmetic."""
    env = {"A": a, "B": b}
    assert formula.evaluate("A + B", env) == a + b
    assert formula.evaluate("=A - B", env) == a - b
