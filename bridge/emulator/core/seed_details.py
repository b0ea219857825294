"""The seeded details of split parts (line label, quantity, unit, rate) and contacts' private fields.

They are drawn after every other seeded record, from a ``random.Random`` of their own derived from the seed, and
they only fill fields that were empty: every record keeps its id, stamps and every other value, and the
workspace's other records are exactly what they were without them.

Split parts: about two in three split actuals get details on their parts, most with all four, some with only
a line label or only a quantity and unit (the legacy description makes each optional). Where ``quantity *
rate`` can equal the part's amount to the cent it does; otherwise the quantity is 1 and the rate the amount.
Contacts: about half get a phone and an address, some also the last four digits of a tax id (``secureInfo``).
"""

from __future__ import annotations

import random
from decimal import Decimal

from bridge.emulator.core.model import Actual, SubActual, Workspace

UNITS = ("Day", "Hour", "Week", "Each", "Flat")
"""Units of the published legacy UnitType that the seeded parts use."""
STREETS = ("Sunset Blvd", "Gower St", "Melrose Ave", "Cahuenga Blvd", "Lankershim Blvd", "Olive Ave")
CITIES = ("Los Angeles, CA 90028", "Burbank, CA 91505", "Hollywood, CA 90038", "Culver City, CA 90232")
CENT = Decimal("0.01")


def add_details(workspace: Workspace, seed: int) -> None:
    """Split-part details and contacts' private fields for ``workspace`` (a seeded source)."""
    rng = random.Random(f"details:{seed}")
    for project in (p for p in workspace.projects.values() if not p.deleted):
        for actual in project.actuals.values():
            if actual.subactuals and rng.random() < 0.66:
                _parts(actual, rng)
    for contact in workspace.contacts.values():
        if contact.phone is None and contact.address is None and rng.random() < 0.5:
            contact.phone = f"+1 {rng.randint(200, 999)}-555-{rng.randrange(10_000):04d}"
            contact.address = f"{rng.randint(100, 9999)} {rng.choice(STREETS)}, {rng.choice(CITIES)}"
            if rng.random() < 0.5:
                contact.tax_id_last4 = f"{rng.randrange(10_000):04d}"


def _parts(actual: Actual, rng: random.Random) -> None:
    shape = rng.random()
    for index, part in enumerate(actual.subactuals):
        part.line_number = f"A-{(index + 1) * 10}"
        if shape < 0.15:  # a line label and nothing more
            continue
        part.unit = rng.choice(UNITS)
        part.quantity, part.rate = _quantity_and_rate(part, rng)
        if shape < 0.3:  # a quantity and unit without a rate
            part.rate = None


def _quantity_and_rate(part: SubActual, rng: random.Random) -> tuple[Decimal, Decimal]:
    amount = Decimal(str(part.amount))
    quantity = Decimal(rng.randint(1, 6))
    rate = (amount / quantity).quantize(CENT)
    if rate * quantity != amount:
        return Decimal(1), amount
    return quantity, rate
