"""The crosswalk maps each legacy record to one v1 object, and exports what operators and integrations read."""

from __future__ import annotations

import csv
import io
import json

import pytest

from state import CrosswalkConflictError, CrosswalkEntry, QuarantineEntry, StateStore
from state.journal import IntentSpec
from tests.pg import StateTarget


def test_lookup_finds_a_record_only_in_its_scope(store: StateStore) -> None:
    """The same legacy id in two projects maps separately; workspace scope is ''."""
    store.crosswalk.put(
        [
            CrosswalkEntry("phases", "estimate", "phs_1", "P1"),
            CrosswalkEntry("phases", "estimate", "phs_2", "P2"),
            CrosswalkEntry("contacts", "42", "con_1"),
        ]
    )
    assert store.crosswalk.lookup("phases", "estimate", "P1") == "phs_1"
    assert store.crosswalk.lookup("phases", "estimate", "P2") == "phs_2"
    assert store.crosswalk.lookup("phases", "estimate") is None
    assert store.crosswalk.lookup("contacts", "42") == "con_1"


def test_a_scopes_mappings_are_its_entries_with_their_source_hashes(store: StateStore) -> None:
    """What a run keeps in memory for a scope: each entry's kind, legacy id, v1 id and hash, no other scope's."""
    store.crosswalk.put(
        [
            CrosswalkEntry("phases", "estimate", "phs_1", "P1", "h1"),
            CrosswalkEntry("lines", "L1", "lin_1", "P1"),
            CrosswalkEntry("phases", "estimate", "phs_2", "P2", "h2"),
            CrosswalkEntry("contacts", "42", "con_1", "", "h3"),
        ]
    )
    assert sorted(store.crosswalk.mappings("P1")) == [
        ("lines", "L1", "lin_1", ""),
        ("phases", "estimate", "phs_1", "h1"),
    ]
    assert store.crosswalk.mappings("") == [("contacts", "42", "con_1", "h3")]
    assert store.crosswalk.mappings("P3") == []


def test_a_scopes_stamp_changes_with_each_write_of_its_entries_and_only_then(store: StateStore) -> None:
    """What a watch compares instead of a project's entries: any write to the scope gives another stamp (a hash
    refreshed to the same v1 id, a removal, a completion through the journal); reads and other scopes do not."""
    assert store.crosswalk.stamp("P1") == ""
    store.crosswalk.put([CrosswalkEntry("lines", "L1", "lin_1", "P1", "h1")])
    seen = [store.crosswalk.stamp("P1")]
    untouched = store.crosswalk.stamp("")
    store.crosswalk.put([CrosswalkEntry("contacts", "42", "con_1")])
    store.crosswalk.lookup("lines", "L1", "P1")
    store.crosswalk.mappings("P1")
    assert store.crosswalk.stamp("P1") == seen[0]
    assert store.crosswalk.stamp("") != untouched
    store.crosswalk.put([CrosswalkEntry("lines", "L1", "lin_1", "P1", "h2")])
    seen.append(store.crosswalk.stamp("P1"))
    store.crosswalk.remove("lines", "L1", "P1")
    seen.append(store.crosswalk.stamp("P1"))
    intent = store.journal.record(IntentSpec("P1/L2", "lines", "POST", "/budget/lines", "key-L2", "{}", ("L2",), "P1"))
    store.journal.complete(intent.step_key, [CrosswalkEntry("lines", "L2", "lin_2", "P1")])
    seen.append(store.crosswalk.stamp("P1"))
    assert "" not in seen
    assert len(set(seen)) == 4


def test_v1_ids_of_kinds_are_those_of_every_scope(store: StateStore) -> None:
    store.crosswalk.put(
        [
            CrosswalkEntry("project", "P1", "prj_1"),
            CrosswalkEntry("contact", "42", "con_1"),
            CrosswalkEntry("line", "L1", "lin_1", "P1"),
        ]
    )
    assert store.crosswalk.v1_ids(["project", "contact"]) == {"prj_1", "con_1"}
    assert store.crosswalk.v1_ids([]) == set()


