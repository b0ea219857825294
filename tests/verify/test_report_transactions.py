"""The transaction level of the drill-down: an actual changed on v1 is named, with both amounts."""

from __future__ import annotations

import re
from pathlib import Path

from bridge.verify.compare import Verdict
from bridge.verify.drill import Presence
from bridge.verify.report import HTML_NAME, MD_NAME
from tests.support.migrated import run_cli
from tests.support.world import World
from tests.verify.test_verify_emulator import _legacy_id, _v1_project


def test_a_clean_migration_lists_no_transaction(world: World, tmp_path: Path) -> None:
    """Right after the migration every actual's v1 transaction holds its amount and line: none is listed."""
    _code, report, output = run_cli(world, tmp_path / "reports")
    assert report is not None, output
    assert [p.transactions for p in report.projects] == [[]]


def test_an_amount_changed_on_v1_drills_down_to_its_transaction(world: World, tmp_path: Path) -> None:
    """The actuals sum and the actual phase mismatch by 12.34; each opens onto the one transaction that moved."""
    transactions = world.list_all("/transactions", {"projectId": _v1_project(world)})
    target = next(t for t in transactions if t.get("budgetLineId"))
    amount = target["amount"]
    assert isinstance(amount, dict)
    changed = {"amount": amount["amount"] + 1234, "currency": amount["currency"]}
    assert world.call("PATCH", f"/transactions/{target['id']}", json={"amount": changed}).status_code == 200
    code, report, output = run_cli(world, tmp_path / "reports")
    assert report is not None, output
    assert code == 1
    legacy_id = _legacy_id(world, "actual", str(target["id"]))
    (moved,) = report.projects[0].transactions
    assert (moved.legacy_id, moved.v1_id, moved.presence) == (legacy_id, target["id"], Presence.BOTH)
    assert (moved.v1_minor or 0) - (moved.legacy_minor or 0) == 1234
    assert [a.verdict for a in report.projects[0].actuals] == [Verdict.MISMATCH]
    page = (tmp_path / "reports" / HTML_NAME).read_text()
    rows = re.findall(r'<tr id="difference-\d+">.*?</tr>', page, re.S)
    named = f"transaction actual {legacy_id} (v1 {target['id']})"
    # The actual phase opens onto the line the transaction is coded to, then the transaction; the sum onto it.
    for total in ("phase Actual", "actuals in USD"):
        row = next(row for row in rows if total in row)
        assert "+12.34 USD" in row
        assert named in row
    phase_row = next(row for row in rows if "phase Actual" in row)
    line = _legacy_id(world, "line", str(target["budgetLineId"]))
    assert phase_row.index(f"legacy {line} &rarr;") < phase_row.index(named)
    assert f"actual {legacy_id} (v1 {target['id']})" in (tmp_path / "reports" / MD_NAME).read_text()
