"""Notes a mapping attaches to what it emits: what changed on the way, so the plan and the report can say so.

A note is not an error: the record still migrates. It records rounding introduced by a money conversion,
a lossy enum mapping (old value, new value), a library conflict (the target's item differs), a tag
assignment or reference that could not be carried, a value v1 publishes no write for (not carried), and the
assumptions (bridge/assumptions.py ids) used.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from enum import StrEnum

from mappings.printable import escaped
from mappings.refs import RecordRef


class NoteKind(StrEnum):
    ROUNDING = "rounding"
    LOSSY = "lossy"
    CONFLICT = "conflict"
    UNASSIGNED = "unassigned"
    NOT_CARRIED = "not_carried"


NO_PUBLISHED_WRITE = "no published write"


@dataclass(frozen=True, slots=True)
class Note:
    """One change a mapping made, on one field of one record."""

    kind: NoteKind
    ref: RecordRef
    field: str
    old: str | None = None
    new: str | None = None
    detail: str = ""
    rounding: Decimal | None = None
    assumption: str | None = None

    def __post_init__(self) -> None:
        # A note is shown (plan, terminal, report), never sent: source text in it is kept printable, so a
        # bidi override or an escape sequence in a carried value cannot reorder or repaint what is shown.
        for name in ("field", "old", "new", "detail"):
            value = getattr(self, name)
            if isinstance(value, str) and not value.isprintable():
                object.__setattr__(self, name, escaped(value))

    def __str__(self) -> str:
        change = f" {_quoted(self.old)} -> {_quoted(self.new)}" if self.old is not None or self.new is not None else ""
        extra = f": {self.detail}" if self.detail else ""
        cite = f" [{self.assumption}]" if self.assumption else ""
        return f"{self.kind} {self.ref} field {self.field!r}{change}{extra}{cite}"


def _quoted(value: str | None) -> str:
    # Quoted as is (already printable): repr would double the backslash of every escape.
    return "None" if value is None else f"'{value}'"


def lossy(ref: RecordRef, field: str, old: str, new: str, assumption: str | None = None) -> Note:
    """A value that had to change because the target has no exact equivalent."""
    return Note(NoteKind.LOSSY, ref, field, old=old, new=new, detail="no exact v1 equivalent", assumption=assumption)


def rounding(ref: RecordRef, field: str, old: Decimal, new: Decimal, delta: Decimal) -> Note:
    """A money value moved by rounding to its currency's minor unit (delta = new - old, in major units)."""
    return Note(NoteKind.ROUNDING, ref, field, old=str(old), new=str(new), rounding=delta)


def unassigned(ref: RecordRef, field: str, value: str, why: str, assumption: str | None = None) -> Note:
    """A reference (tag, contact, phase data) the run cannot carry to the target; reported, not silent."""
    return Note(NoteKind.UNASSIGNED, ref, field, old=value, detail=why, assumption=assumption)


def not_carried(ref: RecordRef, field: str, value: str) -> Note:
    """A source value v1 publishes no way to write (a budget line's tags, a markup's excludeFringes): listed
    by the plan and accounted for by verify, never silently dropped."""
    return Note(NoteKind.NOT_CARRIED, ref, field, old=value, detail=NO_PUBLISHED_WRITE)


def conflict(ref: RecordRef, field: str, ours: str, theirs: str, rule: str) -> Note:
    """The target (or an earlier project) already holds a different value; ``rule`` states which one wins."""
    return Note(NoteKind.CONFLICT, ref, field, old=theirs, new=ours, detail=rule)
