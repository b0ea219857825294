"""Seeded workspaces: a realistic production budget in ``source``, an empty (or library-only) ``target``.

Everything comes from ``random.Random(seed)`` and a stepping clock, so the same (seed, size) gives a
byte-identical workspace (``canonical_dump`` is what the tests hash). The source holds what a migration
must get right: above/below-the-line accounts, labour lines with fringes (with a cutoff), globals used in
formulas (SHOOT_DAYS, PREP_WEEKS, and SHOOT_WEEKS over SHOOT_DAYS), five phases (one hidden, one in
zero-decimal JPY, a variance rollup), tags shared across projects with conflicting colours, repeated account
codes, sub-cent rates, markups and subtotals, actuals with splits, spaces and projects (one of each archived),
and purchase orders (``seed_purchase_orders``).
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Mapping, Sequence
from dataclasses import fields, is_dataclass
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Literal

from bridge.emulator.core.formula import evaluate_globals
from bridge.emulator.core.ids import utc_now
from bridge.emulator.core.model import (
    Actual,
    FringeUnits,
    LibraryCurrency,
    LibraryFringe,
    LibraryGlobal,
    LibraryTag,
    Node,
    Project,
    SubActual,
    Workspace,
)
from bridge.emulator.core.seed_bank import BANK_FEED, seed_bank
from bridge.emulator.core.seed_details import add_details
from bridge.emulator.core.seed_files import add_order_files, seed_files
from bridge.emulator.core.seed_purchase_orders import add_purchase_orders, po_ids
from bridge.emulator.core.seed_remarks import add_dirty_remarks, add_remarks
from bridge.emulator.core.store import Service
from bridge.emulator.core.totals import cell_value

Size = Literal["small", "medium", "large"]
SIZES: dict[Size, tuple[int, int]] = {"small": (300, 1_000), "medium": (5_000, 20_000), "large": (50_000, 200_000)}
"""Budget lines and actuals in the whole source workspace, per size."""

EPOCH = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)

# (code, name, sub-accounts (code, name, labour?)) -- above the line first, then production, post, other.
CHART: tuple[tuple[str, str, tuple[tuple[str, str, bool], ...]], ...] = (
    (
        "1000",
        "Above the line",
        (
            ("1100", "Story & rights", False),
            ("1200", "Producers", True),
            ("1300", "Director", True),
            ("1400", "Cast", True),
        ),
    ),
    (
        "2000",
        "Production",
        (
            ("2100", "Production staff", True),
            ("2200", "Camera", False),
            ("2300", "Grip & electric", True),
            ("2400", "Locations", False),
            ("2500", "Travel & living", False),
        ),
    ),
    (
        "3000",
        "Post-production",
        (("3100", "Editorial", True), ("3200", "Visual effects", False), ("3300", "Music & sound", False)),
    ),
    ("4000", "Other", (("4100", "Insurance", False), ("4200", "Legal & accounting", False))),
)
LABOUR = ("Coordinator", "Assistant", "Supervisor", "Technician", "Operator", "Lead", "Trainee", "Manager")
ITEMS = ("Rental", "Purchase", "Permit", "Fee", "Supplies", "Shipping", "Catering", "Storage", "Licence", "Hardware")
ACTUAL_TYPES = ("Invoice", "Check", "CreditCard", "Wire", "ACH", "Cash", "TimeCard", "SaturationPCard")
ACTUAL_STATUSES = ("Paid", "Paid", "Paid", "Pending", "Unpaid", "NeedsReview")
TAGS = (("VFX", "#7C3AED"), ("Night shoot", "#1E3A8A"), ("Union", "#DC2626"), ("Location", "#16A34A"))


class SeedClock:
    """A clock that steps one second per reading from a fixed epoch: seeded timestamps never vary."""

    def __init__(self, start: datetime = EPOCH) -> None:
        self.now = start

    def __call__(self) -> datetime:
        self.now += timedelta(seconds=1)
        return self.now


def seeded_service(
    seed: int = 42,
    size: Size = "small",
    *,
    dirty: bool = False,
    hostile: bool = False,
    target_library: bool = False,
) -> Service:
    """A service holding ``source`` (generated) and ``target`` (empty or with library items).

    ``dirty`` adds bad records a service true to its published description can still hold; ``hostile`` (with
    ``dirty``) adds values that description forbids (text and NaN where numbers belong), for proving the bridge
    survives a service that breaks its own contract.
    """
    return seeded_fleet(
        (("source", "target"),), seed, size, dirty=dirty, hostile=hostile, target_library=target_library
    )


def seeded_fleet(
    pairs: Sequence[tuple[str, str]],
    seed: int = 42,
    size: Size = "small",
    *,
    dirty: bool = False,
    hostile: bool = False,
    target_library: bool = False,
) -> Service:
    """A service holding one (source, target) pair of workspaces per entry of ``pairs``, named by it: the
    i-th source generated from ``seed + i`` (so no two tenants hold the same records), each target as
    ``seeded_service`` makes it. Ids come from the one service, so they are unique across the fleet. With
    ``dirty`` every source gets the bad records, and ``dirty_catalogue`` names the last source's."""
    if size not in SIZES:
        raise ValueError(f"unknown size {size!r}; choose small, medium or large")
    service = Service(seed=seed, clock=SeedClock())
    dirty_lines: dict[str, str] = {}
    for index, (source_name, target_name) in enumerate(pairs):
        source = service.create_workspace(source_name)
        target = service.create_workspace(target_name)
        _SourceBuilder(service, source, random.Random(seed + index), size).build()
        seed_files(source, random.Random(f"files:{seed + index}"))
        seed_bank(source, random.Random(f"bank:{seed + index}"), BANK_FEED[size])
        if target_library:
            _seed_target_library(service, target)
        if dirty:
            from bridge.emulator.core.seed_dirty import add_dirty_records  # noqa: PLC0415 - optional catalogue

            dirty_lines[source.id] = add_dirty_records(service, source, hostile=hostile)["rate_malformed"].record_id
    # After every other record: purchase orders draw from a generator and ids of their own (their module).
    order_ids = po_ids(seed)
    for index, (source_name, _) in enumerate(pairs):
        add_purchase_orders(service.workspace(source_name), seed + index, size, order_ids, dirty=dirty)
        add_order_files(service.workspace(source_name), random.Random(f"order-files:{seed + index}"))
    # Drawn after every other record, so those keep their ids and stamps (``core.seed_remarks``).
    for index, (source_name, _) in enumerate(pairs):
        source = service.workspace(source_name)
        add_remarks(service, source, seed + index, size)
        if source.id in dirty_lines:
            add_dirty_remarks(service, source, dirty_lines[source.id])
    # Last of all, from a generator of their own: they fill only fields left empty (``core.seed_details``).
    for index, (source_name, _) in enumerate(pairs):
        add_details(service.workspace(source_name), seed + index)
    service.clock = utc_now
    return service


