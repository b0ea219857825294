"""The drill-down: deepest differing accounts and lines, reading only the branches that differ."""

from __future__ import annotations

from decimal import Decimal

import pytest

from bridge.verify.compare import Explanation, Verdict
from bridge.verify.drill import Branch, ExtraNode, Node, Presence, drill

PHASES = ["phs_est", "phs_work"]


def _line(key: str, est: int, work: int) -> Node:
    return Node(
        key, "line", "1110", f"/1000/1100/{key}", f"line {key}", f"v1_{key}", {"phs_est": est, "phs_work": work}
    )


def _account(key: str, code: str, path: str, children: list[Node]) -> Node:
    totals = {p: sum(c.legacy[p] for c in children) for p in PHASES}
    return Node(key, "account", code, path, f"account {code}", f"v1_{key}", totals, children=children)


def _budget() -> Node:
    sub = _account("a1100", "1100", "/1000/1100", [_line("l1", 100, 120), _line("l2", 50, 50)])
    top = _account("a1000", "1000", "/1000", [sub])
    other = _account("a2000", "2000", "/2000", [_line("l3", 7, 9)])
    root = _account("root", "", "", [top, other])
    root.v1 = dict(root.legacy)
    return root


class FakeV1:
    """The v1 side as a table of totals by v1 id, counting which branches were read."""

    def __init__(self, root: Node) -> None:
        self.values: dict[str, dict[str, int]] = {}
        self.parents: dict[str, str] = {}
        self.extras: list[ExtraNode] = []
        self.reads: list[str] = []
        stack = [root]
        while stack:
            node = stack.pop()
            for child in node.children:
                self.values[child.v1_id or ""] = dict(child.legacy)
                self.parents[child.v1_id or ""] = node.v1_id or ""
                stack.append(child)

    def change(self, v1_id: str, phase: str, delta: int) -> None:
        """Apply a change to a node and every ancestor, as the service's roll-up would."""
        current: str | None = v1_id
        while current and current in self.values:
            self.values[current][phase] += delta
            current = self.parents.get(current)

    async def read(self, node: Node) -> Branch:
        self.reads.append(node.key)
        children = {c.v1_id for c in node.children}
        return Branch(
            {k: v for k, v in self.values.items() if k in children},
            tuple(e for e in self.extras if e.parent_v1_id == node.v1_id),
        )


@pytest.mark.anyio
async def test_a_reconciled_project_reads_only_its_top_level_accounts() -> None:
    """With nothing differing, the drill reads the root's children once and descends nowhere."""
    root = _budget()
    v1 = FakeV1(root)
    assert await drill(root, PHASES, v1) == []
    assert v1.reads == ["root"]


@pytest.mark.anyio
async def test_a_changed_line_is_pinned_on_that_line_and_phase_reading_only_its_branch() -> None:
    """A changed rate on one line shows as that line, in that phase only; the other branch is never read."""
    root = _budget()
    v1 = FakeV1(root)
    v1.change("v1_l1", "phs_work", 30)
    root.v1 = {"phs_est": 150, "phs_work": 170 + 9 + 30}
    findings = await drill(root, PHASES, v1)
    assert [(f.node.key, f.phase_id, f.legacy, f.v1) for f in findings] == [("l1", "phs_work", 120, 150)]
    assert v1.reads == ["root", "a1000", "a1100"]


@pytest.mark.anyio
async def test_a_deleted_line_is_reported_missing_on_v1() -> None:
    """A line the target lost is a finding with no v1 figure, in every phase where it carried money."""
    root = _budget()
    v1 = FakeV1(root)
    v1.change("v1_l2", "phs_est", -50)
    v1.change("v1_l2", "phs_work", -50)
    del v1.values["v1_l2"]
    findings = await drill(root, PHASES, v1)
    assert {(f.node.key, f.node.presence, f.phase_id, f.v1) for f in findings} == {
        ("l2", Presence.MISSING, "phs_est", None),
        ("l2", Presence.MISSING, "phs_work", None),
    }


