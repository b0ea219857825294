"""Budget lines to v1 create bodies, with phase data keyed by v1 phase id (A10, A13, A14, A19).

Two steps, so a plan can be made before anything exists on the target:

1. ``plan_budget`` (``plan_lines`` over the nodes alone) checks every node's own fields (description,
   phase-data numbers and formulas, markup values) and builds the validated, ordered tree
   (``mappings.budget``); a bad node is quarantined with its subtree and never reaches a request.
2. The engine writes the tree one depth level at a time (a level's parents are the level before) and maps
   each line with ``line_body`` once its parent has a v1 id (the crosswalk ``Lookup``); a line whose parent
   has none is refused. References that cannot be resolved and are optional (contact, fringes, a phase that
   was itself quarantined) are reported as notes, never guessed; values v1 publishes no write for (a line's
   tags, a markup's excludeFringes) are "not carried" notes.

Phase-data numbers are carried unchanged (A10): the same number the legacy surface sent, or its formula.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Collection, Sequence
from typing import Required, TypedDict

from mappings.budget import BudgetTree, build_tree, line_ref
from mappings.enums import MARKUP_TYPES
from mappings.errors import ErrorCode, MappingError
from mappings.formulas import check_formula
from mappings.kinds import Kind
from mappings.money import parse_decimal
from mappings.notes import Note, NoteKind, not_carried, unassigned
from mappings.records import LineFields, PhaseFields, ProjectBudget, RawNumber
from mappings.refs import WORKSPACE, Lookup, RecordRef
from mappings.results import Mapped
from mappings.shapes import check_refusal
from mappings.text import NAME_LIMIT, TAG_NAME_LIMIT, check_text

PhaseNumber = float | int | str | None
"""A phase-data cell as sent to v1: the legacy number unchanged, or an '='-formula string (A10)."""


class PhaseDataWrite(TypedDict, total=False):
    """v1 BudgetLinePhaseDataWrite (A19); a markup is rate + unit percent|flat (A13). The published shape has
    no markup-only field, so a markup's excludeFringes is not carried."""

    rate: PhaseNumber
    quantity: PhaseNumber
    multiplier: PhaseNumber
    unit: str | None
    fringeIds: list[str]


class LineCreate(TypedDict, total=False):
    """v1 BudgetLineCreate (A19). It has no tags: v1 publishes no write for a line's tags."""

    description: Required[str]
    type: Required[str]
    accountId: str
    parentId: str
    contactId: str
    lineColor: str
    markupAccountFilter: str
    notes: str
    phaseData: dict[str, PhaseDataWrite]


BULK_KIND = "line.bulk"
"""The Idempotency-Key kind of a budget-line bulk create (``bridge.engine.kinds``)."""


def plan_budget(budget: ProjectBudget, symbols: Collection[str]) -> BudgetTree:
    """Validate every node's fields, then the tree; ``symbols`` are the project's global symbols."""
    return plan_lines(budget.project_id, budget.lines, symbols)


def plan_lines(project_id: str, lines: Sequence[LineFields], symbols: Collection[str]) -> BudgetTree:
    """``plan_budget`` over the nodes alone (full ``BudgetLine`` records or their compact form)."""
    rejected: dict[str, MappingError] = {}
    for line in lines:
        try:
            check_line(project_id, line, symbols)
        except MappingError as error:
            rejected.setdefault(line.id, error)
    return build_tree(project_id, lines, rejected)


def check_line(project_id: str, line: LineFields, symbols: Collection[str]) -> None:
    """Raise the first catalogue error in the node's own fields (a row refused as read first)."""
    check_refusal(line)
    ref = line_ref(project_id, line.id)
    check_text(line.description, ref, "description", limit=NAME_LIMIT)
    for tag in line.tags:
        check_text(tag, ref, "tags", limit=TAG_NAME_LIMIT, required=True)
    for phase_key, data in sorted(line.phase_data.items()):
        where = f"phaseData.{phase_key}"
        if line.type == "markup":
            if data.type not in MARKUP_TYPES:
                raise MappingError(ErrorCode.MARKUP_TYPE_UNKNOWN, ref, f"{where}.type", data.type)
            phase_number(data.amount, symbols, ref, f"{where}.amount")
            continue
        for name in ("rate", "quantity", "multiplier"):
            phase_number(getattr(data, name), symbols, ref, f"{where}.{name}")


