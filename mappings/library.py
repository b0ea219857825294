"""Library items (A12, A18, A24): legacy project fringes, globals and phase currencies become workspace
library items plus per-project copies.

The rule for each kind, stated once: items are keyed by name (fringe code, global symbol, currency code).
The workspace item is the target's existing item of that name when there is one (reused; a ``conflict``
note when its values differ), else it is created from the first project (legacy project id order) that
defines it. Every project then adds its copy and patches it to its own legacy values, so each project
computes what it computed before whatever the workspace item holds.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Generic, Required, TypedDict, TypeVar

from mappings.enums import FRINGE_UNITS
from mappings.errors import ErrorCode, MappingError
from mappings.formulas import SYMBOL, cyclic_symbols, symbols_of
from mappings.kinds import Kind
from mappings.lines import phase_number
from mappings.money import currency_code, parse_decimal
from mappings.notes import Note, conflict
from mappings.records import Fringe, Global, Phase, ProjectBudget
from mappings.refs import RecordRef
from mappings.shapes import check_refusal
from mappings.text import DESCRIPTION_LIMIT, NAME_LIMIT, check_text, required_text

W = TypeVar("W", bound=Mapping[str, object])

Existing = Mapping[str, tuple[str, Mapping[str, object]]]
"""The target's workspace items of one kind: name -> (v1 id, its fields as read)."""

WINNER_RULE = "the first project (by legacy id) that defines the item sets the workspace item (A15, A18)"


class FringeWrite(TypedDict, total=False):
    name: Required[str]
    description: str | None
    calculationType: Required[str]
    rate: float | int | str | None
    cutoff: float | int | str | None


class GlobalWrite(TypedDict, total=False):
    symbol: Required[str]
    description: str | None
    formula: str | None
    unit: str | None


class CurrencyWrite(TypedDict, total=False):
    code: Required[str]
    symbol: str | None
    rateToUSD: float | int | str | None


@dataclass(frozen=True, slots=True)
class WorkspaceItem(Generic[W]):
    """One workspace item: created from ``body``, or the target's ``existing_id`` reused."""

    kind: str
    name: str
    ref: RecordRef
    body: W
    existing_id: str | None = None


@dataclass(frozen=True, slots=True)
class ProjectCopy(Generic[W]):
    """A project's copy of a workspace item (crosswalk: kind, project, legacy id), patched to ``patch``."""

    kind: str
    name: str
    ref: RecordRef
    patch: W


@dataclass(frozen=True, slots=True)
class LibraryPlan(Generic[W]):
    items: tuple[WorkspaceItem[W], ...] = ()
    copies: tuple[ProjectCopy[W], ...] = ()
    quarantined: tuple[MappingError, ...] = ()
    notes: tuple[Note, ...] = ()


def _differences(ref: RecordRef, ours: Mapping[str, object], theirs: Mapping[str, object], rule: str) -> list[Note]:
    """A conflict note per field whose value differs (numbers compared as exact decimals, 15 == 15.0)."""
    return [
        conflict(ref, name, str(value), str(theirs.get(name)), rule)
        for name, value in ours.items()
        if _comparable(value) != _comparable(theirs.get(name))
    ]


def _comparable(value: object) -> object:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return Decimal(str(value))
    return value


def _plan(
    kind: str,
    entries: Iterable[tuple[RecordRef, str, W]],
    existing: Existing,
    errors: Sequence[MappingError] = (),
) -> LibraryPlan[W]:
    """Dedupe by name (first entry wins; callers pass entries in legacy project order) and decide reuse."""
    items: dict[str, WorkspaceItem[W]] = {}
    copies: list[ProjectCopy[W]] = []
    notes: list[Note] = []
    for ref, name, body in entries:
        copies.append(ProjectCopy(kind, name, ref, body))
        first = items.get(name)
        if first is not None:
            notes.extend(_differences(ref, body, first.body, WINNER_RULE))
            continue
        found = existing.get(name)
        if found is not None:
            notes.extend(_differences(ref, body, found[1], "the target's item is reused; the project copy is patched"))
        items[name] = WorkspaceItem(kind, name, ref, body, found[0] if found else None)
    return LibraryPlan(tuple(items.values()), tuple(copies), tuple(errors), tuple(notes))


def plan_fringes(budgets: Sequence[ProjectBudget], existing: Existing) -> LibraryPlan[FringeWrite]:
    """Fringes: code -> name, units -> calculationType, rate and cutoff carried unchanged (A12)."""
    entries: list[tuple[RecordRef, str, FringeWrite]] = []
    errors: list[MappingError] = []
    for budget in sorted(budgets, key=lambda b: b.project_id):
        for fringe in budget.fringes:
            try:
                check_refusal(fringe)
                entries.append(fringe_body(budget.project_id, fringe))
            except MappingError as error:
                errors.append(error)
    return _plan(Kind.FRINGE, entries, existing, errors)