def test_links_are_every_entry_with_the_run_that_wrote_it(store: StateStore) -> None:
    """What a verification matches both sides with: each entry's kind, scope, legacy and v1 ids, and run."""
    first = store.runs.start("m", "legacy:a", "v1:b", {}).id
    store.crosswalk.put([CrosswalkEntry("phases", "estimate", "phs_1", "P1")], run_id=first)
    store.crosswalk.put([CrosswalkEntry("contacts", "42", "con_1"), CrosswalkEntry("lines", "L1", "lin_1", "P1")])
    assert sorted(store.crosswalk.links()) == [
        ("contacts", "", "42", "con_1", None),
        ("lines", "P1", "L1", "lin_1", None),
        ("phases", "P1", "estimate", "phs_1", first),
    ]
    assert sorted(store.crosswalk.links()) == sorted(
        (row.kind, row.scope, row.legacy_id, row.v1_id, row.run_id) for row in store.crosswalk.entries()
    )


def test_bulk_lookup_returns_only_mapped_ids_across_chunks(store: StateStore) -> None:
    """lookup_many answers for more ids than one SQL statement carries and leaves unmapped ids out."""
    store.crosswalk.put([CrosswalkEntry("lines", f"L{n}", f"lin_{n}", "P1") for n in range(1200)])
    wanted = [f"L{n}" for n in range(0, 1300, 3)]
    found = store.crosswalk.lookup_many("lines", wanted, "P1")
    assert found == {f"L{n}": f"lin_{n}" for n in range(0, 1200, 3)}


def test_a_second_v1_id_for_a_record_is_refused_and_nothing_is_written(store: StateStore) -> None:
    """Mapping a mapped record to another v1 id raises (a duplicate on the target) and the batch is dropped."""
    store.crosswalk.put([CrosswalkEntry("spaces", "S1", "spc_1")])
    with pytest.raises(CrosswalkConflictError, match="spc_1") as caught:
        store.crosswalk.put([CrosswalkEntry("spaces", "S2", "spc_2"), CrosswalkEntry("spaces", "S1", "spc_9")])
    assert "spc_9" in str(caught.value)
    assert store.crosswalk.lookup("spaces", "S2") is None


def test_writing_the_same_mapping_again_refreshes_the_source_hash(store: StateStore) -> None:
    """A re-run that patched a changed record keeps the v1 id and records the new source hash."""
    store.crosswalk.put([CrosswalkEntry("spaces", "S1", "spc_1", source_hash="old")])
    first = store.crosswalk.get("spaces", "S1")
    store.crosswalk.put([CrosswalkEntry("spaces", "S1", "spc_1", source_hash="new")], run_id=None)
    second = store.crosswalk.get("spaces", "S1")
    assert first is not None
    assert second is not None
    assert (second.v1_id, second.source_hash, second.created_at) == ("spc_1", "new", first.created_at)
    assert second.updated_at >= first.updated_at


def test_an_entry_given_twice_in_one_write_keeps_its_last_source_hash(store: StateStore) -> None:
    """Within one write the later of two hashes for one record wins, as if they had been written in turn."""
    store.crosswalk.put([CrosswalkEntry("spaces", "S1", "spc_1", source_hash="old")])
    twice = [CrosswalkEntry("spaces", "S1", "spc_1", source_hash=digest) for digest in ("first", "last")]
    store.crosswalk.put(twice)
    assert store.crosswalk.mappings("") == [("spaces", "S1", "spc_1", "last")]


def test_migrating_a_quarantined_record_resolves_its_quarantine_entry(store: StateStore) -> None:
    """Once a later run maps a quarantined record, it no longer counts as quarantined (history is kept)."""
    store.quarantine.add([QuarantineEntry("contacts", "C1", "validation", "bad email", field="email", value="x@")])
    store.crosswalk.put([CrosswalkEntry("contacts", "C1", "con_1")])
    assert store.quarantine.entries() == []
    [kept] = store.quarantine.entries(include_resolved=True)
    assert kept.resolved_at is not None


