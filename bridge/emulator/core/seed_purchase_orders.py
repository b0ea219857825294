"""Seeded legacy purchase orders: a few per project, with items coded to budget lines, in every legacy status,
some linked to the project's actuals.

They are drawn from a generator of their own and stamped with ids and times of their own, after every other
seeded record is made: the records seeded before them stay byte for byte what they were (their draws, ids and
clock readings are untouched), and a linked actual changes only in the order it names. With ``dirty`` the
first project also holds an order whose items do not add up to its amount (number ``PO-DIRTY-SUM``) and one
with no items at all (``PO-DIRTY-EMPTY``): records the legacy service can hold that v1 cannot express, since a
v1 order's amount is the sum of its items.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from decimal import Decimal

from bridge.emulator.core.ids import IdFactory
from bridge.emulator.core.model import Project, Workspace
from bridge.emulator.core.purchase_orders import LEGACY_STATUSES, LegacyItem, LegacyPurchaseOrder

# Orders per project, by seed size: a few on small, scaled modestly.
PER_PROJECT = {"small": 3, "medium": 6, "large": 12}
EPOCH = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
TITLES = ("Camera package", "Grip truck", "Location fee", "Catering", "Edit suite", "Sound stage", "Insurance")
NOTES = ("Net-30", "Deposit on signature", None, None)
CENT = Decimal("0.01")


def po_ids(seed: int) -> IdFactory:
    """The orders' own ids: a factory whose seed no service uses (services take the seed as given, >= 0)."""
    return IdFactory(-1 - seed)


class _Orders:
    def __init__(self, workspace: Workspace, rng: random.Random, ids: IdFactory) -> None:
        self.workspace = workspace
        self.rng = rng
        self.ids = ids
        self.contacts = sorted(workspace.contacts)
        self.made = 0

    def stamp(self) -> datetime:
        # Written at seeding time, as every seeded record is: in the past of any run (a freeze declared today
        # must not find the seed's orders "written after the freeze").
        return EPOCH + timedelta(seconds=self.ids.counter)

    def order(self, project: Project, number: str, items: list[LegacyItem], amount: Decimal) -> LegacyPurchaseOrder:
        rng = self.rng
        # In turn rather than drawn, so that even the small seed holds every legacy status.
        status = LEGACY_STATUSES[self.made % len(LEGACY_STATUSES)]
        self.made += 1
        paid = amount if status == "paid" else (amount / 2).quantize(CENT) if status == "approved" else Decimal(0)
        order = LegacyPurchaseOrder(
            id=self.ids.new("po"),
            amount=amount,
            paid_amount=paid,
            status=status,
            last_modified=self.stamp(),
            number=number,
            title=rng.choice(TITLES),
            date=EPOCH + timedelta(days=rng.randrange(365), hours=3),
            notes=rng.choice(NOTES),
            contact_id=rng.choice(self.contacts) if self.contacts and rng.random() < 0.8 else None,
            items=items,
        )
        project.purchase_orders[order.id] = order
        return order

    def items(self, lines: list[str], count: int) -> list[LegacyItem]:
        rng = self.rng
        made = []
        for index in range(count):
            quantity = Decimal(rng.choice((1, 2, 5, 10)))
            unit_price = Decimal(rng.randint(5_000, 500_000)) / 100
            made.append(
                LegacyItem(
                    id=self.ids.new("poi"),
                    quantity=quantity,
                    unit_price=unit_price,
                    total_price=quantity * unit_price,
                    last_modified=self.stamp(),
                    description=f"{rng.choice(TITLES)} line {index + 1}",
                    line_id=rng.choice(lines) if lines and rng.random() < 0.9 else None,
                )
            )
        return made

    def link(self, project: Project, order: LegacyPurchaseOrder, free: list[str]) -> None:
        """Link one or two of the project's unlinked actuals to an order that is past draft."""
        for _ in range(self.rng.randint(1, 2) if order.status != "draft" and free else 0):
            actual = project.actuals.get(free.pop(self.rng.randrange(len(free))))
            if actual is not None:
                actual.purchase_order_id = order.id


def add_purchase_orders(workspace: Workspace, seed: int, size: str, ids: IdFactory, *, dirty: bool) -> None:
    """Seed ``workspace``'s projects with legacy purchase orders drawn from ``seed`` (see the module text)."""
    orders = _Orders(workspace, random.Random(f"purchase-orders:{seed}"), ids)
    projects = list(workspace.projects.values())
    for p_index, project in enumerate(projects):
        lines = [n.id for n in project.nodes.values() if n.type == "line"]
        free = [a.id for a in project.actuals.values() if a.purchase_order_id is None]
        for index in range(PER_PROJECT[size]):
            items = orders.items(lines, orders.rng.randint(1, 4))
            amount = sum((i.total_price for i in items), Decimal(0))
            order = orders.order(project, f"PO-{p_index + 1}{index + 1:03d}", items, amount)
            orders.link(project, order, free)
    if dirty and projects:
        first = projects[0]
        lines = [n.id for n in first.nodes.values() if n.type == "line"]
        items = orders.items(lines, 2)
        off_by = sum((i.total_price for i in items), Decimal(0)) + Decimal("100.25")
        orders.order(first, "PO-DIRTY-SUM", items, off_by)
        orders.order(first, "PO-DIRTY-EMPTY", [], Decimal("1500.00"))
