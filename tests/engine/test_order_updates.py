"""A purchase order edited on legacy after the first run (its title, an item's amount, an item added): the next
run brings its v1 draft up to date, as its plan said, with nothing duplicated; one approved on v1 since is left
as v1 holds it and said so; a run stopped between the order's PATCH and its item writes is finished by the next
with nothing sent twice."""

from __future__ import annotations

import asyncio
from collections import Counter
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
import pytest

from bridge.commands.orders import APPROVALS_CSV, show_orders
from bridge.emulator.core.purchase_orders import LegacyItem, LegacyPurchaseOrder
from bridge.engine.run import Transports
from bridge.verify.reconcile import VerifyOptions, verify
from bridge.verify.report import render_markdown
from bridge.verify.schema import Reconciliation
from mappings.kinds import Kind
from tests.support.world import World, fast_controls, fresh_world

TITLE = "Camera package (revised)"
ADDED = Decimal("12.34")


class Crash(BaseException):
    """The process dying: nothing after it runs."""


def _source(world: World) -> dict[str, LegacyPurchaseOrder]:
    return dict(world.service.workspace("source").projects[world.project_id].purchase_orders)


def _v1_orders(world: World) -> list[dict[str, Any]]:
    return world.list_all("/purchase-orders", {"expand": "items"})


def _routes(world: World) -> Counter[str]:
    return Counter(world.call("GET", "/_emulator/stats").json()["requests"]["byRoute"])


@dataclass(frozen=True, slots=True)
class Edit:
    """The order edited on legacy and its new amount."""

    order: LegacyPurchaseOrder
    amount: Decimal


def _target(world: World) -> LegacyPurchaseOrder:
    """The legacy order the tests edit: the first with a number and two items or more."""
    return next(o for o in _source(world).values() if len(o.items) > 1 and o.number)


def _edit(world: World) -> Edit:
    """On legacy: the order gets a new title, its first item 1.00 more, and an item of 12.34 added; its amount
    follows its items."""
    order = _target(world)
    first = order.items[0]
    first.total_price += 1
    first.unit_price = first.total_price / first.quantity
    now = datetime.now(UTC)
    order.items.append(LegacyItem("poi_added", Decimal(1), ADDED, ADDED, now, "Added on legacy"))
    order.title = TITLE
    order.amount = sum((item.total_price for item in order.items), Decimal(0))
    order.last_modified = now
    return Edit(order, order.amount)


def _row(world: World, number: str | None) -> dict[str, Any]:
    (row,) = [row for row in _v1_orders(world) if row["number"] == number]
    return row


async def _verified(world: World) -> Reconciliation:
    transports = Transports(world.transport, world.transport)
    return await verify(world.settings(), VerifyOptions(projects=world.projects), transports, fast_controls())


@pytest.fixture
def world(tmp_path: Path) -> World:
    """`medium`'s first project, migrated once."""
    found = fresh_world(tmp_path / "state.sqlite", "medium")
    found.projects = (next(iter(found.service.workspace("source").projects)),)
    asyncio.run(found.run())
    return found


def test_an_edited_order_is_brought_up_to_date_as_planned_with_nothing_twice(world: World) -> None:
    """Plan = run for the orders (one update: the header PATCH, the changed item, the added one); v1 then holds
    one such order, its name and items the legacy ones, verify reconciles, and a third run sends nothing."""
    edit = _edit(world)
    plan = asyncio.run(world.run(dry_run=True)).ledger.of(Kind.PURCHASE_ORDER)
    done = asyncio.run(world.run()).ledger.of(Kind.PURCHASE_ORDER)
    assert (plan.to_update, plan.requests) == (done.to_update, done.requests) == (1, 3)
    assert (plan.to_create, done.to_create) == (0, 0)
    row = _row(world, edit.order.number)
    assert row["name"] == TITLE
    assert [i["amount"] for i in row["items"]] == [int(i.total_price * 100) for i in edit.order.items]
    assert row["amount"]["amount"] == int(edit.amount * 100)
    assert Counter(r["number"] for r in _v1_orders(world)).most_common(1)[0][1] == 1
    reconciled = asyncio.run(_verified(world))
    assert reconciled.reconciled
    again = asyncio.run(world.run()).ledger.of(Kind.PURCHASE_ORDER)
    assert (again.to_update, again.requests) == (0, 0)


