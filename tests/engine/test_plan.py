"""The plan's numbers and its plan.json shape."""

from __future__ import annotations

import json

from bridge.engine.plan import PLAN_SCHEMA_VERSION, Fate, Plan, QuarantinedRecord, Refusal, Tally
from mappings.kinds import Kind


def _plan() -> Plan:
    plan = Plan("m", "ws_source", "ws_target", latency_s=0.02, concurrency=4)
    plan.fold(Tally.of(Kind.LINE, Fate.CREATED, 250, requests=3))
    plan.fold(Tally.of(Kind.SPACE, Fate.CREATED, 2, requests=2))
    refused = QuarantinedRecord(Kind.LINE, "p1", "l9", "amount_not_finite", "rate", "rate is NaN")
    plan.fold(Tally(quarantine=(Refusal(Kind.LINE, refused),)))
    return plan


def test_estimate_runs_waves_in_sequence_and_requests_in_parallel() -> None:
    """Two kinds of different waves with 3 and 2 requests at concurrency 4 take one round each: 2 x latency;
    two kinds of one wave share it (2 + 3 requests at concurrency 4: two rounds)."""
    plan = _plan()
    assert plan.requests == 5
    assert plan.estimate_s == round(2 * 0.02, 2)
    plan.fold(Tally.of(Kind.CONTACT, Fate.CREATED, 3, requests=3))
    assert plan.estimate_s == round(3 * 0.02, 2)


def test_plan_json_lists_kinds_in_run_order_with_codes_and_assumptions() -> None:
    """plan.json is versioned, ordered like the run, and names the quarantine codes and assumptions."""
    data = json.loads(json.dumps(_plan().to_json()))
    assert data["schema_version"] == PLAN_SCHEMA_VERSION
    assert list(data["kinds"]) == ["space", "line"]
    assert data["kinds"]["line"]["quarantine_codes"] == {"amount_not_finite": 1}
    assert data["quarantine"][0]["legacy_id"] == "l9"
    ids = [a["id"] for a in data["assumptions"]]
    assert "A20" in ids
    assert ids == sorted(ids)


def test_folded_tallies_count_every_record_once_per_kind() -> None:
    """Tallies of several steps add up per kind and fate; a kind's records are the sum of its fates."""
    plan = _plan()
    plan.fold(Tally.of(Kind.LINE, Fate.REPLAYED, 5) + Tally.of(Kind.LINE, Fate.HELD_BACK, 7))
    plan.fold(Tally.of(Kind.LINE, Fate.REMOVED, 2))
    line = plan.of(Kind.LINE)
    assert (line.to_create, line.replayed, line.held_back, line.removed_at_source) == (250, 5, 7, 2)
    assert line.records == 250 + 5 + 7 + 1
    assert plan.removed_at_source == {Kind.LINE: 2}
    assert plan.to_json()["kinds"]["line"]["removed_at_source"] == 2  # type: ignore[index]  # plan.json is untyped JSON