class _SourceBuilder:
    def __init__(self, service: Service, workspace: Workspace, rng: random.Random, size: Size) -> None:
        self.s = service
        self.ws = workspace
        self.rng = rng
        self.lines_wanted, self.actuals_wanted = SIZES[size]

    def build(self) -> None:
        s, ws = self.s, self.ws
        features = s.create_space(ws, name="Features")
        commercials = s.create_space(ws, name="Commercials")
        archive = s.create_space(ws, name="Archive 2019", archived=True)
        s.create_space(ws, name="Documentaries")
        self.contacts = [
            s.create_contact(
                ws,
                {
                    "name": f"{first} {last}",
                    "type": kind,
                    "email": f"{first}.{last}@example.com".lower(),
                    "company": company,
                    "job_title": job,
                    "rate": rate,
                },
            )
            for first, last, kind, company, job, rate in _contacts(self.rng)
        ]
        plan = [
            ("Night Harbor", features.id, "active", ("feature", "union"), 0.55),
            ("Cold Open", commercials.id, "active", ("commercial",), 0.2),
            ("Summer Spot", commercials.id, "active", ("commercial", "q3"), 0.15),
            ("Lighthouse (2019)", archive.id, "archived", ("feature",), 0.1),
        ]
        for index, (name, space_id, status, labels, share) in enumerate(plan):
            project = s.create_project(
                ws, name=name, space_id=space_id, status="active", labels=list(labels), default_phase=False
            )
            self._project(project, index, share)
            if status == "archived":
                s.update_project(ws, project.id, {"status": "archived"})

    def _project(self, project: Project, index: int, share: float) -> None:
        s, rng = self.s, self.rng
        usd = s.add_currency(project, code="USD", symbol="$", rate_to_usd=1)
        jpy = s.add_currency(project, code="JPY", symbol="¥", rate_to_usd="0.0067")
        estimate = s.create_phase(project, name="Estimate", type="estimate", currency_id=usd.id)
        working = s.create_phase(project, name="Working", type="estimate", currency_id=usd.id)
        actual = s.create_phase(project, name="Actual", type="actual", currency_id=usd.id)
        committed = s.create_phase(project, name="Committed", type="committed", currency_id=usd.id, is_hidden=True)
        tokyo = s.create_phase(project, name="Tokyo unit", type="estimate", currency_id=jpy.id)
        s.create_phase(
            project, name="Variance", alias="variance", type="rollup", rollup_formula=f"@{working.id} - @{actual.id}"
        )
        s.create_global(project, {"symbol": "SHOOT_DAYS", "formula": str(rng.randint(20, 45)), "unit": "Day"})
        s.create_global(project, {"symbol": "PREP_WEEKS", "formula": str(rng.randint(4, 10)), "unit": "Week"})
        s.create_global(project, {"symbol": "SHOOT_WEEKS", "formula": "SHOOT_DAYS / 5", "unit": "Week"})
        fica = s.create_fringe(
            project,
            {"code": "FICA", "units": "percent", "rate": "6.2", "cutoff": 168600, "description": "Social security"},
        )
        medi = s.create_fringe(project, {"code": "MEDI", "units": "percent", "rate": "1.45", "description": "Medicare"})
        health = s.create_fringe(project, {"code": "HEALTH", "units": "flat", "rate": "42.5", "description": "Per day"})
        payroll = s.create_fringe(project, {"code": "PAYROLL", "units": "total", "rate": 35, "description": "Per line"})
        for tag_index, (name, colour) in enumerate(TAGS):
            # The same tag names recur in every project; the second project disagrees on every colour.
            color = "#F59E0B" if index == 1 else colour
            s.create_tag(project, name=name, color=color, description=f"{name} costs" if tag_index % 2 else None)
        self.phases = (estimate.id, working.id, committed.id, tokyo.id)
        self.labour_fringes = [fica.id, medi.id, health.id, payroll.id]
        lines_here = max(12, int(self.lines_wanted * share))
        leaves = self._budget(project, lines_here)
        self._actuals(project, leaves, max(10, int(self.actuals_wanted * share)))

    def _budget(self, project: Project, lines_wanted: int) -> list[str]:
        s, rng = self.s, self.rng
        subaccounts = sum(len(c[2]) for c in CHART)
        per_sub = max(2, lines_wanted // subaccounts)
        leaves: list[str] = []
        tops: list[Node] = []
        for code, name, subs in CHART:
            top = s.create_nodes(project, None, [{"type": "account", "account_code": code, "description": name}])[0]
            tops.append(top)
            for sub_code, sub_name, labour in subs:
                sub = s.create_nodes(
                    project, top.id, [{"type": "account", "account_code": sub_code, "description": sub_name}]
                )[0]
                specs = [self._line_spec(project, sub_code, i, labour) for i in range(per_sub)]
                specs.insert(per_sub // 2, {"type": "subtotal", "description": f"{sub_name} subtotal", "color": "blue"})
                created = s.create_nodes(project, sub.id, specs)
                leaves += [n.id for n in created if n.type == "line"]
        markups: list[Mapping[str, object]] = [
            {
                "type": "markup",
                "description": "Contingency (10%)",
                "include_accounts": ["2000", "3000"],
                "phase_data": {p: {"markup_type": "percent", "markup_amount": 10} for p in self.phases},
            },
            {
                "type": "markup",
                "description": "Completion bond",
                "include_accounts": None,
                "phase_data": {
                    p: {"markup_type": "flat", "markup_amount": rng.choice((15000, 22500))} for p in self.phases
                },
            },
        ]
        s.create_nodes(project, None, markups)
        return leaves

    def _line_spec(self, project: Project, sub_code: str, i: int, labour: bool) -> dict[str, object]:
        rng = self.rng
        # Codes repeat on purpose: every fourth line shares the code of the line before it.
        code = f"{sub_code[:2]}{1 + (i - (i % 4 == 3)) % 99:02d}"
        tags = [TAGS[rng.randrange(len(TAGS))][0]] if rng.random() < 0.3 else []
        contact = self.contacts[rng.randrange(len(self.contacts))].id if labour and rng.random() < 0.6 else None
        phase_data: dict[str, Mapping[str, object]] = {}
        if labour:
            quantity: object = "=SHOOT_DAYS" if i % 3 else "=PREP_WEEKS * 5"
            rate = Decimal(rng.randint(250, 2400))
            fringes = self.labour_fringes[: 1 + i % 4]
            unit = "Day"
        else:
            quantity = rng.choice((1, 2, 4, 10, "=SHOOT_WEEKS"))
            # Sub-cent rates: a cent fraction the rounding rules must handle.
            rate = Decimal(rng.randint(100, 2_000_000)) / Decimal(1000)
            fringes = []
            unit = rng.choice(("Allow", "Each", "Week", "Day"))
        estimate, working, committed, tokyo = self.phases
        phase_data[estimate] = {"quantity": quantity, "rate": rate, "unit": unit, "fringe_ids": fringes}
        phase_data[working] = {
            "quantity": quantity,
            "rate": rate * Decimal(rng.choice(("0.9", "1", "1", "1.05"))),
            "unit": unit,
            "fringe_ids": fringes,
            "multiplier": rng.choice((None, 1, 2)),
        }
        if rng.random() < 0.4:
            phase_data[committed] = {"quantity": 1, "rate": rate}
        phase_data[tokyo] = {"quantity": quantity, "rate": (rate * 149).quantize(Decimal("0.1")), "fringe_ids": fringes}
        name = rng.choice(LABOUR if labour else ITEMS)
        return {
            "type": "line",
            "account_code": code,
            "description": f"{name} {i + 1}",
            "tags": tags,
            "contact_id": contact,
            "phase_data": phase_data,
        }

    def _actuals(self, project: Project, leaves: list[str], count: int) -> None:
        rng, now = self.rng, self.s.clock
        estimate = self.phases[0]
        env = evaluate_globals({g.symbol: g.formula for g in project.globals.values()})
        per_line = Decimal(count) / Decimal(len(leaves))
        contacts = [c.id for c in self.contacts]
        for i in range(count):
            line = rng.choice(leaves)
            # Spend tracks the budget: about 70% of a line's base estimate, spread over its actuals.
            data = project.nodes[line].phase_data[estimate]
            base = (cell_value(data.quantity, env) or Decimal(1)) * (cell_value(data.rate, env) or Decimal(0))
            expected = base / per_line
            share = Decimal(rng.randint(20, 120)) / 100
            amount = max(Decimal("5.00"), (expected * share).quantize(Decimal("0.01")))
            day = EPOCH.date() + timedelta(days=rng.randrange(365))
            when = datetime(day.year, day.month, day.day, rng.randrange(24), tzinfo=UTC)
            stamp = now()
            actual = Actual(
                id=self.s.ids.new("txn"),
                description=f"{rng.choice(ITEMS)} #{i + 1}",
                amount=amount,
                currency="USD",
                date=when,
                created_at=stamp,
                updated_at=stamp,
                type=rng.choice(ACTUAL_TYPES),
                status=rng.choice(ACTUAL_STATUSES),
                line_id=line,
                number=f"INV-{10000 + i}",
                contact_id=rng.choice(contacts) if rng.random() < 0.5 else None,
                tags=[TAGS[rng.randrange(len(TAGS))][0]] if rng.random() < 0.2 else [],
                ref=f"REF{rng.randrange(10**6):06d}" if rng.random() < 0.3 else None,
            )
            if rng.random() < 0.1:
                first = (amount * Decimal(rng.randint(20, 80)) / 100).quantize(Decimal("0.01"))
                actual.mode, actual.line_id = "split", None
                actual.subactuals = [
                    SubActual(id=self.s.ids.new("sub"), amount=first, line_id=rng.choice(leaves), description="Part 1"),
                    SubActual(
                        id=self.s.ids.new("sub"),
                        amount=amount - first,
                        line_id=line,
                        description="Part 2",
                    ),
                ]
            project.actuals[actual.id] = actual
        self.s.touch(project)


def _contacts(rng: random.Random) -> list[tuple[str, str, str, str | None, str, Decimal]]:
    firsts = ("Ana", "Ben", "Chloe", "Dev", "Eli", "Fay", "Gus", "Hana", "Ivo", "Jun", "Kai", "Lia")
    lasts = ("Moreno", "Okafor", "Sato", "Novak", "Reyes", "Lindqvist", "Haddad", "Keller")
    kinds = ("Contractor", "Employee", "Company")
    return [
        (
            first,
            rng.choice(lasts),
            kinds[i % 3],
            "Grip Co" if i % 3 == 2 else None,
            rng.choice(LABOUR),
            Decimal(rng.randint(200, 1500)),
        )
        for i, first in enumerate(firsts)
    ]


def _seed_target_library(service: Service, target: Workspace) -> None:
    """Library items named like the source's: JPY, FICA and SHOOT_DAYS equal, HEALTH unequal, shared tags."""
    ids, lib, clock = service.ids, target.library, service.clock
    jpy = LibraryCurrency(id=ids.new("cur"), code="JPY", name="Japanese yen", symbol="¥", rate_to_usd=Decimal("0.0067"))
    lib.currencies[jpy.id] = jpy
    fringes: tuple[tuple[str, FringeUnits, str, int | None], ...] = (
        ("FICA", "percent", "6.2", 168600),
        ("HEALTH", "flat", "55", None),
    )
    for name, kind, rate, cutoff in fringes:
        fringe = LibraryFringe(
            id=ids.new("frg"),
            name=name,
            calculation_type=kind,
            rate=Decimal(rate),
            cutoff=None if cutoff is None else Decimal(cutoff),
        )
        lib.fringes[fringe.id] = fringe
    for symbol, text in (("SHOOT_DAYS", "30"), ("PREP_WEEKS", "6")):
        item = LibraryGlobal(id=ids.new("gbl"), symbol=symbol, formula=text)
        lib.globals[item.id] = item
    for sort, (name, _) in enumerate(TAGS[:2]):
        stamp = clock()
        tag = LibraryTag(id=ids.new("tag"), name=name, color="violet", created_at=stamp, updated_at=stamp, sort=sort)
        lib.tags[tag.id] = tag


def _json_default(value: object) -> object:
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, bytes):  # a file's bytes (``core.files.Blob``): their digest stands for them
        return hashlib.sha256(value).hexdigest()
    raise TypeError(f"cannot dump {type(value).__name__}")


def _plain(value: object) -> object:
    """Records as dicts of their fields, mappings (a project's ledger of actuals too) as dicts, all the way down."""
    if is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in fields(value)}
    if isinstance(value, Mapping):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    return value


def canonical_dump(workspace: Workspace) -> bytes:
    """The workspace as canonical JSON bytes (sorted keys, Decimals as text): equal workspaces, equal bytes."""
    return json.dumps(_plain(workspace), default=_json_default, sort_keys=True, separators=(",", ":")).encode()
