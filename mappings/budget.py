"""The budget tree: validation, parents-before-children order and each node's depth.

Input is the flat list of legacy budget nodes (system idMode: ``parent_id`` links, ``position`` among
siblings). A node that cannot stand (duplicate id, unknown type, self-parent, cycle, missing parent, parent
that is not an account, or a field error found by the line mapper) is quarantined together with its whole
subtree, since children cannot be placed without their parent; every other node is kept. The good nodes
are ordered breadth-first (depth, then the parent's order, then position, then id): the same source always
yields the same order, and a node's parent sits one depth level above it, so the engine writes the tree a
level at a time, each level once its parents have v1 ids. ``chunks`` cuts a list into bulks.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final, TypeVar

from mappings.enums import LINE_TYPES
from mappings.errors import ErrorCode, MappingError
from mappings.kinds import Kind
from mappings.records import LineFields
from mappings.refs import RecordRef

T = TypeVar("T")

MAX_DEPTH: Final = 32
"""Levels of a budget tree the bridge migrates (0 is the top level): a node deeper is quarantined with its
subtree (tree.too_deep). Real budgets nest a handful of levels; each level costs a round of bulk requests, and
a depth the source controls must never drive recursion or an unbounded run (proposed assumption)."""


CYCLE_SHOWN: Final = 4


def line_ref(project_id: str, line_id: str) -> RecordRef:
    return RecordRef(Kind.LINE, line_id, project_id)


@dataclass(frozen=True, slots=True)
class BudgetTree:
    """A validated budget: the good nodes in order, their depths, and what was quarantined."""

    project_id: str
    ordered: tuple[LineFields, ...]
    depth: Mapping[str, int]
    quarantined: tuple[MappingError, ...] = field(default=())


def build_tree(
    project_id: str, lines: Iterable[LineFields], rejected: Mapping[str, MappingError] | None = None
) -> BudgetTree:
    """Validate and order a project's budget nodes; ``rejected`` holds field errors found on single nodes."""
    nodes = tuple(lines)
    errors: dict[str, MappingError] = {}
    counts = Counter(node.id for node in nodes)
    quarantined = [
        MappingError(ErrorCode.DUPLICATE_ID, line_ref(project_id, node.id), "id", node.id)
        for node in nodes
        if counts[node.id] > 1
    ]
    by_id = {node.id: node for node in nodes if counts[node.id] == 1}
    for node_id, node in by_id.items():
        problem = (rejected or {}).get(node_id) or _node_problem(project_id, node, by_id, counts)
        if problem is not None:
            errors[node_id] = problem

    children: dict[str | None, list[LineFields]] = defaultdict(list)
    for node in by_id.values():
        if node.id not in errors:
            children[node.parent_id].append(node)
    for siblings in children.values():
        siblings.sort(key=lambda n: (n.position, n.id))

    ordered: list[LineFields] = []
    depth: dict[str, int] = {}
    level = list(children.get(None, ()))
    current = 0
    while level:
        if current == MAX_DEPTH:
            for node in level:
                detail = f"depth {current}, the bridge migrates {MAX_DEPTH} levels"
                ref = line_ref(project_id, node.id)
                errors[node.id] = MappingError(ErrorCode.TREE_TOO_DEEP, ref, "parentId", node.parent_id, detail)
            break
        next_level: list[LineFields] = []
        for node in level:
            depth[node.id] = current
            ordered.append(node)
            next_level.extend(children.get(node.id, ()))
        level = next_level
        current += 1

    errors.update(_unreachable(project_id, by_id, errors, depth))
    quarantined.extend(errors[node_id] for node_id in sorted(errors))
    return BudgetTree(project_id, tuple(ordered), depth, tuple(quarantined))


def _node_problem(
    project_id: str, node: LineFields, by_id: Mapping[str, LineFields], counts: Counter[str]
) -> MappingError | None:
    """What is wrong with the node itself or its link to its parent, if anything."""
    ref = line_ref(project_id, node.id)
    if node.type not in LINE_TYPES:
        return MappingError(ErrorCode.LINE_TYPE_UNKNOWN, ref, "type", node.type)
    parent_id = node.parent_id
    if parent_id is None:
        return None
    if parent_id == node.id:
        return MappingError(ErrorCode.TREE_SELF_PARENT, ref, "parentId", parent_id)
    if counts[parent_id] > 1:
        return MappingError(
            ErrorCode.TREE_ANCESTOR_QUARANTINED, ref, "parentId", parent_id, "the parent's id is duplicated"
        )
    parent = by_id.get(parent_id)
    if parent is None:
        return MappingError(ErrorCode.TREE_MISSING_PARENT, ref, "parentId", parent_id)
    if parent.type != "account":
        return MappingError(
            ErrorCode.TREE_PARENT_NOT_ACCOUNT, ref, "parentId", parent_id, f"the parent is a {parent.type}"
        )
    return None


def _unreachable(
    project_id: str, by_id: Mapping[str, LineFields], errors: Mapping[str, MappingError], placed: Mapping[str, int]
) -> dict[str, MappingError]:
    """Errors for nodes not placed under a root: members of a parent cycle, or below a quarantined node."""
    found: dict[str, MappingError] = {}
    for start in sorted(by_id):
        if start in placed or start in errors or start in found:
            continue
        path: list[str] = []
        on_path: set[str] = set()
        current: str | None = start
        while current is not None and current not in on_path and current not in errors and current not in found:
            path.append(current)
            on_path.add(current)
            current = by_id[current].parent_id
        cycle: Sequence[str] = path[path.index(current) :] if current is not None and current in on_path else ()
        # A cycle thousands long is named by its first few members, not spelled out on each of them.
        shown = " -> ".join([*cycle[:CYCLE_SHOWN], cycle[0] if len(cycle) <= CYCLE_SHOWN else "…"]) if cycle else ""
        for node_id in cycle:
            found[node_id] = MappingError(
                ErrorCode.TREE_CYCLE,
                line_ref(project_id, node_id),
                "parentId",
                by_id[node_id].parent_id,
                f"cycle of {len(cycle)}: {shown}",
            )
        for node_id in path:
            if node_id not in found:
                parent_id = by_id[node_id].parent_id
                found[node_id] = MappingError(
                    ErrorCode.TREE_ANCESTOR_QUARANTINED, line_ref(project_id, node_id), "parentId", parent_id
                )
    return found


def chunks(items: Sequence[T], limit: int) -> tuple[tuple[T, ...], ...]:
    """Consecutive runs of at most ``limit`` items, in order: how bulk requests are cut deterministically."""
    if limit < 1:
        raise ValueError(f"a bulk holds at least one entry, not {limit}")
    return tuple(tuple(items[start : start + limit]) for start in range(0, len(items), limit))
