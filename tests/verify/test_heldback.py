"""Which records a refused record holds back, found from parent links and the state file alone."""

from __future__ import annotations

from bridge.verify.heldback import HeldBy, RecordKey, held_back

P: RecordKey = ("project", "", "p1")
SPACE: RecordKey = ("space", "", "s1")
ACCOUNT: RecordKey = ("line", "p1", "a1")
SUB: RecordKey = ("line", "p1", "a2")
LEAF: RecordKey = ("line", "p1", "l1")
ACTUAL: RecordKey = ("actual", "p1", "t1")
PART: RecordKey = ("split", "p1", "t1#0")
PARENTS = {P: SPACE, ACCOUNT: P, SUB: ACCOUNT, LEAF: SUB, ACTUAL: P, PART: ACTUAL}
EVERYTHING = [P, SPACE, ACCOUNT, SUB, LEAF, ACTUAL, PART]


def test_a_refused_account_holds_back_its_subtree_up_to_the_migrated_project() -> None:
    """Lines under a refused account (with or without the mappings' ancestor code) are held back by it."""
    migrated = {P, SPACE, ACTUAL, PART}
    quarantine = {ACCOUNT: "text.not_nfc", SUB: "tree.ancestor_quarantined"}
    found = held_back(EVERYTHING, PARENTS, migrated, quarantine)
    assert found == {key: HeldBy("line", "p1", "a1", "text.not_nfc") for key in (SUB, LEAF)}
    assert found[LEAF].label == "line a1 (text.not_nfc)"


def test_the_highest_refused_record_holds_back_everything_below_it() -> None:
    """A refused space above a refused project: the project's contents are held back by the space."""
    quarantine = {SPACE: "text.empty", P: "text.not_nfc", ACCOUNT: "text.control_characters"}
    found = held_back(EVERYTHING, PARENTS, set(), quarantine)
    assert set(found) == {SUB, LEAF, ACTUAL, PART}, "a record refused for its own reason is not held back"
    assert {by.kind for by in found.values()} == {"space"}


def test_a_record_under_nothing_refused_is_not_held_back_and_a_parent_cycle_ends() -> None:
    """Nothing refused above: pending, not held back; a cycle in the parent links does not loop forever."""
    cycle = {SUB: LEAF, LEAF: SUB}
    assert held_back([SUB, LEAF, ACTUAL], {**PARENTS, **cycle}, set(), {}) == {}
    assert held_back([SUB], cycle, set(), {LEAF: "tree.cycle"}) == {SUB: HeldBy("line", "p1", "l1", "tree.cycle")}
