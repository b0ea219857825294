"""A journalled write can be rebuilt, split, and read back deterministically."""

from __future__ import annotations

from typing import cast

import pytest

from bridge.engine.executor import derived_ids
from bridge.engine.wanted import DEFAULT_PHASE
from bridge.engine.writes import JsonObject, Write
from mappings.keys import canonical_json, digest, source_hash
from mappings.kinds import Kind


def _bulk(n: int) -> Write:
    body: dict[str, object] = {"lines": [{"description": f"line {i}", "type": "line"} for i in range(n)]}
    return Write(
        Kind.LINE, "p1", "budget_createLinesBulk", ("prj_1",), body, tuple(f"l{i}" for i in range(n)), "k" * 20
    )


def test_split_halves_carry_their_entries_and_derived_keys() -> None:
    """Each half holds its own members and entries, under a key derived from the parent's, the same every time."""
    first, second = _bulk(5).split()
    assert first.members == ("l0", "l1")
    assert second.members == ("l2", "l3", "l4")
    entries = cast("list[JsonObject]", second.entries())  # the bulk's entries are JSON objects
    assert [e["description"] for e in entries] == ["line 2", "line 3", "line 4"]
    assert first.key != second.key != _bulk(5).key
    again = _bulk(5).split()
    assert (first.key, second.key) == (again[0].key, again[1].key)


def test_single_record_write_cannot_be_split() -> None:
    """Bisection stops at one record: that record is the one to quarantine."""
    with pytest.raises(ValueError, match="cannot be split"):
        _bulk(1).split()


def test_bulk_answer_gives_ids_in_request_order() -> None:
    """The n-th object of a bulk answer is the n-th member's v1 id."""
    ids = _bulk(3).v1_ids({"data": [{"id": "a"}, {"id": "b"}, {"id": "c"}]})
    assert ids == ["a", "b", "c"]


def test_bulk_answer_with_wrong_length_is_refused() -> None:
    """An answer that does not hold one object per member never books ids to the wrong records."""
    with pytest.raises(ValueError, match="does not hold 3 objects"):
        _bulk(3).v1_ids({"data": [{"id": "a"}]})


def test_member_hashes_are_the_hashes_of_their_entries() -> None:
    """Change detection compares what was sent per record, so a rebuilt write hashes the same."""
    write = _bulk(2)
    assert write.hashes == tuple(source_hash(entry) for entry in write.entries())


ODD_ENTRIES: list[JsonObject] = [
    {"type": "line", "description": 'caf\u00e9 \u2014 "quoted"\n\ttab', "z": None, "a": [1, 2.5, -0.0, 1e16]},
    {"description": "\U0001f3ac emoji, \\ backslash", "phaseData": {"b": {"y": 1, "x": "2"}, "a": True}},
]


@pytest.mark.parametrize(
    "body",
    [
        {"lines": ODD_ENTRIES},
        {"aBefore": {"k": 1}, "lines": ODD_ENTRIES, "zAfter": "\u00fc"},
        {"lines": [{}, {"description": ""}]},
    ],
)
def test_journalled_text_and_hashes_are_the_canonical_json_of_the_body_and_entries(body: dict[str, object]) -> None:
    """What a resumed run compares must not depend on how the text was built: the journalled body is the body's
    canonical JSON, each member's hash its entry's, and a keyless step key the digest of the request."""
    lines = body["lines"]
    assert isinstance(lines, list)
    members = tuple(f"l{i}" for i in range(len(lines)))
    write = Write(Kind.LINE, "p1", "budget_createLinesBulk", ("prj_1",), body, members, "k" * 20)
    assert write.body_text == canonical_json(body)
    assert write.hashes == tuple(source_hash(entry) for entry in lines)
    assert write.hashes is write.hashes  # serialized once, whoever asks
    patch = Write(Kind.LINE, "p1", "budget_updateLine", ("prj_1", "lin_1"), ODD_ENTRIES[0], ("l0",), salt="r")
    # The step key digests the request as rendered (the same key a journal written before operations named
    # their paths holds for it).
    request = ["r", "p1", "PATCH", "/projects/prj_1/budget/lines/lin_1", ODD_ENTRIES[0], ["l0"]]
    assert patch.step_key == f"{Kind.LINE.value}:{digest(request)}"
    assert patch.hashes == (source_hash(ODD_ENTRIES[0]),)
    assert patch.body_text == canonical_json(ODD_ENTRIES[0])


def test_patch_knows_its_id_from_its_params_and_project_create_reads_the_default_phase() -> None:
    """A PATCH books the id it patched (its last path parameter); a project create also books its default
    estimate phase (A06)."""
    patch = Write(Kind.SPACE, "workspace", "spaces_update", ("spc_9",), {"archived": True}, ("s1",))
    assert patch.v1_ids({"id": "ignored"}) == ["spc_9"]
    create = Write(Kind.PROJECT, "workspace", "projects_create", (), {"name": "P"}, ("p1",), "k" * 20)
    answer = {"id": "prj_1", "defaultBudget": {"budgetId": "bud_1", "estimatePhaseId": "phs_1"}}
    assert derived_ids(create, answer) == [(DEFAULT_PHASE, "phs_1")]


def test_keyless_step_keys_differ_between_runs() -> None:
    """Patching a record back to an earlier value in a later run is new work, not a step already done."""
    one = Write(Kind.SPACE, "workspace", "spaces_update", ("spc_9",), {"archived": True}, ("s1",), salt="run-1")
    two = Write(Kind.SPACE, "workspace", "spaces_update", ("spc_9",), {"archived": True}, ("s1",), salt="run-2")
    assert one.step_key != two.step_key
