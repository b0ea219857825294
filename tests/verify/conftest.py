"""Fixtures of the verifier's tests: a hand-made report, and a migrated emulator each test may damage."""

from __future__ import annotations

from pathlib import Path

import pytest

from bridge.verify.compare import FailOn, Verdict
from bridge.verify.drill import Presence
from bridge.verify.schema import (
    AccountSummary,
    ActualsSum,
    Difference,
    Figure,
    KindLedger,
    LibraryDifference,
    Location,
    PhaseSummary,
    ProjectReport,
    Reconciliation,
    TagSummary,
    Totals,
    TreeNode,
)
from tests.support.migrated import Migrated, copy_world, migrate_one
from tests.support.world import World


def figure(legacy: int | None, v1: int | None, verdict: Verdict, rate: str = "1") -> Figure:
    return Figure(
        legacy_amount=None if legacy is None else str(legacy / 100),
        legacy_currency="USD",
        rate=rate,
        legacy_minor=legacy,
        v1_minor=v1,
        currency="USD",
        difference_minor=None if legacy is None or v1 is None else v1 - legacy,
        verdict=verdict,
        rounding_bound_minor="0",
        quarantined_minor=0,
    )


@pytest.fixture
def report() -> Reconciliation:
    """A report of one project whose working phase differs on one line of account 1100 (a <script> in its name)."""
    location = Location(
        project_id="p1",
        project_name="Feature <script>alert(1)</script>",
        phase_id="working",
        phase_name="Working",
        kind="line",
        account_code="1110",
        path="/1000/1100/1110",
        line_id="l1",
        v1_line_id="lin_1",
        description="Camera package",
    )
    tree = [
        TreeNode(
            label="1000 Above the line",
            kind="account",
            account_code="1000",
            path="/1000",
            line_id="a1000",
            presence=Presence.BOTH,
            verdicts={"Working": Verdict.MISMATCH},
            children=[
                TreeNode(
                    label="1110 Camera package",
                    kind="line",
                    account_code="1110",
                    path="/1000/1100/1110",
                    line_id="l1",
                    presence=Presence.BOTH,
                    verdicts={"Working": Verdict.MISMATCH},
                )
            ],
        )
    ]
    project = ProjectReport(
        project_id="p1",
        v1_project_id="prj_1",
        name=location.project_name,
        verdict=Verdict.MISMATCH,
        phases=[
            PhaseSummary(
                legacy_phase_id="estimate",
                v1_phase_id="phs_1",
                name="Estimate",
                type="estimate",
                total=figure(150000, 150000, Verdict.EXACT),
                fringe=None,
            ),
            PhaseSummary(
                legacy_phase_id="working",
                v1_phase_id="phs_2",
                name="Working",
                type="estimate",
                total=figure(170000, 173000, Verdict.MISMATCH),
                fringe=None,
            ),
            PhaseSummary(
                legacy_phase_id="variance",
                v1_phase_id="phs_3",
                name="Variance",
                type="rollup",
                total=figure(-20000, -23000, Verdict.MISMATCH),
                fringe=None,
            ),
        ],
        accounts=[
            AccountSummary(
                account_code="1000",
                path="/1000",
                description="Above the line",
                line_id="a1000",
                totals={"phs_2": figure(170000, 173000, Verdict.MISMATCH)},
            )
        ],
        tags=[
            TagSummary(
                name="Night",
                v1_tag_id="tag_1",
                totals={"phs_2": figure(4000, 4001, Verdict.ROUNDING, rate="0.0067")},
                fringes={"phs_2": figure(0, 0, Verdict.EXACT)},
            )
        ],
        actuals=[
            ActualsSum(
                currency="USD",
                legacy_count=3,
                v1_count=3,
                legacy_amount="12.00",
                legacy_minor=1200,
                v1_minor=1200,
                verdict=Verdict.EXACT,
            )
        ],
        differences=[
            Difference(
                location=location,
                figure=figure(12000, 15000, Verdict.MISMATCH),
                summary="line l1 'Camera package' (1110) differs by +30.00 USD in Working",
            )
        ],
        library=[
            LibraryDifference(
                kind="global",
                legacy_id="glb_1",
                v1_id="gbl_1",
                name="SHOOT_WEEKS",
                field="formula",
                legacy="7.8",
                v1="4.6",
            )
        ],
        tree=tree,
    )
    ledger = KindLedger(
        kind="line",
        source=3,
        migrated=3,
        unchanged=0,
        quarantined={},
        pending=0,
        unaccounted=0,
        closed=True,
        ok=3,
        missing=[],
        unexpected=[],
        duplicated=[],
        checked_on_target=True,
    )
    return Reconciliation(
        reconciled=False,
        fail_on=FailOn.MISMATCH,
        generated_at="2026-11-23T00:00:00Z",
        migration="demo",
        run="1",
        source_workspace="source",
        target_workspace="target",
        currency="USD",
        verdicts=Totals(exact=2, rounding=0, quarantine=0, mismatch=3),
        projects=[project],
        ledger=[ledger],
        quarantine=[],
        requests={"legacy": 2, "v1": 3},
    )


@pytest.fixture(scope="module")
def migrated(tmp_path_factory: pytest.TempPathFactory) -> Migrated:
    """The seeded `small` source with its first project migrated by the engine (once per module)."""
    return migrate_one(tmp_path_factory.mktemp("migrated"))


@pytest.fixture
def world(migrated: Migrated, tmp_path: Path) -> World:
    """This test's own copy of the migrated emulator and state file."""
    return copy_world(migrated, tmp_path)
