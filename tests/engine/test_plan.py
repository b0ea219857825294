"""The plan's numbers and its plan.json shape."""

from __future__ import annotations

import json

from bridge.engine.plan import PLAN_SCHEMA_VERSION, Plan, QuarantinedRecord
from mappings.kinds import Kind


def _plan() -> Plan:
    plan = Plan("m", "ws_source", "ws_target", latency_s=0.02, concurrency=4)
    plan.of(Kind.LINE).to_create = 250
    plan.of(Kind.LINE).requests = 3
    plan.of(Kind.SPACE).to_create = 2
    plan.of(Kind.SPACE).requests = 2
    plan.of(Kind.LINE).quarantined["amount_not_finite"] += 1
    plan.quarantine.append(QuarantinedRecord("line", "p1", "l9", "amount_not_finite", "rate", "rate is NaN"))
    return plan


def test_estimate_runs_kinds_in_sequence_and_requests_in_parallel() -> None:
    """Two kinds with 3 and 2 requests at concurrency 4 take one round each: 2 x latency."""
    plan = _plan()
    assert plan.requests == 5
    assert plan.estimate_s == round(2 * 0.02, 2)


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
