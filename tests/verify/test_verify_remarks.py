"""`bridge verify` proves the comments, root budget notes and workspace rates: clean after a run, and a comment
edited on v1 or a rate item changed there is a difference in every report."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from bridge.engine.run import Transports
from bridge.verify.reconcile import VerifyOptions, verify
from bridge.verify.report import HTML_NAME, MD_NAME, write_reports
from bridge.verify.schema import Reconciliation
from tests.support.world import World, fast_controls, fresh_world


def _verified(world: World) -> Reconciliation:
    transports = Transports(world.transport, world.transport)
    return asyncio.run(verify(world.settings(), VerifyOptions(), transports, fast_controls()))


@pytest.fixture(scope="module")
def migrated(tmp_path_factory: pytest.TempPathFactory) -> World:
    world = fresh_world(tmp_path_factory.mktemp("remarks") / "state.sqlite")
    world.projects = ()
    asyncio.run(world.run())
    return world


def test_a_clean_run_verifies_every_comment_and_rate_with_no_difference(migrated: World) -> None:
    """Every comment (root notes among them) and every rate item is compared, and none differs."""
    report = _verified(migrated)
    source = migrated.service.workspace("source")
    assert report.remarks.differences == []
    assert report.remarks.comments == sum(len(p.comments) + 1 for p in source.projects.values() if not p.deleted)
    assert report.remarks.rates == len(source.rates)
    assert report.remarks.rate_sums == {"USD": sum(int(r.rate * 100) for r in source.rates.values() if r.rate)}
    assert report.reconciled


def test_a_comment_edited_and_a_rate_changed_on_v1_are_differences_in_every_report(
    migrated: World, tmp_path: Path
) -> None:
    """v1's copy of a comment edited, a rate item's rate changed: verify names both (and the rates' sum), the
    reconciliation fails, and the Markdown, HTML and terminal line say so before what was compared."""
    (v1_project, *_) = [p["id"] for p in migrated.list_all("/projects")]
    comment = migrated.list_all(f"/projects/{v1_project}/comments")[0]
    edited = migrated.call("PATCH", f"/projects/{v1_project}/comments/{comment['id']}", json={"content": "edited"})
    assert edited.status_code == 200, edited.text
    (pack,) = migrated.list_all("/library/rate-packs")
    item = migrated.list_all(f"/library/rate-packs/{pack['id']}/items")[0]
    changed = {"rate": {"amount": item["rate"]["amount"] + 1, "currency": "USD"}}
    answer = migrated.call("PATCH", f"/library/rate-packs/{pack['id']}/items/{item['id']}", json=changed)
    assert answer.status_code == 200, answer.text
    report = _verified(migrated)
    found = {(d.kind, d.v1_id, d.field) for d in report.remarks.differences}
    assert ("comment", comment["id"], "content") in found
    assert ("rate", item["id"], "item") in found
    assert any(d.kind == "rate_sum" and d.legacy_id == "USD" for d in report.remarks.differences)
    assert not report.reconciled
    write_reports(report, tmp_path)
    for name in (MD_NAME, HTML_NAME):
        text = (tmp_path / name).read_text()
        assert text.index(f"({len(report.remarks.differences)} differences)") < text.index("comments compared")
        assert comment["id"] in text


def test_the_dirty_world_verifies_with_the_rate_without_unit_quarantined(tmp_path: Path) -> None:
    """On `--dirty`, the comment on a quarantined line is verified on the project it went to, the rate without a
    unit is in the ledger as quarantined, and the remarks show no difference."""
    world = fresh_world(tmp_path / "state.sqlite", dirty=True, projects=())
    asyncio.run(world.run())
    report = _verified(world)
    ledger = {entry.kind: entry for entry in report.ledger}
    assert report.remarks.differences == []
    assert ledger["rate"].quarantined == {"rate.unit_missing": 1}
    for kind in ("comment", "rate_pack", "rate"):
        assert (ledger[kind].closed, ledger[kind].pending) == (True, 0), kind
    assert report.remarks.rates == len(world.service.workspace("source").rates) - 1
