"""Budget phases (A08, A09, A25): every legacy phase, hidden ones included, in an order v1 can create.

- The legacy project's first estimate phase maps onto the new project's default estimate phase (a PATCH of
  ``defaultBudget.estimatePhaseId``), so the target never holds a second, empty estimate.
- Other estimate, actual and committed phases are created; rollups come last, because their
  ``rollupFormula`` names v1 phase ids (``@{id}``) that exist only once their inputs are created.
- A phase's currency becomes ``baseCurrencyId``: the project's copy of that currency (see
  ``mappings.library.plan_currencies``), found through the crosswalk by code.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Required, TypedDict

from mappings.enums import PHASE_TYPES, ROLLUP_OPERATIONS
from mappings.errors import ErrorCode, MappingError
from mappings.kinds import Kind
from mappings.money import currency_code
from mappings.records import Phase
from mappings.refs import Lookup, RecordRef
from mappings.results import Mapped
from mappings.shapes import check_refusal
from mappings.text import ALIAS_LIMIT, NAME_LIMIT, check_text, required_text


class PhaseCreate(TypedDict, total=False):
    """POST /projects/{p}/budget/phases (A08)."""

    name: Required[str]
    type: Required[str]
    alias: str
    isHidden: bool
    baseCurrencyId: str
    rollupFormula: str


class PhasePatch(TypedDict, total=False):
    """PATCH of the default estimate phase: the fields a create would have set."""

    name: str
    alias: str
    isHidden: bool
    baseCurrencyId: str


@dataclass(frozen=True, slots=True)
class PhasePlan:
    """A project's phases in creation order: the default-estimate patch, plain creates, then rollups."""

    default_estimate: Phase | None
    plain: tuple[Phase, ...]
    rollups: tuple[Phase, ...]
    quarantined: tuple[MappingError, ...]


def phase_ref(project_id: str, phase_id: str) -> RecordRef:
    return RecordRef(Kind.PHASE, phase_id, project_id)


def plan_phases(project_id: str, phases: Sequence[Phase]) -> PhasePlan:
    """Check every phase and order them; a rollup over a quarantined phase is quarantined too."""
    good: list[Phase] = []
    errors: list[MappingError] = []
    seen: dict[str, int] = {}
    for phase in phases:
        seen[phase.id] = seen.get(phase.id, 0) + 1
    for phase in phases:
        try:
            check_refusal(phase)
            if seen[phase.id] > 1:
                raise MappingError(ErrorCode.DUPLICATE_ID, phase_ref(project_id, phase.id), "id", phase.id)
            _check_phase(project_id, phase, seen)
            good.append(phase)
        except MappingError as error:
            errors.append(error)
    default = next((p for p in good if p.type == "estimate"), None)
    plain = tuple(p for p in good if p.type != "rollup" and p is not default)
    rollups, stuck = _rollup_order(project_id, [p for p in good if p.type == "rollup"], {p.id for p in good})
    return PhasePlan(default, plain, rollups, tuple(errors) + stuck)


def _check_phase(project_id: str, phase: Phase, known: dict[str, int]) -> None:
    ref = phase_ref(project_id, phase.id)
    if phase.type not in PHASE_TYPES:
        raise MappingError(ErrorCode.PHASE_TYPE_UNKNOWN, ref, "type", phase.type)
    required_text(phase.name or phase.alias or phase.name, ref, "name", limit=NAME_LIMIT)
    check_text(phase.alias, ref, "alias", limit=ALIAS_LIMIT)
    if phase.currency is not None and phase.currency.code is not None:
        currency_code(phase.currency.code, ref, "currency.code")
    if phase.type == "rollup":
        if phase.operation not in ROLLUP_OPERATIONS:
            raise MappingError(ErrorCode.ROLLUP_OPERATION_UNKNOWN, ref, "operation", phase.operation)
        if not phase.phase_ids:
            raise MappingError(ErrorCode.ROLLUP_NO_INPUTS, ref, "phaseIds", phase.phase_ids)
        missing = [p for p in phase.phase_ids if p not in known]
        if missing:
            raise MappingError(ErrorCode.ROLLUP_INPUT_UNKNOWN, ref, "phaseIds", missing[0])


def _rollup_order(
    project_id: str, rollups: list[Phase], good: set[str]
) -> tuple[tuple[Phase, ...], tuple[MappingError, ...]]:
    """Rollups after their inputs (rollups may sum rollups); one over a bad or cyclic input is quarantined."""
    placed: list[Phase] = []
    ready = good - {p.id for p in rollups}
    pending = list(rollups)
    while pending:
        progress = [p for p in pending if all(i in ready for i in p.phase_ids)]
        if not progress:
            break
        placed.extend(progress)
        ready |= {p.id for p in progress}
        pending = [p for p in pending if p not in progress]
    stuck = tuple(
        MappingError(
            ErrorCode.ROLLUP_INPUT_UNKNOWN,
            phase_ref(project_id, p.id),
            "phaseIds",
            next(i for i in p.phase_ids if i not in ready),
            "the input is quarantined or part of a rollup cycle",
        )
        for p in pending
    )
    return tuple(placed), stuck


def _currency_id(project_id: str, phase: Phase, lookup: Lookup) -> str | None:
    if phase.currency is None or phase.currency.code is None:
        return None  # A09: actual/committed/rollup phases resolve their currency from a reference phase
    ref = phase_ref(project_id, phase.id)
    code = currency_code(phase.currency.code, ref, "currency.code")
    currency_id = lookup(Kind.CURRENCY, project_id, code)
    if currency_id is None:
        raise MappingError(ErrorCode.UNRESOLVED_REFERENCE, ref, "currency.code", code, "project currency not added")
    return currency_id


def phase_body(project_id: str, phase: Phase, lookup: Lookup) -> Mapped[PhaseCreate]:
    """The create body of a non-default phase; a rollup's formula needs its inputs' v1 ids."""
    ref = phase_ref(project_id, phase.id)
    body = PhaseCreate(name=phase.name or phase.alias or "", type=phase.type, isHidden=phase.is_hidden)
    if phase.alias:
        body["alias"] = phase.alias
    currency_id = _currency_id(project_id, phase, lookup)
    if currency_id is not None:
        body["baseCurrencyId"] = currency_id
    if phase.type == "rollup":
        body["rollupFormula"] = rollup_formula(project_id, phase, lookup)
    return Mapped(ref, body)


def default_estimate_patch(project_id: str, phase: Phase, lookup: Lookup) -> Mapped[PhasePatch]:
    """The PATCH that turns the new project's default estimate phase into the legacy first estimate phase."""
    ref = phase_ref(project_id, phase.id)
    body = PhasePatch(name=phase.name or phase.alias or "", isHidden=phase.is_hidden)
    if phase.alias:
        body["alias"] = phase.alias
    currency_id = _currency_id(project_id, phase, lookup)
    if currency_id is not None:
        body["baseCurrencyId"] = currency_id
    return Mapped(ref, body)


def rollup_formula(project_id: str, phase: Phase, lookup: Lookup) -> str:
    """sum -> ``@{a} + @{b}``; difference -> ``@{a} - @{b} - ...`` (first input minus the others)."""
    ref = phase_ref(project_id, phase.id)
    operands: list[str] = []
    for input_id in phase.phase_ids:
        v1_id = lookup(Kind.PHASE, project_id, input_id)
        if v1_id is None:
            raise MappingError(ErrorCode.UNRESOLVED_REFERENCE, ref, "phaseIds", input_id, "input phase not created")
        operands.append("@{" + v1_id + "}")
    operator = " + " if phase.operation == "sum" else " - "
    return operator.join(operands)
