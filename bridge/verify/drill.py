"""Drilling a differing total down the account tree to the deepest accounts and lines that differ.

The legacy side of every node is known up front (one legacy budget read holds every line's totals); the
v1 side is read lazily, branch by branch, through a ``BranchReader``: a node's children are read only when
the node itself was read, and a child is descended into only when it differs. A reconciled project
therefore costs one read of its top-level accounts, and a difference costs one read per differing branch.

A node is reported for a phase when it differs in that phase and none of its children does: that is the
deepest place the difference can be pinned on (a line, or an account whose own roll-up is off).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Protocol

from bridge.verify.compare import NOTHING, Explanation, Verdict, classify


class Presence(StrEnum):
    """Where a node exists: on both sides, only in the legacy tree, only on v1 (unknown to the crosswalk), or
    only on v1 as written for a record the source no longer holds (removed at source, left on the target)."""

    BOTH = "both"
    MISSING = "missing"
    UNEXPECTED = "unexpected"
    REMOVED = "removed_at_source"


# The line types a v1 budget document lists (the published ComputedLineType): a subtotal or a markup shows only
# in its parent's values, so a document read never finds one and the drill does not call it missing (its
# parent's total already carries any difference it makes); where a read gives its totals (the topsheet's
# totals by path), it is compared like any other node.
LISTED_KINDS = frozenset({"account", "line", "credit", "fringe"})


@dataclass(slots=True)
class Node:
    """One account or line of a project's budget tree, with its totals per phase on both sides.

    ``legacy`` holds the converted legacy totals (workspace minor units) by v1 phase id; ``v1`` holds the
    service's totals once the branch was read (None before). ``key`` is the legacy line id, or the v1 id for
    a node that exists only on v1.
    """

    key: str
    kind: str
    code: str | None
    path: str | None
    description: str | None
    v1_id: str | None
    legacy: dict[str, int] = field(default_factory=dict)
    v1: dict[str, int] | None = None
    children: list[Node] = field(default_factory=list)
    presence: Presence = Presence.BOTH

    @property
    def is_account(self) -> bool:
        return self.kind == "account"

    @property
    def listed(self) -> bool:
        """Whether a v1 budget document lists this node (see LISTED_KINDS)."""
        return self.kind in LISTED_KINDS


@dataclass(frozen=True, slots=True)
class ExtraNode:
    """A v1 line under a read branch that the crosswalk does not know (a duplicate or a stray write)."""

    v1_id: str
    parent_v1_id: str | None
    kind: str
    code: str | None
    path: str | None
    description: str | None
    values: dict[str, int]


@dataclass(frozen=True, slots=True)
class Branch:
    """What one read returns: v1 totals of the known nodes by v1 id (absent = not found on v1), and strays."""

    values: Mapping[str, dict[str, int]]
    extras: tuple[ExtraNode, ...] = ()


class BranchReader(Protocol):
    """Reads the v1 totals of a node's children (and anything v1 holds under the node the crosswalk lacks)."""

    async def read(self, node: Node) -> Branch: ...


Explain = Callable[[Node, str], Explanation]
"""The explanation allowed for one node in one phase (rounding bound, quarantined contribution)."""


@dataclass(frozen=True, slots=True)
class Finding:
    """The deepest node differing in one phase, with both figures and its verdict."""

    node: Node
    phase_id: str
    legacy: int | None
    v1: int | None
    verdict: Verdict

    @property
    def difference(self) -> int | None:
        if self.legacy is None or self.v1 is None:
            return None
        return self.v1 - self.legacy


def verdict_of(node: Node, phase_id: str, explain: Explain) -> Verdict:
    """The verdict of one node in one phase, given its v1 values were read."""
    return classify(*figures_of(node, phase_id), explain(node, phase_id))


def figures_of(node: Node, phase_id: str) -> tuple[int | None, int | None]:
    """(legacy, v1) of a node in a phase; None where the node is absent on that side or v1 was not read."""
    legacy = None if node.presence is Presence.UNEXPECTED else node.legacy.get(phase_id, 0)
    if node.presence is Presence.MISSING or node.v1 is None:
        return legacy, None
    return legacy, node.v1.get(phase_id, 0)


async def drill(
    root: Node, phase_ids: list[str], reader: BranchReader, explain: Explain = lambda _n, _p: NOTHING
) -> list[Finding]:
    """Every deepest differing node under ``root`` (whose own v1 totals are already set), per phase."""
    findings: list[Finding] = []
    await _visit(root, phase_ids, reader, explain, findings)
    return [f for f in findings if f.node is not root]


async def _visit(node: Node, phase_ids: list[str], reader: BranchReader, explain: Explain, out: list[Finding]) -> None:
    if node.children:
        if node.presence is Presence.BOTH:
            _apply(node, await reader.read(node))
        elif node.presence is Presence.MISSING:
            for child in node.children:
                child.presence = Presence.MISSING
    differing_children: set[str] = set()
    for child in node.children:
        if not child.listed and child.v1 is None:
            continue
        failing = [p for p in phase_ids if verdict_of(child, p, explain) is Verdict.MISMATCH]
        differing_children.update(failing)
        if failing:
            await _visit(child, failing, reader, explain, out)
    here = [p for p in phase_ids if p not in differing_children and verdict_of(node, p, explain) is Verdict.MISMATCH]
    if node.presence is not Presence.BOTH:
        # A node on one side only is named in the phases where it carries money (once if it carries none).
        here = [p for p in here if any(figures_of(node, p))] or here[:1]
    for phase_id in here:
        legacy, v1 = figures_of(node, phase_id)
        out.append(Finding(node, phase_id, legacy, v1, Verdict.MISMATCH))


def _apply(node: Node, branch: Branch) -> None:
    """Set the children's v1 totals from a read, mark the ones v1 lacks, and graft the strays in."""
    for child in node.children:
        if child.presence is not Presence.BOTH:
            continue
        values = branch.values.get(child.v1_id or "")
        if values is not None:
            child.v1 = values
        elif child.listed:
            child.presence = Presence.MISSING
        # else: a subtotal or markup a budget document cannot show; compared where a read gives its totals
    by_v1_id = _index(node)
    for extra in branch.extras:
        parent = by_v1_id.get(extra.parent_v1_id or "", node)
        if any(c.v1_id == extra.v1_id for c in parent.children):
            continue
        parent.children.append(
            Node(
                key=extra.v1_id,
                kind=extra.kind,
                code=extra.code,
                path=extra.path,
                description=extra.description,
                v1_id=extra.v1_id,
                v1=extra.values,
                presence=Presence.UNEXPECTED,
            )
        )


def _index(node: Node) -> dict[str, Node]:
    """Every node of a subtree by its v1 id, so a stray can be grafted under its v1 parent."""
    found: dict[str, Node] = {}
    stack = [node]
    while stack:
        current = stack.pop()
        if current.v1_id:
            found[current.v1_id] = current
        stack.extend(current.children)
    return found