def test_a_record_quarantined_after_the_store_found_none_open_is_still_resolved(store: StateStore) -> None:
    """The store reads once that nothing is quarantined and stops resolving; filing an entry turns it back on."""
    store.crosswalk.put([CrosswalkEntry("contacts", "C0", "con_0")])
    store.quarantine.add([QuarantineEntry("contacts", "C1", "validation", "bad email", field="email")])
    store.crosswalk.put([CrosswalkEntry("contacts", "C1", "con_1")])
    assert store.quarantine.entries() == []


def test_a_store_opened_on_open_entries_resolves_them(state_target: StateTarget) -> None:
    """A later run (a new store) resolves what an earlier run quarantined."""
    with state_target.open() as earlier:
        earlier.quarantine.add([QuarantineEntry("lines", "L1", "too_long", "m", scope="P1")])
    with state_target.open() as later:
        later.crosswalk.put([CrosswalkEntry("lines", "L2", "lin_2", "P1")])
        assert [row.legacy_id for row in later.quarantine.entries()] == ["L1"]
        later.crosswalk.put([CrosswalkEntry("lines", "L1", "lin_1", "P1")])
        assert later.quarantine.entries() == []


def test_export_csv_and_json_hold_every_entry(store: StateStore) -> None:
    """CSV and JSON exports list every entry with its ids, hash, run and times; --kind filters."""
    awkward = 'L,1 "quoted"\nsecond line, Zürich 東京'
    store.crosswalk.put(
        [CrosswalkEntry("spaces", "S1", "spc_1", "", "h1"), CrosswalkEntry("lines", awkward, "lin_1", "P1")]
    )
    rows = list(csv.DictReader(io.StringIO(store.crosswalk.export("csv"))))
    assert [(r["kind"], r["scope"], r["legacy_id"], r["v1_id"]) for r in rows] == [
        ("lines", "P1", awkward, "lin_1"),
        ("spaces", "", "S1", "spc_1"),
    ]
    assert rows[1]["source_hash"] == "h1"
    assert rows[1]["created_at"].endswith("Z")
    records = json.loads(store.crosswalk.export("json", kind="spaces"))
    assert [(r["legacy_id"], r["v1_id"], r["scope"]) for r in records] == [("S1", "spc_1", "")]


def test_counts_and_reverse_lookup(store: StateStore) -> None:
    """counts() gives entries per kind; find_legacy() says which legacy record became a v1 object."""
    store.crosswalk.put([CrosswalkEntry("spaces", f"S{n}", f"spc_{n}") for n in range(3)])
    store.crosswalk.put([CrosswalkEntry("contacts", "C1", "con_1")])
    assert store.crosswalk.counts() == {"spaces": 3, "contacts": 1}
    assert [(r.kind, r.legacy_id) for r in store.crosswalk.find_legacy("spc_2")] == [("spaces", "S2")]


FORMULAS = ['=HYPERLINK("https://evil.example","fix")', "+1+1", "-2+3", "@SUM(A1)", "\tcmd", "\rcmd"]


def test_csv_export_neutralises_formula_like_cells_and_json_keeps_them_exact(store: StateStore) -> None:
    """A source name a spreadsheet would run (= + - @ tab CR) gets a leading quote in CSV; numbers and JSON don't."""
    run = store.runs.start("m", "src", "tgt", {})
    store.crosswalk.put([CrosswalkEntry("tag", name, f"tag_{n}") for n, name in enumerate(FORMULAS)], run_id=run.id)
    store.crosswalk.put([CrosswalkEntry("tag", "Camera", "tag_plain", "", "-hash")])
    rows = list(csv.DictReader(io.StringIO(store.crosswalk.export("csv"))))
    exported = {row["v1_id"]: row for row in rows}
    assert {exported[f"tag_{n}"]["legacy_id"] for n in range(len(FORMULAS))} == {f"'{name}" for name in FORMULAS}
    assert exported["tag_plain"]["legacy_id"] == "Camera"
    assert exported["tag_plain"]["source_hash"] == "'-hash"
    assert {row["run_id"] for row in rows} == {str(run.id), ""}
    records = json.loads(store.crosswalk.export("json"))
    assert sorted(r["legacy_id"] for r in records) == sorted([*FORMULAS, "Camera"])
