"""Bridge mode's v1 marks in the state: replaced per record, held per scope."""

from __future__ import annotations

from state import StateStore
from state.sync import Mark


def test_marks_are_replaced_per_record_and_held_per_scope(store: StateStore) -> None:
    """A put replaces the marks of the records it names and leaves the others; a scope holds marks once any is
    put in it, and none once its last is removed (what tells a sync to read a project's rows whole)."""
    assert not store.marks.held("P1")
    store.marks.put([Mark("line", "P1", "L1", "lin_1", "m1"), Mark("line", "P1", "L2", "lin_2", "m2")])
    store.marks.put([Mark("line", "P1", "L1", "lin_1", "m3"), Mark("contact", "", "42", "con_1", "m4")])
    assert store.marks.of("P1") == {
        ("line", "L1"): Mark("line", "P1", "L1", "lin_1", "m3"),
        ("line", "L2"): Mark("line", "P1", "L2", "lin_2", "m2"),
    }
    assert [store.marks.held(scope) for scope in ("P1", "", "P2")] == [True, True, False]
    store.marks.remove("line", "P1", "L1")
    store.marks.remove("line", "P1", "L2")
    assert not store.marks.held("P1")
    assert store.marks.of("P1") == {}
