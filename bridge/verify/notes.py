"""Budget line notes: each migrated line's v1 `notes` against the note its legacy line carries (A75)."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from bridge.clients.models import BudgetLine as V1Line
from bridge.verify.schema import LibraryDifference
from mappings.budget import line_ref
from mappings.kinds import Kind
from mappings.lines import carried_note
from mappings.records import BudgetLine

FIELD = "notes"


def note_differences(
    project_id: str, lines: Iterable[BudgetLine], v1_lines: Iterable[V1Line], lookup: Callable[[str, str], str | None]
) -> list[LibraryDifference]:
    """Each line on both sides whose v1 note is not the one its legacy note carries (a line missing on v1 is
    the tree comparison's to report)."""
    on_v1 = {line.id: (line.model_extra or {}).get(FIELD) or None for line in v1_lines}
    differences = []
    for line in lines:
        v1_id = lookup(Kind.LINE, line.id)
        if v1_id is None or v1_id not in on_v1:
            continue
        expected, _ = carried_note(line, line_ref(project_id, line.id))
        found = on_v1[v1_id]
        if expected != found:
            differences.append(
                LibraryDifference(
                    kind="line",
                    legacy_id=line.id,
                    v1_id=v1_id,
                    name=line.description or line.id,
                    field=FIELD,
                    legacy=expected,
                    v1=found if isinstance(found, str) or found is None else str(found),
                )
            )
    return differences
