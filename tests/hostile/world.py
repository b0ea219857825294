"""Hostile source values planted straight into the emulator's store, past its own checks, one record each.

The legacy surface then serves each value over JSON as a broken service would: a lone surrogate as the JSON
escape ``\\ud800``, ``true`` or an array where the description publishes a number, NaN as the bare literal,
a string of a megabyte. Every value sits on a record of its own (a line, an actual, a contact, a space, a
fringe) in the smallest seeded project, so one run shows that each is set aside with its code and that
everything around it still migrates.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from datetime import timedelta
from decimal import Decimal
from typing import Final, Literal

from bridge.emulator.core.model import Actual, Contact, Fringe, Node, PhaseData, Project, Space, SubActual, Workspace
from bridge.emulator.core.store import Service
from mappings.errors import ErrorCode
from mappings.shapes import shown_id

MIGRATED: Final = "migrated"
"""A value a service may legitimately hold: it is carried to v1 as it is, not quarantined."""

Place = Literal[
    "line.description",
    "line.id",
    "line.type",
    "line.tags",
    "line.quantity",
    "line.rate",
    "line.multiplier",
    "line.twice",
    "line.duplicate_id",
    "line.cycle",
    "actual.amount",
    "actual.description",
    "actual.duplicate_id",
    "split.amount",
    "contact.name",
    "contact.rate",
    "contact.duplicate_id",
    "space.name",
    "fringe.rate",
]


@dataclass(frozen=True, slots=True)
class Case:
    """One hostile value, where it is planted, and what the bridge must do with it."""

    name: str
    place: Place
    value: object
    expected: ErrorCode | Literal["migrated"]


MEGABYTE = "x" * 1_000_000

CASES: Final = (
    # Text: invalid Unicode, invisible characters, sizes and types a name cannot have.
    Case("lone high surrogate", "line.description", "Crew \ud800", ErrorCode.TEXT_INVALID_UNICODE),
    Case("lone low surrogate", "line.description", "\udfff", ErrorCode.TEXT_INVALID_UNICODE),
    Case("NUL", "line.description", "Cat\x00ering", ErrorCode.TEXT_CONTROL_CHARACTERS),
    Case("ANSI escape", "line.description", "\x1b[31mred\x1b[0m", ErrorCode.TEXT_CONTROL_CHARACTERS),
    Case("DEL", "line.description", "Rent\x7f", ErrorCode.TEXT_CONTROL_CHARACTERS),
    Case("C1 next line", "line.description", "Fuel\x85", ErrorCode.TEXT_CONTROL_CHARACTERS),
    Case("bidi override", "line.description", "Invoice \u202efdp.exe", MIGRATED),
    Case("byte order mark", "line.description", "\ufeffCatering", MIGRATED),
    Case("terminal markup", "line.description", "Rig [/] [bold red]x", MIGRATED),
    Case("markup beside NUL", "line.description", "[/]\x00[link=file:///etc]", ErrorCode.TEXT_CONTROL_CHARACTERS),
    Case("one megabyte", "line.description", MEGABYTE, ErrorCode.TEXT_TOO_LONG),
    Case("not NFC", "line.description", unicodedata.normalize("NFD", "Café"), ErrorCode.TEXT_NOT_NFC),
    Case("number as description", "line.description", 42, ErrorCode.FIELD_TYPE),
    Case("array as description", "line.description", ["a"], ErrorCode.FIELD_TYPE),
    Case("object as description", "line.description", {"a": 1}, ErrorCode.FIELD_TYPE),
    Case("true as description", "line.description", True, ErrorCode.FIELD_TYPE),
    Case("surrogate in an id", "line.id", "lin_\ud800", ErrorCode.RECORD_ID_INVALID),
    Case("NUL in an id", "line.id", "lin_\x00x", ErrorCode.RECORD_ID_INVALID),
    Case("one-megabyte id", "line.id", "lin_" + MEGABYTE, ErrorCode.RECORD_ID_INVALID),
    Case("unknown line type", "line.type", "banana", ErrorCode.LINE_TYPE_UNKNOWN),
    Case("number in the tag list", "line.tags", [7], ErrorCode.FIELD_TYPE),
    Case("escape sequence in a tag", "line.tags", ["\x1b[2J"], ErrorCode.TEXT_CONTROL_CHARACTERS),
    # Numbers in phase data: JSON types and texts the description does not publish.
    Case("true as rate", "line.rate", True, ErrorCode.NUMBER_NOT_NUMERIC),
    Case("false as rate", "line.rate", False, ErrorCode.NUMBER_NOT_NUMERIC),
    Case("array as rate", "line.rate", [1], ErrorCode.NUMBER_NOT_NUMERIC),
    Case("object as rate", "line.rate", {"value": 1}, ErrorCode.NUMBER_NOT_NUMERIC),
    Case("NaN text as rate", "line.rate", "NaN", ErrorCode.NUMBER_NAN),
    Case("Infinity text as rate", "line.rate", "Infinity", ErrorCode.NUMBER_INFINITE),
    Case("NaN literal as rate", "line.rate", float("nan"), ErrorCode.NUMBER_NAN),
    # (The emulator's own totals cannot hold 1e308 in a line; 1e20 is as far past 2^53 for the bridge.)
    Case("1e20 as rate", "line.rate", 1e20, ErrorCode.NUMBER_TOO_LARGE),
    Case("exponent text as rate", "line.rate", "1e3", ErrorCode.NUMBER_EXPONENT),
    Case("empty text as rate", "line.rate", "", ErrorCode.NUMBER_EMPTY),
    Case("-0 as rate", "line.rate", -0.0, MIGRATED),
    Case("text as quantity", "line.quantity", "12abc", ErrorCode.NUMBER_NOT_NUMERIC),
    Case("2^53+1 as multiplier", "line.multiplier", 2**53 + 1, ErrorCode.NUMBER_TOO_LARGE),
    # The tree: one line under two accounts, two lines with one id, a cycle of parents.
    Case("line under two accounts", "line.twice", None, ErrorCode.DUPLICATE_ID),
    Case("two lines, one id", "line.duplicate_id", None, ErrorCode.DUPLICATE_ID),
    Case("cycle of parents", "line.cycle", None, ErrorCode.TREE_CYCLE),
    # Actuals and their split parts.
    Case("true as amount", "actual.amount", True, ErrorCode.NUMBER_NOT_NUMERIC),
    Case("1e308 as amount", "actual.amount", 1e308, ErrorCode.NUMBER_TOO_LARGE),
    Case("-0 as amount", "actual.amount", -0.0, MIGRATED),
    Case("NaN text as amount", "actual.amount", "NaN", ErrorCode.NUMBER_NAN),
    Case("array as amount", "actual.amount", [100], ErrorCode.NUMBER_NOT_NUMERIC),
    Case("object as amount", "actual.amount", {"amount": 1}, ErrorCode.NUMBER_NOT_NUMERIC),
    Case("tiny amount", "actual.amount", 1e-300, ErrorCode.MONEY_TOO_PRECISE),
    Case("surrogate in an actual", "actual.description", "Taxi \udc00", ErrorCode.TEXT_INVALID_UNICODE),
    Case("two actuals, one id", "actual.duplicate_id", None, ErrorCode.DUPLICATE_ID),
    Case("true as a split part", "split.amount", True, ErrorCode.NUMBER_NOT_NUMERIC),
    # Workspace records.
    Case("surrogate in a contact", "contact.name", "Ana \ud83d", ErrorCode.TEXT_INVALID_UNICODE),
    Case("megabyte contact", "contact.name", MEGABYTE, ErrorCode.TEXT_TOO_LONG),
    Case("array as contact rate", "contact.rate", [250], ErrorCode.NUMBER_NOT_NUMERIC),
    Case("two contacts, one id", "contact.duplicate_id", None, ErrorCode.DUPLICATE_ID),
    Case("bidi override in a space", "space.name", "Stage \u202eB", MIGRATED),
    Case("NUL in a space", "space.name", "Stage\x00C", ErrorCode.TEXT_CONTROL_CHARACTERS),
    Case("array as fringe rate", "fringe.rate", [0.2], ErrorCode.NUMBER_NOT_NUMERIC),
)


@dataclass(frozen=True, slots=True)
class Planted:
    """Where a case landed: the kind and legacy id the bridge must name, the project (or 'workspace')."""

    kind: str
    legacy_id: str
    scope: str


class Planter:
    """Adds one record per case to a seeded workspace, next to the project's own records."""

    def __init__(self, service: Service, workspace: Workspace, project: Project) -> None:
        self.service = service
        self.workspace = workspace
        self.project = project
        self.stamp = service.clock()
        self.leaf = next(n for n in project.nodes.values() if n.type == "line" and n.phase_data)
        self.account = project.nodes[self.leaf.parent_id or ""]
        self.estimate = sorted(project.phases.values(), key=lambda p: p.sort)[0].id
        self.count = 0
        self.keys = 0

    def _id(self, prefix: str) -> str:
        self.count += 1
        return f"{prefix}_hostile{self.count:03d}"

    def _key(self, record_id: str) -> str:
        """The store's key for a record: unique even where two records share an id on purpose."""
        self.keys += 1
        return f"{record_id}#{self.keys}"

    def line(self, description: object = "Hostile line", *, node_id: str | None = None, **fields: object) -> Node:
        node = Node(
            id=node_id or self._id("lin"),
            type="line",
            account_code=self.leaf.account_code,
            description=description,  # type: ignore[arg-type]  # deliberately off the model: that is the point
            parent_id=self.account.id,
            last_modified=self.stamp,
            phase_data={self.estimate: PhaseData(quantity=1, rate=Decimal(10), multiplier=1)},
        )
        for name, value in fields.items():
            setattr(node, name, value)
        key = self._key(node.id)
        self.project.nodes[key] = node
        self.account.children.append(key)
        return node

    def account_node(self, parent: Node | None) -> Node:
        node = Node(
            id=self._id("lin"),
            type="account",
            account_code=f"H{self.count:03d}",
            description=f"Hostile account {self.count}",
            parent_id=parent.id if parent else None,
            last_modified=self.stamp,
        )
        self.project.nodes[node.id] = node
        (parent.children if parent else self.project.roots).append(node.id)
        return node

    def actual(self, amount: object = Decimal("12.50"), *, actual_id: str | None = None, **fields: object) -> Actual:
        record = Actual(
            id=actual_id or self._id("txn"),
            description="Hostile actual",
            amount=amount,  # type: ignore[arg-type]  # off the model on purpose: hostile input
            currency="USD",
            date=self.stamp - timedelta(days=2),
            created_at=self.stamp,
            updated_at=self.stamp,
            line_id=self.leaf.id,
            type="Invoice",
            status="Paid",
        )
        for name, value in fields.items():
            setattr(record, name, value)
        self.project.actuals[self._key(record.id)] = record
        return record

    def contact(self, name: object = "Hostile contact", *, contact_id: str | None = None, rate: object = None) -> str:
        # The name and the rate are off the model on purpose: hostile input.
        contact = Contact(id=contact_id or self._id("con"), name=name, last_modified=self.stamp)  # type: ignore[arg-type]
        contact.rate = rate  # type: ignore[assignment]
        self.workspace.contacts[self._key(contact.id)] = contact
        return contact.id

    def plant(self, case: Case) -> Planted:
        scope = self.project.id
        match case.place:
            case "line.description":
                return Planted("line", self.line(case.value).id, scope)
            case "line.id":
                # Filed under its escaped text: the id itself cannot be printed or stored.
                return Planted("line", shown_id(self.line(node_id=str(case.value)).id, 0), scope)
            case "line.type":
                return Planted("line", self.line(type=case.value).id, scope)
            case "line.tags":
                return Planted("line", self.line(tags=case.value).id, scope)
            case "line.quantity" | "line.rate" | "line.multiplier":
                node = self.line()
                data = node.phase_data[self.estimate]
                setattr(data, case.place.removeprefix("line."), case.value)
                return Planted("line", node.id, scope)
            case "line.twice":
                node = self.line()
                other = next(n for n in self.project.nodes.values() if n.type == "account" and n is not self.account)
                other.children.append(next(k for k, v in self.project.nodes.items() if v is node))
                return Planted("line", node.id, scope)
            case "line.duplicate_id":
                first = self.line("First of two")
                self.line("Second of two", node_id=first.id)
                return Planted("line", first.id, scope)
            case "line.cycle":
                a, b = self.account_node(None), self.account_node(None)
                self.project.roots.remove(b.id)
                a.parent_id, b.parent_id = b.id, a.id
                a.children.append(b.id)
                self.project.roots.remove(a.id)
                return Planted("line", a.id, scope)
            case "actual.amount":
                # Not coded to a line: the emulator's budget totals would have to add the value in.
                return Planted("actual", self.actual(case.value, line_id=None).id, scope)
            case "actual.description":
                return Planted("actual", self.actual(description=case.value).id, scope)
            case "actual.duplicate_id":
                original = self.actual()
                self.actual(Decimal("3.00"), actual_id=original.id)
                return Planted("actual", original.id, scope)
            case "split.amount":
                parts = [
                    SubActual(id=self._id("sub"), amount=case.value, line_id=self.leaf.id),  # type: ignore[arg-type]  # off the model on purpose: hostile input
                    SubActual(id=self._id("sub"), amount=Decimal(1), line_id=self.leaf.id),
                ]
                split = self.actual(Decimal(1), mode="split", line_id=None, subactuals=parts)
                return Planted("split", f"{split.id}#0", scope)
            case "contact.name":
                return Planted("contact", self.contact(case.value), "workspace")
            case "contact.rate":
                return Planted("contact", self.contact(rate=case.value), "workspace")
            case "contact.duplicate_id":
                contact_id = self.contact("First of two")
                self.contact("Second of two", contact_id=contact_id)
                return Planted("contact", contact_id, "workspace")
            case "space.name":
                space_id = self._id("spc")
                space = Space(
                    id=space_id,
                    alias=f"h{self.count}",
                    name=case.value,  # type: ignore[arg-type]  # off the model on purpose: hostile input
                    created_at=self.stamp,
                    updated_at=self.stamp,
                    uuid=space_id,  # the id the legacy surface serves in system idMode
                )
                self.workspace.spaces[space.id] = space
                return Planted("space", space.id, "workspace")
            case "fringe.rate":
                # The rate is off the model on purpose: hostile input.
                fringe = Fringe(id=self._id("frg"), code=f"H{self.count}", units="percent", rate=case.value)  # type: ignore[arg-type]
                self.project.fringes[fringe.id] = fringe
                return Planted("fringe", fringe.id, scope)


def plant_all(service: Service, project_id: str, cases: tuple[Case, ...]) -> dict[str, Planted]:
    """Every case on a record of its own in ``project_id`` (or the workspace); case name -> where it landed."""
    workspace = service.workspace("source")
    project = workspace.projects[project_id]
    planter = Planter(service, workspace, project)
    planted = {case.name: planter.plant(case) for case in cases}
    service.touch(project)
    return planted


def deep_chain(service: Service, project_id: str, depth: int) -> list[str]:
    """A chain of ``depth`` accounts, each the only child of the one above, under the project's top level."""
    workspace = service.workspace("source")
    project = workspace.projects[project_id]
    planter = Planter(service, workspace, project)
    ids: list[str] = []
    parent: Node | None = None
    for _ in range(depth):
        parent = planter.account_node(parent)
        ids.append(parent.id)
    service.touch(project)
    return ids
