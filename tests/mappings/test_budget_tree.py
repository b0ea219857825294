"""The budget tree: parents first, levels written in a deterministic order, quarantine of whole subtrees."""

from __future__ import annotations

from collections import Counter

from hypothesis import given
from hypothesis import strategies as st

from mappings.budget import MAX_DEPTH, build_tree, chunks
from mappings.errors import ErrorCode, MappingError
from mappings.kinds import Kind
from mappings.records import BudgetLine, ProjectBudget
from mappings.refs import RecordRef
from tests.mappings.budget_levels import LINES_PER_BULK, wanted_lines
from tests.strategies import budget_trees, messy_budget_lines


@given(lines=budget_trees())
def test_every_valid_node_is_kept_and_parents_come_first(lines: list[BudgetLine]) -> None:
    """A valid tree loses nothing, and each node appears after its parent."""
    tree = build_tree("p1", lines)
    assert not tree.quarantined
    order = [line.id for line in tree.ordered]
    assert sorted(order) == sorted(line.id for line in lines)
    index = {node_id: i for i, node_id in enumerate(order)}
    for line in tree.ordered:
        if line.parent_id is not None:
            assert index[line.parent_id] < index[line.id]


@given(lines=messy_budget_lines(), limit=st.integers(min_value=1, max_value=LINES_PER_BULK))
def test_bulks_are_bounded_and_sent_only_after_their_parents(lines: list[BudgetLine], limit: int) -> None:
    """The engine writes the tree a level at a time, each level's new lines cut into bulks of at most the
    limit: no bulk exceeds it; each line's parent is in an earlier level; kept + quarantined = input."""
    wanted = wanted_lines(ProjectBudget(project_id="p1"), lines)
    parent = {line.id: line.parent_id for line in lines}  # a kept line's id is unique
    sent: set[str] = set()
    for level in wanted.groups:
        bulks = chunks([want.legacy_id for want in level], limit)  # as engine.apply cuts a level's new lines
        for bulk in bulks:
            assert 1 <= len(bulk) <= limit
            assert all(parent[line_id] is None or parent[line_id] in sent for line_id in bulk)
        sent |= {line_id for bulk in bulks for line_id in bulk}
    quarantined = {error.ref.legacy_id for error in wanted.refused}
    assert sent.isdisjoint(quarantined)
    assert sent | quarantined == {line.id for line in lines}


@given(lines=messy_budget_lines())
def test_the_same_source_gives_the_same_levels_in_any_input_order(lines: list[BudgetLine]) -> None:
    """The levels, and the order within each, depend on the tree, not on the order the legacy surface listed
    the nodes in."""
    budget = ProjectBudget(project_id="p1")
    first = wanted_lines(budget, lines).groups
    again = wanted_lines(budget, list(reversed(lines))).groups
    assert [[w.legacy_id for w in level] for level in first] == [[w.legacy_id for w in level] for level in again]


def test_a_quarantined_account_takes_its_whole_subtree() -> None:
    """Children of a bad account cannot stand without it: all are quarantined, naming their parent."""
    lines = [
        BudgetLine(id="root", type="account"),
        BudgetLine(id="bad", type="account", parentId="root"),
        BudgetLine(id="sub", type="account", parentId="bad"),
        BudgetLine(id="leaf", type="line", parentId="sub"),
        BudgetLine(id="ok", type="line", parentId="root"),
    ]
    tree = build_tree("p1", lines, {"bad": _error("bad")})
    assert [line.id for line in tree.ordered] == ["root", "ok"]
    codes = {e.ref.legacy_id: e.code for e in tree.quarantined}
    assert codes == {
        "bad": ErrorCode.TEXT_EMPTY,
        "sub": ErrorCode.TREE_ANCESTOR_QUARANTINED,
        "leaf": ErrorCode.TREE_ANCESTOR_QUARANTINED,
    }


def test_siblings_keep_their_legacy_order() -> None:
    """Within a parent, lines go out by their legacy position, so the v1 budget reads the same."""
    lines = [BudgetLine(id="root", type="account")] + [
        BudgetLine(id=f"l{i}", type="line", parentId="root", position=10 - i) for i in range(5)
    ]
    tree = build_tree("p1", lines)
    assert [line.id for line in tree.ordered] == ["root", "l4", "l3", "l2", "l1", "l0"]


@given(items=st.lists(st.integers(), max_size=300), limit=st.integers(min_value=1, max_value=500))
def test_chunks_keep_order_and_bound_size(items: list[int], limit: int) -> None:
    """Cutting a list into bulks keeps every item once, in order, none bigger than the limit."""
    parts = chunks(items, limit)
    assert [x for part in parts for x in part] == items
    assert all(1 <= len(part) <= limit for part in parts)


def _error(line_id: str) -> MappingError:
    return MappingError(ErrorCode.TEXT_EMPTY, RecordRef(Kind.LINE, line_id, "p1"), "description", "")


def test_a_five_thousand_long_cycle_is_quarantined_with_short_messages() -> None:
    """Every member of a long parent cycle is tree.cycle; each message names a few members, not all 5,000."""
    size = 5_000
    ids = [f"a{n}" for n in range(size)]
    lines = [BudgetLine(id=i, type="account", parentId=ids[n - 1]) for n, i in enumerate(ids)]
    tree = build_tree("p1", [BudgetLine(id="root", type="account"), *lines])
    assert [line.id for line in tree.ordered] == ["root"]
    assert {e.code for e in tree.quarantined} == {ErrorCode.TREE_CYCLE}
    assert len(tree.quarantined) == size
    assert max(len(e.message) for e in tree.quarantined) < 600
    assert "cycle of 5000" in tree.quarantined[0].message


def test_a_tree_deeper_than_the_limit_keeps_its_top_and_holds_back_the_rest() -> None:
    """Levels 0..MAX_DEPTH-1 are kept; the node at MAX_DEPTH is tree.too_deep, everything under it waits."""
    depth = 5_000
    lines = [BudgetLine(id=f"a{n}", type="account", parentId=f"a{n - 1}" if n else None) for n in range(depth)]
    tree = build_tree("p1", lines)
    assert len(tree.ordered) == MAX_DEPTH
    codes = Counter(e.code for e in tree.quarantined)
    assert codes == {ErrorCode.TREE_TOO_DEEP: 1, ErrorCode.TREE_ANCESTOR_QUARANTINED: depth - MAX_DEPTH - 1}
    (too_deep,) = (e for e in tree.quarantined if e.code is ErrorCode.TREE_TOO_DEEP)
    assert too_deep.ref.legacy_id == f"a{MAX_DEPTH}"
