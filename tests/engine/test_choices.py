"""`--without KIND` leaves kinds behind, counted and said; `--with EXTRA` names only the published extras; a
kind another carried kind needs cannot be left out alone."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from bridge.cli import cli
from bridge.engine.choices import LEFT_OUT, Choices, Extra
from bridge.engine.plan import Plan
from bridge.engine.run import Transports
from bridge.errors import ConfigError
from bridge.verify.reconcile import VerifyOptions, verify
from bridge.verify.schema import Reconciliation
from mappings.kinds import Kind
from tests.support.world import fast_controls, fresh_world


def test_choices_name_kinds_by_their_labels_and_the_published_extras() -> None:
    chosen = Choices.of(["transactions, transaction-items"], ["submit-pending", "TAX-DOCUMENTS"])
    assert chosen.asked == {Kind.ACTUAL, Kind.SPLIT}
    assert chosen.extras == {Extra.SUBMIT_PENDING, Extra.TAX_DOCUMENTS}
    assert not chosen.carries(Kind.ACTUAL)
    assert chosen.carries(Kind.LINE)
    assert chosen.wants(Extra.TAX_DOCUMENTS)
    assert not chosen.wants(Extra.CONTACT_PRIVATE)


@pytest.mark.parametrize(
    ("without", "extras", "said"),
    [
        (["budgets"], [], "--without budgets: not a kind; choose from budget-lines"),
        ([], ["everything"], "--with everything: not an extra; choose from contact-private, submit-pending"),
    ],
)
def test_a_name_that_is_not_a_kind_or_an_extra_is_refused_naming_the_choices(
    without: list[str], extras: list[str], said: str
) -> None:
    with pytest.raises(ConfigError) as refused:
        Choices.of(without, extras)
    assert said in str(refused.value)


def test_a_kind_left_out_takes_along_the_kinds_that_cannot_go_without_it() -> None:
    """Split parts go in their transaction's bulk, a purchase order's links point at transactions: leaving out
    the transactions leaves them out too; leaving out only the items leaves out their transactions."""
    assert {Kind.ACTUAL, Kind.SPLIT, Kind.PO_LINK} <= Choices.of(["transactions"], []).without
    assert Kind.LINE not in Choices.of(["transactions"], []).without
    assert Kind.ACTUAL in Choices.of(["transaction-items"], []).without
    assert Choices.of(["transactions"], []).asked == {Kind.ACTUAL}


def _left_out(plan: Plan) -> dict[Kind, int]:
    return {row.kind: row.left_out for row in plan.ordered() if row.left_out}


def test_kinds_left_out_are_counted_never_sent_and_verify_calls_them_not_carried(tmp_path: Path) -> None:
    world = fresh_world(tmp_path / "state.sqlite")
    without = ("transactions",)

    async def migrate_and_verify() -> tuple[Plan, Plan, Reconciliation]:
        plan = (await world.run(dry_run=True, without=without)).ledger
        run = (await world.run(without=without)).ledger
        transports = Transports(world.transport, world.transport)
        options = VerifyOptions(projects=world.projects)
        report = await verify(world.settings(without=without), options, transports, fast_controls())
        return plan, run, report

    plan, run, report = asyncio.run(migrate_and_verify())
    on_v1 = world.list_all("/transactions")
    left = _left_out(plan)
    assert left == _left_out(run)
    assert set(left) == {Kind.ACTUAL, Kind.SPLIT, Kind.PO_LINK, Kind.RECEIPT, Kind.BANK_FILE}
    assert left[Kind.ACTUAL] > 0
    assert plan.of(Kind.ACTUAL).requests == run.of(Kind.ACTUAL).requests == 0
    assert on_v1 == []
    assert run.of(Kind.LINE).to_create > 0  # the rest went
    choices = plan.to_json()["choices"]
    assert isinstance(choices, dict)
    assert choices["asked_without"] == ["actual"]
    assert {"actual", "split", "purchase_order_link"} <= set(choices["without"])
    ledger = {entry.kind: entry for entry in report.ledger}
    for kind in (Kind.ACTUAL, Kind.SPLIT, Kind.PO_LINK, Kind.RECEIPT, Kind.BANK_FILE):
        entry = ledger[kind.value]
        assert entry.not_carried == {LEFT_OUT: left[kind]}
        assert entry.closed
        assert entry.pending == 0
        assert entry.missing == []
        assert f"{kind.value}: {left[kind]:,} records {LEFT_OUT}" in " ".join(report.notes)
    # The actual phases' totals lack what the transactions add: said as a difference, never reconciled.
    assert not report.reconciled


def test_plan_and_run_say_what_was_left_out(tmp_path: Path) -> None:
    world = fresh_world(tmp_path / "state.sqlite")
    with world.served() as served:
        plan = CliRunner().invoke(
            cli,
            ["plan", "--without", "transactions", "--out", str(tmp_path / "p")],
            env=served.env(),
        )
        run = CliRunner().invoke(cli, ["run", "--without", "transactions"], env=served.env())
    assert plan.exit_code == 0, plan.output
    written = json.loads((tmp_path / "p").read_text())
    actuals = written["kinds"]["actual"]["left_out"]
    assert actuals > 0
    assert f"  transactions: {actuals:,}: {LEFT_OUT}" in plan.output
    assert "  left out with transactions, as they cannot go without it: " in plan.output
    assert "transaction-items" in plan.output
    assert run.exit_code == 0, run.output
    assert f"not carried, {LEFT_OUT}: transactions {actuals:,}, transaction items " in run.output