@pytest.mark.anyio
async def test_a_duplicated_line_is_grafted_under_its_account_as_unexpected() -> None:
    """A v1 line unknown to the crosswalk under a read account becomes an unexpected finding there."""
    root = _budget()
    v1 = FakeV1(root)
    v1.change("v1_a1100", "phs_est", 100)
    v1.change("v1_a1100", "phs_work", 120)
    v1.extras.append(
        ExtraNode("v1_dup", "v1_a1100", "line", "1110", None, "line l1", {"phs_est": 100, "phs_work": 120})
    )
    findings = await drill(root, PHASES, v1)
    assert {(f.node.key, f.node.presence, f.phase_id, f.legacy) for f in findings} == {
        ("v1_dup", Presence.UNEXPECTED, "phs_est", None),
        ("v1_dup", Presence.UNEXPECTED, "phs_work", None),
    }


@pytest.mark.anyio
async def test_a_difference_within_the_rounding_bound_is_not_drilled() -> None:
    """A one-cent difference explained by rounding is neither reported nor descended into."""
    root = _budget()
    v1 = FakeV1(root)
    v1.change("v1_l3", "phs_est", 1)
    findings = await drill(root, PHASES, v1, lambda _n, _p: Explanation(rounding_bound=Decimal(1)))
    assert findings == []
    assert v1.reads == ["root"]


@pytest.mark.anyio
async def test_an_account_whose_own_rollup_is_off_is_the_deepest_finding() -> None:
    """When no child differs but the account does, the account itself is where the difference sits."""
    root = _budget()
    v1 = FakeV1(root)
    v1.values["v1_a2000"]["phs_est"] += 5
    findings = await drill(root, PHASES, v1)
    assert [(f.node.key, f.phase_id, f.difference, f.verdict) for f in findings] == [
        ("a2000", "phs_est", 5, Verdict.MISMATCH)
    ]


@pytest.mark.anyio
async def test_a_missing_node_is_named_only_in_the_phases_where_it_carries_money() -> None:
    """A deleted line worth nothing in one phase is reported in the phase where it had money, not in both."""
    root = _budget()
    root.children[1].children[0].legacy["phs_work"] = 0
    v1 = FakeV1(root)
    v1.change("v1_l3", "phs_est", -7)
    del v1.values["v1_l3"]
    findings = await drill(root, PHASES, v1)
    assert [(f.node.key, f.phase_id, f.node.presence) for f in findings] == [("l3", "phs_est", Presence.MISSING)]


@pytest.mark.anyio
@pytest.mark.parametrize("kind", ["subtotal", "markup"])
async def test_a_subtotal_or_markup_a_budget_document_does_not_list_is_never_called_missing(kind: str) -> None:
    """v1 budget documents list accounts, lines, credits and fringes only: beside a changed line, a subtotal
    the read cannot show is not reported missing on v1; the change is pinned on its line alone."""
    root = _budget()
    sub = root.children[0].children[0]
    sub.children.append(
        Node("s1", kind, None, "/1000/1100/s1", f"{kind} s1", "v1_s1", {"phs_est": 150, "phs_work": 170})
    )
    v1 = FakeV1(root)
    del v1.values["v1_s1"]  # the document never lists it
    v1.change("v1_l1", "phs_work", 25)
    findings = await drill(root, PHASES, v1)
    assert [(f.node.key, f.phase_id) for f in findings] == [("l1", "phs_work")]
    assert all(f.node.presence is Presence.BOTH for f in findings)


@pytest.mark.anyio
async def test_a_markup_whose_totals_a_read_gives_is_compared_like_any_node() -> None:
    """A top-level markup (a contingency) read by its path is compared: a change on v1 is pinned on it."""
    root = _budget()
    markup = Node("m1", "markup", None, "/m1", "Contingency (10%)", "v1_m1", {"phs_est": 15, "phs_work": 17})
    root.children.append(markup)
    v1 = FakeV1(root)
    v1.values["v1_m1"]["phs_est"] += 3
    findings = await drill(root, PHASES, v1)
    assert [(f.node.key, f.phase_id, f.legacy, f.v1) for f in findings] == [("m1", "phs_est", 15, 18)]