def fringe_body(project_id: str, fringe: Fringe) -> tuple[RecordRef, str, FringeWrite]:
    ref = RecordRef(Kind.FRINGE, fringe.id, project_id)
    name = required_text(fringe.code, ref, "code", limit=NAME_LIMIT)
    check_text(fringe.description, ref, "description", limit=DESCRIPTION_LIMIT)
    calculation = FRINGE_UNITS.get(fringe.units)
    if calculation is None:
        raise MappingError(ErrorCode.FRINGE_UNITS_UNKNOWN, ref, "units", fringe.units)
    parse_decimal(fringe.rate, ref, "rate")
    if fringe.cutoff is not None:
        parse_decimal(fringe.cutoff, ref, "cutoff")
    body = FringeWrite(
        name=name,
        description=fringe.description,
        calculationType=calculation,
        rate=phase_number(fringe.rate, (), ref, "rate"),
        cutoff=phase_number(fringe.cutoff, (), ref, "cutoff"),
    )
    return ref, name, body


def plan_globals(budgets: Sequence[ProjectBudget], existing: Existing) -> LibraryPlan[GlobalWrite]:
    """Globals (A24): symbol, description, formula, unit; a formula names only the project's own symbols."""
    entries: list[tuple[RecordRef, str, GlobalWrite]] = []
    errors: list[MappingError] = []
    for budget in sorted(budgets, key=lambda b: b.project_id):
        good, bad = check_globals(budget.project_id, budget.globals_)
        errors.extend(bad)
        for item in good:
            ref = RecordRef(Kind.GLOBAL, item.id, budget.project_id)
            symbol = item.symbol or ""
            body = GlobalWrite(symbol=symbol, description=item.description, formula=item.formula, unit=item.unit)
            entries.append((ref, symbol, body))
    return _plan(Kind.GLOBAL, entries, existing, errors)


def check_globals(project_id: str, items: Sequence[Global]) -> tuple[tuple[Global, ...], tuple[MappingError, ...]]:
    """The project's globals that can migrate; a bad symbol, formula or cycle quarantines that global."""
    errors: dict[str, MappingError] = {}
    uses: dict[str, frozenset[str]] = {}
    symbols = {g.symbol for g in items if g.symbol}
    for item in items:
        ref = RecordRef(Kind.GLOBAL, item.id, project_id)
        try:
            check_refusal(item)
            if item.symbol is None or not SYMBOL.fullmatch(item.symbol):
                raise MappingError(ErrorCode.GLOBAL_SYMBOL_INVALID, ref, "symbol", item.symbol)
            check_text(item.description, ref, "description", limit=DESCRIPTION_LIMIT)
            used = symbols_of(item.formula, ref, "formula") if item.formula else frozenset()
            unknown = sorted(used - symbols)
            if unknown:
                raise MappingError(
                    ErrorCode.FORMULA_UNKNOWN_SYMBOL, ref, "formula", item.formula, f"unknown symbol {unknown[0]!r}"
                )
            uses[item.symbol] = used
        except MappingError as error:
            errors[item.id] = error
    cyclic = cyclic_symbols(uses)
    for item in items:
        if item.symbol in cyclic and item.id not in errors:
            ref = RecordRef(Kind.GLOBAL, item.id, project_id)
            errors[item.id] = MappingError(ErrorCode.GLOBAL_CYCLE, ref, "formula", item.formula)
    return tuple(g for g in items if g.id not in errors), tuple(errors[k] for k in sorted(errors))


def plan_currencies(phases: Mapping[str, Sequence[Phase]], existing: Existing) -> LibraryPlan[CurrencyWrite]:
    """Phase currencies (A09) -> currencies with rateToUSD = exchangeRate; one copy per project and code.

    Two phases of one project in the same currency share the project's copy: the first phase (legacy
    order) sets its rate, and a differing rate on a later phase is reported.
    """
    entries: list[tuple[RecordRef, str, CurrencyWrite]] = []
    errors: list[MappingError] = []
    notes: list[Note] = []
    for project_id in sorted(phases):
        first: dict[str, CurrencyWrite] = {}
        for phase in phases[project_id]:
            if phase.refusal is not None or phase.currency is None or phase.currency.code is None:
                continue  # a refused phase is quarantined (once) with the phases
            ref = RecordRef(Kind.CURRENCY, phase.id, project_id)
            try:
                code = currency_code(phase.currency.code, ref, "currency.code")
                rate = phase.currency.exchange_rate
                if rate is not None and parse_decimal(rate, ref, "currency.exchangeRate") <= 0:
                    raise MappingError(ErrorCode.EXCHANGE_RATE_INVALID, ref, "currency.exchangeRate", rate)
            except MappingError as error:
                errors.append(error)
                continue
            body = CurrencyWrite(code=code, symbol=phase.currency.symbol)
            if rate is not None:
                body["rateToUSD"] = phase_number(rate, (), ref, "currency.exchangeRate")
            if code in first:
                notes.extend(_differences(ref, body, first[code], "the project's first phase in it sets the rate"))
                continue
            first[code] = body
            # The crosswalk keys a project currency copy by its code: phases find it by code.
            entries.append((RecordRef(Kind.CURRENCY, code, project_id), code, body))
    plan = _plan(Kind.CURRENCY, entries, existing, errors)
    return LibraryPlan(plan.items, plan.copies, plan.quarantined, tuple(notes) + plan.notes)
