"""Quarantined source records: what they add on the legacy side explains v1's shortfall, and is listed."""

from __future__ import annotations

from pathlib import Path

import pytest

from bridge.verify.compare import Verdict
from tests.support.migrated import Migrated, copy_world, migrate_one, run_cli
from tests.support.world import World


@pytest.fixture(scope="module")
def dirty(tmp_path_factory: pytest.TempPathFactory) -> Migrated:
    """The seed's project holding the catalogue of bad records, migrated (bad records quarantined)."""
    return migrate_one(tmp_path_factory.mktemp("dirty"), dirty=True, hostile=True)


@pytest.fixture
def dirty_world(dirty: Migrated, tmp_path: Path) -> World:
    return copy_world(dirty, tmp_path)


def test_totals_short_by_exactly_the_quarantined_records_are_explained_not_failed(
    dirty_world: World, tmp_path: Path
) -> None:
    """v1 lacks the quarantined lines and actuals: those totals are 'quarantine', verification still passes."""
    code, report, output = run_cli(dirty_world, tmp_path / "reports")
    assert report is not None, output
    assert report.quarantine, "the dirty project quarantines records"
    explained = [d for p in report.projects for d in p.differences if d.figure.verdict is Verdict.QUARANTINE]
    assert explained
    for difference in explained:
        figure = difference.figure
        assert figure.quarantined_minor != 0
        assert figure.difference_minor is not None
        assert abs(figure.difference_minor + figure.quarantined_minor) <= float(figure.rounding_bound_minor)
    assert report.verdicts.mismatch == 0, [d.summary for p in report.projects for d in p.differences]
    assert (code, report.reconciled) == (0, True)
    ledger = {entry.kind: entry for entry in report.ledger}
    assert sum(ledger["line"].quarantined.values()) > 0
    assert sum(ledger["actual"].quarantined.values()) > 0
    assert all(entry.closed and not entry.missing for entry in ledger.values())


def test_fail_on_rounding_also_fails_quarantine_explained_totals(dirty_world: World, tmp_path: Path) -> None:
    """--fail-on rounding is strict: a total explained only by quarantine fails it (exit 1)."""
    code, report, _ = run_cli(dirty_world, tmp_path / "reports", "--fail-on", "rounding")
    assert report is not None
    assert report.verdicts.quarantine > 0
    assert (code, report.reconciled) == (1, False)
