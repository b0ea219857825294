"""A safe arithmetic evaluator for globals, '='-cells and rollup formulas, in Decimal (never ``eval``).

Grammar (A24): numbers, ``+ - * /``, parentheses, unary minus/plus and symbols (globals' names). A leading
'=' is allowed and ignored. Anything else (calls, attributes, powers, comparisons) is refused with a
``FormulaError`` naming the construct. Rollup formulas reference phases as ``@phaseId`` or ``@{phaseId}``.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping
from decimal import Decimal, DivisionByZero, InvalidOperation
from functools import lru_cache

from bridge.emulator.core.errors import FormulaError

PHASE_REF = re.compile(r"@\{([\w-]+)\}|@([\w-]+)")


@lru_cache(maxsize=65536)
def parse(text: str) -> ast.expr:
    """The checked syntax tree of a formula; cached because the same formula repeats across many lines."""
    source = text.strip().removeprefix("=").strip()
    if not source:
        raise FormulaError("formula", "is empty; write a number or an expression such as SHOOT_DAYS * 2")
    try:
        tree = ast.parse(source, mode="eval")
    except SyntaxError as exc:
        raise FormulaError("formula", f"{text!r} is not a valid expression ({exc.msg})") from exc
    for node in ast.walk(tree.body):
        if not isinstance(
            node,
            ast.BinOp | ast.UnaryOp | ast.Constant | ast.Name | ast.Load | ast.Add | ast.Sub | ast.Mult | ast.Div,
        ) and not isinstance(node, ast.USub | ast.UAdd):
            raise FormulaError("formula", f"{text!r} uses {type(node).__name__}; only + - * / and names are allowed")
        if isinstance(node, ast.Constant) and (isinstance(node.value, bool) or not isinstance(node.value, int | float)):
            raise FormulaError("formula", f"{text!r} contains {node.value!r}; only numbers are allowed")
    return tree.body


@lru_cache(maxsize=65536)
def symbols(text: str) -> frozenset[str]:
    """The names a formula refers to."""
    return frozenset(node.id for node in ast.walk(parse(text)) if isinstance(node, ast.Name))


def is_formula(value: object) -> bool:
    """Whether a stored cell holds a formula rather than a number."""
    return isinstance(value, str) and value.startswith("=")


def evaluate(text: str, env: Mapping[str, Decimal]) -> Decimal:
    """The value of a formula with names looked up in ``env``; an unknown name or 1/0 is a FormulaError."""
    return _eval(parse(text), env, text)


def _eval(node: ast.expr, env: Mapping[str, Decimal], text: str) -> Decimal:
    if isinstance(node, ast.Constant):
        return Decimal(str(node.value))
    if isinstance(node, ast.Name):
        if node.id not in env:
            raise FormulaError("formula", f"{text!r} refers to {node.id!r}, which is not defined")
        return env[node.id]
    if isinstance(node, ast.UnaryOp):
        operand = _eval(node.operand, env, text)
        return -operand if isinstance(node.op, ast.USub) else operand
    if isinstance(node, ast.BinOp):
        left, right = _eval(node.left, env, text), _eval(node.right, env, text)
        if isinstance(node.op, ast.Add):
            return left + right
        if isinstance(node.op, ast.Sub):
            return left - right
        if isinstance(node.op, ast.Mult):
            return left * right
        try:
            return left / right
        except (DivisionByZero, InvalidOperation) as exc:
            raise FormulaError("formula", f"{text!r} divides by zero") from exc
    raise FormulaError("formula", f"{text!r} cannot be evaluated")


def evaluate_globals(formulas: Mapping[str, str | None]) -> dict[str, Decimal]:
    """Every global's value (None formula = 0), resolving references between globals; a cycle is refused."""
    values: dict[str, Decimal] = {}
    visiting: list[str] = []

    def resolve(symbol: str) -> Decimal:
        if symbol in values:
            return values[symbol]
        if symbol in visiting:
            cycle = " -> ".join([*visiting[visiting.index(symbol) :], symbol])
            raise FormulaError("formula", f"globals refer to each other in a cycle ({cycle}); break the cycle")
        if symbol not in formulas:
            raise FormulaError("formula", f"{visiting[-1]!r} refers to {symbol!r}, which is not a global")
        visiting.append(symbol)
        text = formulas[symbol]
        env = {name: resolve(name) for name in symbols(text)} if text else {}
        values[symbol] = evaluate(text, env) if text else Decimal(0)
        visiting.pop()
        return values[symbol]

    for name in formulas:
        resolve(name)
    return values


def dependents(formulas: Mapping[str, str | None], symbol: str) -> frozenset[str]:
    """The globals whose value depends, directly or through other globals, on ``symbol``."""
    found: set[str] = set()
    frontier = {symbol}
    while frontier:
        frontier = {name for name, text in formulas.items() if text and name not in found and symbols(text) & frontier}
        found |= frontier
    return frozenset(found)


def _phase_name(phase_id: str) -> str:
    return "phase_" + phase_id.replace("-", "_")


def phase_refs(text: str) -> list[str]:
    """The phase ids a rollup formula references, in order of appearance."""
    return list(_phase_refs(text))


@lru_cache(maxsize=1024)
def _phase_refs(text: str) -> tuple[str, ...]:
    # Totals ask once per node and rollup phase, always of the same few formulas.
    return tuple(braced or bare for braced, bare in PHASE_REF.findall(text))


def rollup_expression(text: str) -> str:
    """A rollup formula with its ``@phase`` references turned into plain names the evaluator accepts."""
    return PHASE_REF.sub(lambda m: _phase_name(m.group(1) or m.group(2)), text)


def evaluate_rollup(text: str, phase_values: Mapping[str, Decimal]) -> Decimal:
    """A rollup formula's value given each referenced phase's value."""
    coefficients = linear_rollup(text)
    if coefficients is not None:  # the common sum/difference shape, without walking the tree per node
        return sum((c * phase_values.get(ref, Decimal(0)) for ref, c in coefficients), Decimal(0))
    env = {_phase_name(ref): phase_values.get(ref, Decimal(0)) for ref in phase_refs(text)}
    return evaluate(rollup_expression(text), env)


@lru_cache(maxsize=1024)
def linear_rollup(text: str) -> tuple[tuple[str, Decimal], ...] | None:
    """A rollup made only of + and - over phase references as (phase id, +1/-1) pairs; None otherwise."""
    names = {_phase_name(ref): ref for ref in phase_refs(text)}
    terms: list[tuple[str, Decimal]] = []

    def collect(node: ast.expr, sign: Decimal) -> bool:
        if isinstance(node, ast.Name) and node.id in names:
            terms.append((names[node.id], sign))
            return True
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
            return collect(node.operand, -sign if isinstance(node.op, ast.USub) else sign)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add | ast.Sub):
            right_sign = sign if isinstance(node.op, ast.Add) else -sign
            return collect(node.left, sign) and collect(node.right, right_sign)
        return False

    return tuple(terms) if collect(parse(rollup_expression(text)), Decimal(1)) else None