def test_an_order_approved_on_v1_since_is_left_as_approved_and_said_so(
    world: World, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The same edit on an order approved on v1 since: no write to it (no 409, no quarantine), its status line
    says "left as approved on v1" with the 13.34 its legacy amount is ahead (plan, terminal, approvals CSV),
    nothing is quarantined (`bridge run` ends 0); verify explains it and reconciles."""
    v1_id = _row(world, _target(world).number)["id"]
    submitted = world.call("POST", f"/purchase-orders/{v1_id}/submit", headers={"Idempotency-Key": "k" * 20})
    assert submitted.status_code == 200, submitted.text
    decided = world.call("POST", f"/_emulator/purchase-orders/{v1_id}/decision", json={"status": "approved"})
    assert decided.status_code == 200, decided.text
    sent = _routes(world)
    edit = _edit(world)
    plan = asyncio.run(world.run(dry_run=True))
    (line,) = [line for line in plan.ledger.orders if line.legacy_id == edit.order.id]
    assert (line.status.v1, line.left, line.behind) == ("approved", True, ADDED + 1)
    assert "left as approved on v1" in line.status.why
    outcome = asyncio.run(world.run())
    assert not outcome.ledger.quarantine  # `bridge run` ends 0 (DONE) on a run with nothing quarantined
    show_orders(outcome.ledger, tmp_path)  # what `bridge run` prints after its table
    shown = capsys.readouterr().out
    assert f"{edit.order.number} ({world.project_id}): left as approved on v1" in shown
    assert f"legacy {edit.amount} USD" in shown
    assert f"differs by {ADDED + 1}" in shown
    approvals = tmp_path / APPROVALS_CSV
    assert f",approved,{v1_id},{edit.amount},USD," in approvals.read_text()
    writes = {route: n for route, n in (_routes(world) - sent).items() if "purchase-orders/{order_id}" in route}
    assert all(route.startswith("GET") for route in writes), writes
    assert _row(world, edit.order.number)["name"] != TITLE
    found = asyncio.run(_verified(world))
    section = found.projects[0].purchase_orders
    assert section is not None
    assert found.reconciled, [d.said() for d in section.differences]
    (left,) = section.left_on_v1
    assert (left.v1_id, left.v1_status) == (v1_id, "approved")
    assert "left as approved on v1" in render_markdown(found)


class CrashAfterPatch(httpx.AsyncBaseTransport):
    """Dies once v1 answered the first PATCH of an order's header, before the run reads the answer."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await self.inner.handle_async_request(request)
        path = request.url.path
        if request.method == "PATCH" and path.startswith("/v1/purchase-orders/") and "/items" not in path:
            raise Crash
        return response


def test_a_crash_between_the_patch_and_the_item_writes_resumes_with_nothing_twice(world: World) -> None:
    """The run dies right after the header PATCH landed; the next finds the header done and sends the item
    writes once: one PATCH of the header, one of the item, one item added, in all."""
    edit = _edit(world)
    sent = _routes(world)
    world.wrap = CrashAfterPatch
    with pytest.raises(Crash):
        asyncio.run(world.run())
    world.wrap = None
    resumed = asyncio.run(world.run()).ledger.of(Kind.PURCHASE_ORDER)
    assert (resumed.to_update, resumed.requests) == (1, 2)
    row = _row(world, edit.order.number)
    assert (row["name"], len(row["items"])) == (TITLE, len(edit.order.items))
    writes = {r: n for r, n in (_routes(world) - sent).items() if not r.startswith("GET")}
    assert writes == {
        "PATCH /v1/purchase-orders/{order_id}": 1,
        "PATCH /v1/purchase-orders/{order_id}/items/{item_id}": 1,
        "POST /v1/purchase-orders/{order_id}/items": 1,
    }


def test_an_edit_past_the_hundredth_item_is_an_edit_of_the_order(tmp_path: Path) -> None:
    """An order of 103 items (100 with its create, 3 after): a second run finds it unchanged; its 102nd item
    edited on legacy is then PATCHed alone, as the plan said, and v1 lists 103 items with the new amount."""
    world = fresh_world(tmp_path / "state.sqlite")
    source = world.service.workspace("source")
    project = source.projects[world.project_id]
    items = [{"description": f"part {n}", "quantity": 1, "unit_price": 10 + n} for n in range(103)]
    fields = {"number": "PO-BIG", "title": "Everything", "items": items}
    world.service.create_legacy_order(source, project, fields, order_id="po_big")
    asyncio.run(world.run())
    steady = asyncio.run(world.run(dry_run=True)).ledger.of(Kind.PURCHASE_ORDER)
    assert (steady.to_update, steady.requests) == (0, 0)
    order = project.purchase_orders["po_big"]
    order.items[101].total_price = order.items[101].unit_price = Decimal("99.99")
    plan = asyncio.run(world.run(dry_run=True)).ledger.of(Kind.PURCHASE_ORDER)
    done = asyncio.run(world.run()).ledger.of(Kind.PURCHASE_ORDER)
    assert (plan.to_update, plan.requests) == (done.to_update, done.requests) == (1, 1)
    listed = world.list_all(f"/purchase-orders/{_row(world, 'PO-BIG')['id']}/items")
    assert len(listed) == len(items)
    assert listed[101]["amount"] == 9999
