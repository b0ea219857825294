"""Actuals compared a window at a time: the compact index of v1 objects, the windows, and what they still find."""

from __future__ import annotations

from collections import Counter
from datetime import date, timedelta
from pathlib import Path

import pytest

from bridge.verify.actuals import windows_by_day
from bridge.verify.drill import Presence
from bridge.verify.index import AMOUNT_BITS, Held, TargetIndex
from state import open_state
from tests.support.migrated import run_cli
from tests.support.world import World

DAY = date(2026, 3, 2)


@pytest.mark.parametrize("amount", [0, 1, -1, 12_345_678_901, -(1 << (AMOUNT_BITS - 1)), 1 << AMOUNT_BITS, -(1 << 90)])
def test_the_index_gives_back_what_it_was_given_for_any_amount(amount: int) -> None:
    """An object's amount, currency and line read back as added, a negative or oversized amount included."""
    index = TargetIndex()
    index.add("txn_b", "key b", Held(5, "USD", None))
    index.add("txn_a", "key a", Held(amount, "JPY", "lin_1"))
    index.seal()
    position = index.find("txn_a")
    assert position is not None
    assert index.held(position) == Held(amount, "JPY", "lin_1")
    assert index.find("txn_unknown") is None


def test_claimed_objects_leave_only_the_unclaimed_keys() -> None:
    """Once source records claim their copies, the unclaimed objects' natural keys are what is left to explain."""
    index = TargetIndex()
    for n in range(5):
        index.add(f"txn_{n}", f"key {n % 2}")
    index.seal()
    for n in (0, 1, 2, 3):
        position = index.find(f"txn_{n}")
        assert position is not None
        index.claim(position)
    assert index.unclaimed == 1
    assert not index.is_claimed("txn_4")
    assert index.unclaimed_keys() == frozenset({hash("key 0") % (1 << 64)})


def test_windows_cover_every_day_once_and_hold_about_the_limit() -> None:
    """Windows are consecutive from the first counted day to the last, open-ended before and after, and each
    holds at most the limit unless one day alone counts more."""
    days = Counter({DAY: 3, DAY + timedelta(days=1): 3, DAY + timedelta(days=5): 9, DAY + timedelta(days=9): 1})
    windows = windows_by_day(days, 6)
    assert windows == [
        (date.min, DAY - timedelta(days=1)),
        (DAY, DAY + timedelta(days=4)),
        (DAY + timedelta(days=5), DAY + timedelta(days=8)),
        (DAY + timedelta(days=9), DAY + timedelta(days=9)),
        (DAY + timedelta(days=10), date.max),
    ]


def _v1_project(world: World) -> str:
    with open_state(str(world.state), read_only=True) as store:
        v1_id = store.crosswalk.lookup("project", world.project_id)
    assert v1_id is not None
    return v1_id


def test_a_deleted_and_a_stray_transaction_are_both_found(world: World, tmp_path: Path) -> None:
    """One migrated transaction deleted on v1 and one created there: the transaction level names both, the
    actual ledger lists the first missing and the second unexpected."""
    project = _v1_project(world)
    transactions = world.list_all("/transactions", {"projectId": project})
    gone = next(t for t in transactions if not t["items"])
    assert world.call("DELETE", f"/transactions/{gone['id']}").status_code == 204
    body = {
        "type": "Invoice",
        "amount": {"amount": 4242, "currency": "USD"},
        "timestamp": "2026-02-03",
        "projectId": project,
    }
    created = world.call("POST", "/transactions", json=body, headers={"Idempotency-Key": "verify-tests-stray-txn-0001"})
    assert created.status_code == 201, created.text
    stray = created.json()["id"]
    code, report, output = run_cli(world, tmp_path / "reports")
    assert report is not None, output
    assert code == 1
    rows = {(t.v1_id, t.presence) for p in report.projects for t in p.transactions}
    assert rows == {(gone["id"], Presence.MISSING), (stray, Presence.UNEXPECTED)}
    actuals = next(e for e in report.ledger if e.kind == "actual")
    with open_state(str(world.state), read_only=True) as store:
        [legacy] = [row.legacy_id for row in store.crosswalk.find_legacy(gone["id"])]
    assert actuals.missing == [f"{world.project_id}/{legacy}"]
    assert actuals.unexpected == [stray]
    assert actuals.ok == actuals.source - 1
