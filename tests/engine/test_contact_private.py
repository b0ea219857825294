"""Contacts' private fields (A101): phone and address carried only with ``--with contact-private``, reported as
not carried without it, and never shown: not in the plan, its JSON, the log, the terminal or verify's reports."""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path

import pytest
from click.testing import CliRunner

from bridge.cli import cli
from bridge.engine.run import Outcome
from bridge.verify.reconcile import VerifyOptions, verify
from bridge.verify.report import write_reports
from mappings.private import NEEDS_OPT_IN
from tests.support.census import pages
from tests.support.world import World, fresh_world

pytestmark = pytest.mark.anyio


def _secrets(world: World) -> list[str]:
    """Every phone and address the source holds (four tax-id digits would match any figure by chance: the
    notes' values are checked for them instead)."""
    contacts = world.service.workspace("source").contacts.values()
    values = [v for c in contacts for v in (c.phone, c.address) if v]
    assert values, "the seed holds contacts with private fields"
    return values


async def _private_on_v1(world: World) -> dict[str, tuple[object, object]]:
    async with world.v1_client() as v1:
        return {c["name"]: (c.get("phone"), c.get("address")) for c in await pages(v1.get, "/contacts")}


def _shown(outcome: Outcome, caplog: pytest.LogCaptureFixture) -> str:
    return json.dumps(outcome.ledger.to_json()) + caplog.text


async def test_without_the_opt_in_each_value_is_reported_not_carried_and_never_shown(
    world: World, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    plan = await world.run(dry_run=True)
    done = await world.run()
    secrets = _secrets(world)
    holding = [c for c in world.service.workspace("source").contacts.values() if c.phone]
    for outcome in (plan, done):
        withheld = [n for n in outcome.ledger.not_carried if n.field in ("secureInfo.phone", "secureInfo.address")]
        assert len(withheld) == 2 * len(holding)
        assert {(n.kind, n.value, n.reason) for n in withheld} == {("contact", None, NEEDS_OPT_IN)}
        tax = [n for n in outcome.ledger.not_carried if n.field == "secureInfo.taxIdLast4"]
        assert tax
        assert all(n.value is None for n in tax)
        shown = _shown(outcome, caplog)
        assert not [s for s in secrets if s in shown]
    assert all(details == (None, None) for details in (await _private_on_v1(world)).values())


async def test_with_the_opt_in_phone_and_address_reach_v1_and_are_still_never_shown(
    world: World, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    done = await world.run(extras=("contact-private",))
    source = world.service.workspace("source").contacts.values()
    on_v1 = await _private_on_v1(world)
    expected = {c.name: (c.phone, c.address) for c in source if c.name in on_v1}
    assert on_v1 == expected
    assert any(phone for phone, _ in on_v1.values())
    assert not [n for n in done.ledger.not_carried if n.field in ("secureInfo.phone", "secureInfo.address")]
    assert not [s for s in _secrets(world) if s in _shown(done, caplog)]
    again = await world.run(extras=("contact-private",))
    assert again.ledger.requests == 0


async def test_turning_the_opt_in_on_later_patches_the_contacts_already_migrated(world: World) -> None:
    await world.run()
    holding = sum(1 for c in world.service.workspace("source").contacts.values() if c.phone)
    later = await world.run(extras=("contact-private",))
    assert later.ledger.requests == holding
    assert any(phone for phone, _ in (await _private_on_v1(world)).values())


def test_the_plan_on_the_terminal_says_what_is_not_carried_without_the_values(world: World) -> None:
    with world.served() as live:
        result = CliRunner().invoke(cli, ["plan"], env=live.env(), catch_exceptions=False)
    assert NEEDS_OPT_IN in result.output, result.output
    assert not [s for s in _secrets(world) if s in result.output]


def test_verify_compares_them_by_hash_and_shows_no_value(tmp_path: Path) -> None:
    """Contacts are verified with the whole workspace: a phone changed on v1 is a difference that says only
    that it differs; without the opt-in, nothing is compared."""
    world = fresh_world(tmp_path / "state.sqlite", projects=())
    asyncio.run(world.run(extras=("contact-private",)))
    options, chosen = VerifyOptions(), world.settings(extras=("contact-private",))
    clean = asyncio.run(verify(chosen, options, world.transports()))
    assert [d for d in clean.library if d.kind == "contact"] == []
    contact = next(c for c in world.list_all("/contacts") if c.get("phone"))
    assert world.call("PATCH", f"/contacts/{contact['id']}", json={"phone": "+1 000-555-0000"}).status_code == 200
    report = asyncio.run(verify(chosen, options, world.transports()))
    (found,) = [d for d in report.library if d.kind == "contact"]
    assert (found.v1_id, found.field, found.legacy, found.v1) == (contact["id"], "phone", "present", "differs")
    assert not report.reconciled
    write_reports(report, tmp_path / "reports")
    written = "".join(p.read_text() for p in (tmp_path / "reports").rglob("*") if p.is_file())
    assert not [s for s in [*_secrets(world), "+1 000-555-0000"] if s in written]
    without = asyncio.run(verify(world.settings(), VerifyOptions(), world.transports()))
    assert [d for d in without.library if d.kind == "contact"] == []
