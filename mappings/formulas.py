"""Formulas over globals (A24): syntax check and the symbols a formula uses, without evaluating anything.

A formula is a number or arithmetic (+ - * / %, parentheses, unary signs) over numbers and global symbols,
with or without a leading '='. The target evaluates it; the bridge only proves it is well formed and names
known symbols, so the target recomputes the same values the legacy surface showed.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from typing import Final

from mappings.errors import ErrorCode, MappingError
from mappings.refs import RecordRef

SYMBOL: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_TOKEN = re.compile(r"\s*(?:(?P<number>\d+(?:\.\d*)?|\.\d+)|(?P<symbol>[A-Za-z_][A-Za-z0-9_]*)|(?P<op>[-+*/%()]))")


def symbols_of(formula: str, ref: RecordRef, field: str) -> frozenset[str]:
    """The global symbols a well-formed formula uses; FORMULA_SYNTAX when it is not well formed."""
    text = formula[1:] if formula.startswith("=") else formula
    tokens: list[tuple[str, str]] = []
    position = 0
    stripped = text.rstrip()
    while position < len(stripped):
        match = _TOKEN.match(stripped, position)
        if match is None or match.end() == position:
            raise MappingError(ErrorCode.FORMULA_SYNTAX, ref, field, formula, f"unexpected text at {position + 1}")
        kind = match.lastgroup or "op"
        tokens.append((kind, match.group(kind)))
        position = match.end()
    if not _well_formed(tokens):
        raise MappingError(ErrorCode.FORMULA_SYNTAX, ref, field, formula)
    return frozenset(value for kind, value in tokens if kind == "symbol")


def _well_formed(tokens: list[tuple[str, str]]) -> bool:
    """Operands and binary operators alternate, unary signs prefix operands, parentheses balance."""
    depth = 0
    expect_operand = True
    for kind, value in tokens:
        if expect_operand:
            if kind in ("number", "symbol"):
                expect_operand = False
            elif value == "(":
                depth += 1
            elif value not in ("+", "-"):
                return False
        elif value == ")":
            depth -= 1
            if depth < 0:
                return False
        elif kind == "op" and value not in ("(",):
            expect_operand = value != "%"
        else:
            return False
    return depth == 0 and not expect_operand and bool(tokens)


def check_formula(formula: str, known: Collection[str], ref: RecordRef, field: str) -> frozenset[str]:
    """A formula's symbols, all of them known globals; FORMULA_UNKNOWN_SYMBOL names the first unknown one."""
    used = symbols_of(formula, ref, field)
    unknown = sorted(used - set(known))
    if unknown:
        raise MappingError(ErrorCode.FORMULA_UNKNOWN_SYMBOL, ref, field, formula, f"unknown symbol {unknown[0]!r}")
    return used


def cyclic_symbols(dependencies: Mapping[str, frozenset[str]]) -> frozenset[str]:
    """Symbols that depend on themselves through a chain of globals (A24: cycles are an error)."""
    cyclic: set[str] = set()
    for start in dependencies:
        pending = list(dependencies[start])
        seen: set[str] = set()
        while pending:
            current = pending.pop()
            if current == start:
                cyclic.add(start)
                break
            if current in seen:
                continue
            seen.add(current)
            pending.extend(dependencies.get(current, ()))
    return frozenset(cyclic)