def phase_number(value: RawNumber, symbols: Collection[str], ref: RecordRef, field: str) -> PhaseNumber:
    """The cell as v1 gets it: a finite number unchanged, a formula over known globals, or None (absent)."""
    if value is None:
        return None
    if isinstance(value, str) and value.strip().startswith("="):
        check_formula(value.strip(), symbols, ref, field)
        return value.strip()
    if isinstance(value, float) and math.isfinite(value) and abs(value) <= 2**53:
        return value
    number = parse_decimal(value, ref, field)
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    # A plain decimal sent as text: the number it denotes, with no arithmetic on the way.
    return float(number) if "." in str(value) else int(number)


def line_body(project_id: str, line: LineFields, lookup: Lookup, symbols: Collection[str]) -> Mapped[LineCreate]:
    """One line's create body with every reference resolved through the crosswalk."""
    ref = line_ref(project_id, line.id)
    notes: list[Note] = []
    body = LineCreate(description=line.description or "", type=line.type)
    if line.account_id is not None:
        body["accountId"] = line.account_id
    if line.parent_id is not None:
        parent = lookup(Kind.LINE, project_id, line.parent_id)
        if parent is None:
            raise MappingError(ErrorCode.UNRESOLVED_REFERENCE, ref, "parentId", line.parent_id, "parent not created")
        body["parentId"] = parent
    if line.contact_id is not None:
        contact = lookup(Kind.CONTACT, WORKSPACE, line.contact_id)
        if contact is None:
            notes.append(unassigned(ref, "contactId", line.contact_id, "contact has no v1 id"))
        else:
            body["contactId"] = contact
    if line.type == "subtotal" and line.color is not None:
        body["lineColor"] = line.color
    # A13: the account selection becomes a comma-separated list of codes. The filter is a string, never
    # null, so "every sibling" is the field left out (A46).
    if line.type == "markup" and line.include_accounts:
        body["markupAccountFilter"] = ",".join(line.include_accounts)
    notes.extend(not_carried(ref, "tags", tag) for tag in line.tags)
    carried, refused = carried_note(line, ref)
    if carried is not None:
        body["notes"] = carried
    if refused is not None:
        notes.append(refused)
    phase_data = {}
    for phase_key, data in sorted(line.phase_data.items()):
        phase_id = lookup(Kind.PHASE, project_id, phase_key)
        if phase_id is None:
            notes.append(unassigned(ref, f"phaseData.{phase_key}", phase_key, "phase has no v1 id"))
            continue
        phase_data[phase_id] = phase_write(
            project_id, line, phase_key, data, lookup=lookup, symbols=symbols, notes=notes
        )
    if phase_data:
        body["phaseData"] = phase_data
    return Mapped(ref, body, tuple(notes))


def carried_note(line: LineFields, ref: RecordRef) -> tuple[str | None, Note | None]:
    """The note a line's body carries (its plain text, A75), or None with the reason it is not carried."""
    if line.note_text is None:
        return None, None
    try:
        # v1 publishes no length for a line's notes; a note refused as text leaves its line written.
        return check_text(line.note_text, ref, "note.text", limit=sys.maxsize), None
    except MappingError as error:
        return None, Note(NoteKind.NOT_CARRIED, ref, "note", detail=f"{error.code}: the line is written without it")


def phase_write(
    project_id: str,
    line: LineFields,
    phase_key: str,
    data: PhaseFields,
    *,
    lookup: Lookup,
    symbols: Collection[str],
    notes: list[Note],
) -> PhaseDataWrite:
    """One phase's cells for one line; markup values follow A13."""
    ref = line_ref(project_id, line.id)
    where = f"phaseData.{phase_key}"
    if line.type == "markup":
        if data.exclude_fringes is not None:
            notes.append(not_carried(ref, f"{where}.excludeFringes", str(data.exclude_fringes).lower()))
        return PhaseDataWrite(rate=phase_number(data.amount, symbols, ref, f"{where}.amount"), unit=data.type)
    write = PhaseDataWrite()
    for name in ("rate", "quantity", "multiplier"):
        cell = phase_number(getattr(data, name), symbols, ref, f"{where}.{name}")
        if cell is not None:
            write[name] = cell
    if data.unit is not None:
        write["unit"] = data.unit
    if data.fringes:
        fringe_ids: list[str] = []
        for fringe in data.fringes:
            fringe_id = lookup(Kind.FRINGE, project_id, fringe)
            if fringe_id is None:
                notes.append(unassigned(ref, f"{where}.fringes", fringe, "fringe has no v1 project copy", "A19"))
            else:
                fringe_ids.append(fringe_id)
        write["fringeIds"] = fringe_ids
    return write
