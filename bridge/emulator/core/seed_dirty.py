"""The catalogue of bad source records (``--dirty``), written straight into the store past its own checks.

Two kinds: records a service true to its published legacy description can hold (bad business data: parts that
do not sum, cycles, unknown currencies, over-long text), always added; and, with ``hostile``, values that
description forbids (an amount or rate that is text, NaN or Infinity where it publishes a number), which only a
service breaking its own contract would serve.

Each record is named in ``Service.dirty_catalogue``: name -> ``DirtyRecord(kind, record id, field)``, so a
quarantine test can ask for exactly the records it expects the bridge to set aside. They live in the first
project (``night-harbor``), except the duplicate ids, which repeat a first-project id in the second project.
"""

from __future__ import annotations

import unicodedata
from datetime import timedelta
from decimal import Decimal

from bridge.emulator.core.model import (
    Actual,
    Contact,
    DirtyRecord,
    Node,
    PhaseData,
    Project,
    ProjectTag,
    SubActual,
    Workspace,
)
from bridge.emulator.core.seed_files import add_dirty_files
from bridge.emulator.core.store import Service

# Off the published contract: `amount` is a number, and JSON has no NaN or Infinity.
HOSTILE_AMOUNTS: dict[str, object] = {
    "amount_thousands_separator": "1,000.00",
    "amount_exponent": "1e3",
    "amount_nan": float("nan"),
    "amount_infinity": float("inf"),
    "amount_empty_string": "",
}
BAD_AMOUNTS: dict[str, object] = {
    "amount_null": None,
    "amount_above_2_53": 2**53 + 1,
    "amount_too_many_decimals": Decimal("12.3456789"),
}


def add_dirty_records(service: Service, workspace: Workspace, *, hostile: bool = False) -> dict[str, DirtyRecord]:
    """Add every catalogued bad record to ``workspace`` and return (and keep on the service) the catalogue."""
    projects = [p for p in workspace.projects.values() if not p.deleted]
    first, second = projects[0], projects[1]
    catalogue: dict[str, DirtyRecord] = {}
    leaf = next(n for n in first.nodes.values() if n.type == "line")
    parent = first.nodes[leaf.parent_id or ""]
    stamp = service.clock()

    def actual(name: str, amount: object, project: Project = first, actual_id: str | None = None) -> Actual:
        record = Actual(
            id=actual_id or service.ids.new("txn"),
            description=f"Dirty: {name}",
            amount=amount,  # type: ignore[arg-type]  # deliberately outside the Cell type: that is the point
            currency="USD",
            date=stamp - timedelta(days=3),
            created_at=stamp,
            updated_at=stamp,
            line_id=leaf.id,
            type="Invoice",
            status="Paid",
        )
        project.actuals[record.id] = record
        return record

    for name, value in {**(HOSTILE_AMOUNTS if hostile else {}), **BAD_AMOUNTS}.items():
        catalogue[name] = DirtyRecord("actual", actual(name, value).id, "amount")

    split = actual("split parts do not sum", Decimal("100.00"))
    split.mode, split.line_id = "split", None
    split.subactuals = [
        SubActual(id=service.ids.new("sub"), amount=Decimal("60.00"), line_id=leaf.id, description="Part 1"),
        SubActual(id=service.ids.new("sub"), amount=Decimal("30.00"), line_id=leaf.id, description="Part 2"),
    ]
    catalogue["split_parts_mismatch"] = DirtyRecord("actual", split.id, "subactuals")

    duplicate = actual("duplicate id", Decimal("5.00"), project=second, actual_id=split.id)
    catalogue["duplicate_actual_id"] = DirtyRecord("actual", duplicate.id, "id")

    def line(name: str, description: str, phase_data: dict[str, PhaseData] | None = None) -> Node:
        node = Node(
            id=service.ids.new("lin"),
            type="line",
            account_code=leaf.account_code,
            description=description,
            parent_id=parent.id,
            last_modified=stamp,
            phase_data=phase_data or {},
        )
        first.nodes[node.id] = node
        parent.children.append(node.id)
        return node

    estimate = sorted(first.phases.values(), key=lambda p: p.sort)[0].id
    catalogue["rate_malformed"] = DirtyRecord(
        "line", line("rate", "Dirty rate", {estimate: PhaseData(quantity=1, rate="1,000.00")}).id, "rate"
    )
    if hostile:
        catalogue["rate_nan"] = DirtyRecord(
            "line", line("nan", "Dirty NaN rate", {estimate: PhaseData(quantity=2, rate=float("nan"))}).id, "rate"
        )
    catalogue["description_too_long"] = DirtyRecord("line", line("long", "Long " + "x" * 400).id, "description")
    catalogue["description_not_nfc"] = DirtyRecord(
        "line", line("nfc", unicodedata.normalize("NFD", "Café crew")).id, "description"
    )

    def account(name: str, parent_id: str | None) -> Node:
        node = Node(
            id=service.ids.new("lin"),
            type="account",
            account_code=f"9{len(catalogue):03d}",
            description=f"Dirty account: {name}",
            parent_id=parent_id,
            last_modified=stamp,
        )
        first.nodes[node.id] = node
        return node

    orphan = account("missing parent", "lin_doesnotexist")
    catalogue["missing_parent"] = DirtyRecord("line", orphan.id, "parentId")
    cycle_a = account("cycle a", None)
    cycle_b = account("cycle b", cycle_a.id)
    cycle_a.parent_id = cycle_b.id
    cycle_a.children, cycle_b.children = [cycle_b.id], [cycle_a.id]
    catalogue["parent_cycle"] = DirtyRecord("line", cycle_a.id, "parentId")

    bad_currency = service.add_currency(first, code="USD", symbol="?", rate_to_usd=1)
    bad_currency.code = "ZZQ"  # no such ISO 4217 code; written past the store's check on purpose
    phase = service.create_phase(first, name="Dirty currency", type="estimate", currency_id=bad_currency.id)
    catalogue["unknown_currency"] = DirtyRecord("phase", phase.id, "currency")

    contact = Contact(id=service.ids.new("con"), name="Bad\x00Name\x1b[31m", last_modified=stamp)
    workspace.contacts[contact.id] = contact
    catalogue["control_characters"] = DirtyRecord("contact", contact.id, "name")

    first.tags["vfx"] = ProjectTag(name="vfx", color="#000000")
    catalogue["tag_differs_only_in_case"] = DirtyRecord("tag", "vfx", "name")

    add_dirty_files(workspace, workspace.files)
    service.touch(first)
    service.touch(second)
    service.dirty_catalogue = catalogue
    return catalogue
