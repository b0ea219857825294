"""The kinds of object a migration writes and the order they must be written in.

Every kind names the v1 write that creates it, how many records one request may carry (the bulk limits of the
v1 document), whether it lives once per workspace or once per project, and the kinds whose v1 ids it needs
before its requests can be built. ``ORDER`` is the one dependency order of a run; ``stages()`` groups it into
the waves a run executes (kinds in one wave are independent of each other).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from mappings.kinds import Kind


class Scope(StrEnum):
    """Where a kind's legacy ids are unique: across the workspace or within one project."""

    WORKSPACE = "workspace"
    PROJECT = "project"


@dataclass(frozen=True, slots=True)
class KindSpec:
    """What a run needs to know about one kind to schedule, batch and describe its writes."""

    kind: Kind
    scope: Scope
    bulk_limit: int
    create_route: str
    needs: tuple[Kind, ...]
    label: str


# The bulk limits are the v1 document's: 100 lines per bulk create, 500 transactions per bulk (A16).
LINE_BULK_LIMIT = 100
TRANSACTION_BULK_LIMIT = 500

SPECS: tuple[KindSpec, ...] = (
    KindSpec(Kind.SPACE, Scope.WORKSPACE, 1, "POST /spaces", (), "spaces"),
    KindSpec(Kind.CONTACT, Scope.WORKSPACE, 1, "POST /contacts", (), "contacts"),
    KindSpec(Kind.CURRENCY, Scope.WORKSPACE, 1, "POST /library/currencies", (), "currencies"),
    KindSpec(Kind.FRINGE, Scope.WORKSPACE, 1, "POST /library/fringes", (), "fringes"),
    KindSpec(Kind.GLOBAL, Scope.WORKSPACE, 1, "POST /library/globals", (), "globals"),
    KindSpec(Kind.TAG, Scope.WORKSPACE, 1, "POST /library/tags", (), "tags"),
    KindSpec(Kind.PROJECT, Scope.WORKSPACE, 1, "POST /projects", (Kind.SPACE, Kind.TAG), "projects"),
    KindSpec(
        Kind.PROJECT_CURRENCY,
        Scope.PROJECT,
        1,
        "POST /projects/{p}/library/currencies",
        (Kind.PROJECT, Kind.CURRENCY),
        "project currencies",
    ),
    KindSpec(
        Kind.PROJECT_FRINGE,
        Scope.PROJECT,
        1,
        "POST /projects/{p}/library/fringes",
        (Kind.PROJECT, Kind.FRINGE),
        "project fringes",
    ),
    KindSpec(
        Kind.PROJECT_GLOBAL,
        Scope.PROJECT,
        1,
        "POST /projects/{p}/library/globals",
        (Kind.PROJECT, Kind.GLOBAL),
        "project globals",
    ),
    KindSpec(
        Kind.PHASE,
        Scope.PROJECT,
        1,
        "POST /projects/{p}/budget/phases",
        (Kind.PROJECT, Kind.PROJECT_CURRENCY),
        "phases",
    ),
    KindSpec(
        Kind.LINE,
        Scope.PROJECT,
        LINE_BULK_LIMIT,
        "POST /projects/{p}/budget/lines/bulk",
        (Kind.PHASE, Kind.PROJECT_FRINGE, Kind.PROJECT_GLOBAL, Kind.CONTACT, Kind.TAG),
        "budget lines",
    ),
    KindSpec(
        Kind.ACTUAL,
        Scope.PROJECT,
        TRANSACTION_BULK_LIMIT,
        "POST /transactions/bulk",
        (Kind.LINE, Kind.CONTACT),
        "transactions",
    ),
    KindSpec(
        Kind.SPLIT,
        Scope.PROJECT,
        1,
        "POST /transactions/{t}/items",
        (Kind.ACTUAL,),
        "transaction items",
    ),
)

_BY_KIND = {spec.kind: spec for spec in SPECS}


def spec(kind: Kind) -> KindSpec:
    """The scheduling facts of one kind."""
    return _BY_KIND[kind]


def stages() -> tuple[tuple[Kind, ...], ...]:
    """The kinds grouped into waves: every kind's needs are in earlier waves (Kahn's layering).

    Read from ``SPECS`` at each call (a run derives its order when it starts). A cycle in ``SPECS`` is a
    programming error and raises ValueError naming the kinds left over.
    """
    by_kind = {s.kind: s for s in SPECS}
    done: set[Kind] = set()
    waves: list[tuple[Kind, ...]] = []
    remaining = [s.kind for s in SPECS]
    while remaining:
        wave = tuple(k for k in remaining if all(need in done for need in by_kind[k].needs))
        if not wave:
            raise ValueError(f"kinds {sorted(remaining)} depend on each other in a cycle; fix engine.steps.SPECS")
        waves.append(wave)
        done.update(wave)
        remaining = [k for k in remaining if k not in done]
    return tuple(waves)


ORDER: tuple[Kind, ...] = tuple(kind for wave in stages() for kind in wave)

# Split items go out right behind each transaction bulk, as soon as it is booked (memory holds a few bulks, not
# a project's actuals), so the transactions' writer writes them too: SPLIT is written with ACTUAL.
WRITTEN_WITH: dict[Kind, Kind] = {Kind.SPLIT: Kind.ACTUAL}


def waves(scope: Scope) -> tuple[tuple[Kind, ...], ...]:
    """The waves a run executes for ``scope``'s kinds, each kind by its own writer (``WRITTEN_WITH`` aside).

    The workspace's waves all run before any project's, and projects run side by side. ValueError when
    ``SPECS`` make that order wrong: a workspace kind needing a project kind, or a kind written with another
    whose needs are not all written before that other kind's wave.
    """
    by_kind = {s.kind: s for s in SPECS}
    for s in SPECS:
        late = [n for n in s.needs if s.scope is Scope.WORKSPACE and by_kind[n].scope is Scope.PROJECT]
        if late:
            raise ValueError(f"workspace kind {s.kind} needs project kinds {late}; fix engine.steps.SPECS")
    done: set[Kind] = set()
    found: list[tuple[Kind, ...]] = []
    for stage in stages():
        for kind, writer in WRITTEN_WITH.items():
            if writer in stage and not set(by_kind[kind].needs) <= done | {writer}:
                raise ValueError(f"{kind} is written with {writer} but needs kinds written after it; fix SPECS")
        done.update(stage)
        wave = tuple(k for k in stage if by_kind[k].scope is scope and k not in WRITTEN_WITH)
        if wave:
            found.append(wave)
    return tuple(found)


# A project's copy of a library item is keyed in the crosswalk under the item's kind with the project as
# scope (how the mappings look it up); only the journal and the plan tell the copy step apart.
_CROSSWALK_KIND = {
    Kind.PROJECT_CURRENCY: Kind.CURRENCY.value,
    Kind.PROJECT_FRINGE: Kind.FRINGE.value,
    Kind.PROJECT_GLOBAL: Kind.GLOBAL.value,
}


def crosswalk_kind(kind: Kind) -> str:
    """The crosswalk kind a step's records are stored under."""
    return _CROSSWALK_KIND.get(kind, kind.value)
