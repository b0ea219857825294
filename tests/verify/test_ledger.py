"""The closed ledger per kind and the set check (ok / missing / unexpected / duplicated)."""

from __future__ import annotations

from dataclasses import replace

from bridge.verify.ledger import CrosswalkEntry, KindInput, TargetObject, is_clean, ledger

P = "prj_legacy_1"


# Four source records: one migrated this run, one in an earlier run, one quarantined, one pending.
BASE = KindInput(
    kind="line",
    source=frozenset({(P, "l1"), (P, "l2"), (P, "l3"), (P, "l4")}),
    crosswalk={(P, "l1"): CrosswalkEntry("v1", "run2"), (P, "l2"): CrosswalkEntry("v2", "run1")},
    quarantine={(P, "l3"): "number_nan"},
    target=(TargetObject("v1", P, "Camera"), TargetObject("v2", P, "Grip")),
)


def test_every_source_record_lands_in_exactly_one_bucket() -> None:
    """Source 4 = migrated 1 (this run) + unchanged 1 (earlier run) + quarantined 1 (by code) + pending 1."""
    entry = ledger(BASE, latest_run="run2")
    assert (entry.source, entry.migrated, entry.unchanged, entry.quarantined, entry.pending) == (
        4,
        1,
        1,
        {"number_nan": 1},
        1,
    )
    assert entry.closed
    assert entry.missing == [f"{P}/l4"]
    assert not is_clean([entry])


def test_a_crosswalk_entry_for_a_record_the_source_lost_opens_the_ledger() -> None:
    """A crosswalk row with no source record makes the buckets exceed the source: the ledger is not closed."""
    data = replace(
        BASE,
        source=frozenset({(P, "l1"), (P, "l2")}),
        crosswalk={
            (P, "l1"): CrosswalkEntry("v1", "r"),
            (P, "l2"): CrosswalkEntry("v2", "r"),
            (P, "gone"): CrosswalkEntry("v9", "r"),
        },
        quarantine={},
    )
    entry = ledger(data, latest_run="r")
    assert entry.unaccounted == -1
    assert not entry.closed


def test_a_second_target_object_with_the_same_natural_key_is_a_duplicate() -> None:
    """Two target objects for one source record: the stray is listed beside the crosswalked one."""
    target = (TargetObject("v1", P, "Camera"), TargetObject("v2", P, "Grip"), TargetObject("v7", P, "Camera"))
    data = replace(BASE, source=frozenset({(P, "l1"), (P, "l2")}), quarantine={}, target=target)
    entry = ledger(data, latest_run="run2")
    assert [(d.legacy_id, d.v1_ids) for d in entry.duplicated] == [("l1", ["v1", "v7"])]
    assert entry.unexpected == []
    assert entry.ok == 2


def test_a_target_object_nobody_migrated_is_unexpected() -> None:
    """An object on the target the crosswalk does not know, and which twins nothing, is unexpected."""
    target = (TargetObject("v1", P, "Camera"), TargetObject("v2", P, "Grip"), TargetObject("v8", P, "Catering"))
    data = replace(BASE, source=frozenset({(P, "l1"), (P, "l2")}), quarantine={}, target=target)
    entry = ledger(data, latest_run="run2")
    assert entry.unexpected == ["v8"]
    assert not is_clean([entry])


def test_a_deleted_target_object_is_missing_and_a_clean_kind_is_clean() -> None:
    """A crosswalked object gone from the target is missing; with it present the ledger is clean."""
    data = replace(BASE, source=frozenset({(P, "l1"), (P, "l2")}), quarantine={})
    assert is_clean([ledger(data, latest_run="run2")])
    gone = ledger(
        replace(
            BASE, source=frozenset({(P, "l1"), (P, "l2")}), quarantine={}, target=(TargetObject("v1", P, "Camera"),)
        ),
        "run2",
    )
    assert gone.missing == [f"{P}/l2"]


def test_an_unlisted_target_skips_the_set_check_and_says_so() -> None:
    """When the target could not be listed the set check is marked unchecked rather than passed."""
    entry = ledger(replace(BASE, target=None), latest_run="run2")
    assert not entry.checked_on_target
    assert entry.ok == 0
