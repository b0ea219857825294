"""Budget lines as the engine plans and maps them, for the tests of the line mappings.

``bridge.engine.wanted.lines`` plans a project's nodes (``mappings.lines.plan_lines``) and hands them on one
tree level at a time, a level's parents being the level before; ``engine.apply`` maps each line of a level
(``mappings.lines.line_body``) when the level's turn comes, with the crosswalk as it is then, and cuts the
level's new lines into bulks.
"""

from __future__ import annotations

from collections.abc import Sequence

from bridge.clients.v1_requests import BY_ID
from bridge.engine.kinds import spec
from bridge.engine.source import ProjectLibrary, WorkspaceSource
from bridge.engine.wanted import PLACEHOLDER, Desired, LibraryPlans, View, Want, Wanted, lines
from mappings.errors import MappingError
from mappings.kinds import Kind
from mappings.records import LineFields, Project, ProjectBudget
from mappings.refs import Lookup

LINES_PER_BULK = BY_ID[spec(Kind.LINE).create].bulk_limit
"""At most this many new lines of a level go in one create request."""


def _nothing_written(kind: str, scope: str, legacy_id: str) -> None:
    return None


def wanted_lines(budget: ProjectBudget, nodes: Sequence[LineFields] | None = None) -> Wanted:
    """The engine's plan of the budget's lines, or of ``nodes`` read for it (compact ones, say); the formulas
    may name the budget's globals."""
    project = ProjectLibrary(Project(id=budget.project_id), budget.phases, budget, ())
    source = WorkspaceSource((), (), (project,))
    tree = tuple(budget.lines if nodes is None else nodes)
    view = View(source, LibraryPlans.of(source), project, PLACEHOLDER + budget.project_id, tree)
    return lines(view, _nothing_written)


def mapped_levels(wanted: Wanted, lookup: Lookup) -> tuple[list[list[Desired]], list[MappingError]]:
    """Each level's lines mapped, level after level: their create bodies, and the lines the mappings refused."""
    levels: list[list[Desired]] = []
    refused: list[MappingError] = []
    for group in wanted.groups:
        outcomes = [_outcome(want, lookup) for want in group]
        levels.append([line for line in outcomes if isinstance(line, Desired)])
        refused += [error for error in outcomes if isinstance(error, MappingError)]
    return levels, refused


def _outcome(want: Want, lookup: Lookup) -> Desired | MappingError:
    try:
        return want.mapped(lookup)
    except MappingError as error:
        return error
