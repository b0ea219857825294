"""Typed legacy records: what the legacy client reads (always in idMode=system) and the mappings consume.

Each record keeps the fields it does not know (``extra="allow"``), so a service that adds a field never
breaks a read, and numbers arrive as the service sent them (``RawNumber``, any JSON value): validating them
is the mappings' job, where a bad value becomes a quarantine entry that names the record and the field.
Every other field is strict: text is only text, a flag only ``true``/``false``, an integer only an integer
(no ``"1"`` or ``true`` read as 1). A row that breaks that is read as a *refused* record (``mappings.shapes``)
carrying the error, so it is quarantined like any other bad record instead of stopping the read.

``CompactLine`` is a budget node without the pydantic bookkeeping and the fields a migration never sends:
what the engine holds while it writes a tree. The tree and line mappings read either through ``LineFields``.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Annotated, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field, Strict

from mappings.errors import MappingError

RawNumber = float | int | str | bool | list[object] | dict[str, object] | None
"""A legacy number as sent: normally a float, but bad records carry strings, NaN, null, formulas, even
``true``, arrays or objects; ``mappings.money.parse_decimal`` gives each shape its code."""

Texts = Annotated[tuple[str, ...], Strict(False)]
"""A JSON array of text: the array may arrive as a list (only the container is lax), each item strictly text."""


class LegacyRecord(BaseModel):
    """Base of every legacy record: immutable, camelCase on the wire, strict, unknown fields kept."""

    model_config = ConfigDict(extra="allow", frozen=True, populate_by_name=True, strict=True)

    # A refused row's error rides in the instance's slot for private values, which pydantic leaves None on
    # every record it validates or constructs. Not a declared private attribute: pydantic then runs a Python
    # hook on every record it builds (each nested one too) to set that attribute's default, a third of the cost
    # of validating a legacy actual, and reads it back through its __getattr__, a few microseconds each time.

    @property
    def refusal(self) -> MappingError | None:
        """Why the row was refused (``mappings.shapes``), None for a record read whole."""
        private = self.__pydantic_private__
        found = None if private is None else private.get(_REFUSAL)
        return found if isinstance(found, MappingError) else None

    def refuse(self, error: MappingError) -> None:
        """Mark a record built for a refused row (``mappings.shapes.refused``, before anyone else holds it)."""
        object.__setattr__(self, "__pydantic_private__", {_REFUSAL: error})


_REFUSAL = "refusal"


class Space(LegacyRecord):
    id: str
    alias: str | None = None
    name: str
    image: str | None = None
    archived: bool = False
    created_at: str | None = Field(default=None, alias="createdAt")


class ProjectSpaceRef(LegacyRecord):
    id: str
    name: str | None = None


class Project(LegacyRecord):
    id: str
    name: str | None = None
    alias: str | None = None
    status: str = "active"
    labels: Texts = ()
    space_id: str | None = Field(default=None, alias="spaceId")
    space: ProjectSpaceRef | None = None
    icon: str | None = None
    image_url: str | None = Field(default=None, alias="imageUrl")


class File(LegacyRecord):
    """A file attached to a legacy record (published ``File``: id, name, MIME type, size in bytes).

    Read laxly, every field any JSON value: a malformed attachment must not refuse the record it hangs on (an
    actual's money does not depend on its receipt); what uses a field checks it there.
    """

    id: object = None
    name: object = None
    type: object = None
    size: RawNumber = None


Files = Annotated[tuple[File, ...], Strict(False)]


class Contact(LegacyRecord):
    id: str
    name: str | None = None
    contact_title: str | None = Field(default=None, alias="contactTitle")
    email: str | None = None
    company: str | None = None
    type: str | None = None
    job_title: str | None = Field(default=None, alias="jobTitle")
    rate: RawNumber = None
    attachments: Files = ()
    tax_documents: Files = Field(default=(), alias="taxDocuments")
    # The private fields {address, phone, taxIdLast4} as read (``expands[]=secureInfo``): personal data, kept
    # out of ``repr`` and read as any JSON value, so no malformed one refuses the contact (a refusal prints
    # its value); ``mappings.private`` reads it (A101).
    secure_info: object = Field(default=None, alias="secureInfo", repr=False)


class PhaseCurrency(LegacyRecord):
    code: str | None = None
    symbol: str | None = None
    exchange_rate: RawNumber = Field(default=None, alias="exchangeRate")


PhaseType = Literal["estimate", "actual", "committed", "rollup"]


class Phase(LegacyRecord):
    id: str
    type: str
    alias: str | None = None
    name: str | None = None
    is_hidden: bool = Field(default=False, alias="isHidden")
    is_locked: bool = Field(default=False, alias="isLocked")
    currency: PhaseCurrency | None = None
    operation: str | None = None
    phase_ids: Texts = Field(default=(), alias="phaseIds")


class Fringe(LegacyRecord):
    id: str
    code: str | None = None
    description: str | None = None
    units: str
    rate: RawNumber = None
    cutoff: RawNumber = None


class Global(LegacyRecord):
    id: str
    symbol: str | None = None
    description: str | None = None
    unit: str | None = None
    formula: str | None = None


class Tag(LegacyRecord):
    id: str
    name: str
    color: str | None = None
    description: str | None = None


class PhaseData(LegacyRecord):
    """One line's values in one phase. quantity/rate/multiplier may be '='-formulas over globals."""

    quantity: RawNumber = None
    rate: RawNumber = None
    multiplier: RawNumber = None
    unit: str | None = None
    fringes: Texts = ()
    # Markup lines only: percent or flat, and whether fringes leave the base.
    type: str | None = None
    amount: RawNumber = None
    exclude_fringes: bool | None = Field(default=None, alias="excludeFringes")


LineType = Literal["account", "line", "subtotal", "markup"]


class BudgetLine(LegacyRecord):
    """A node of the budget tree, flattened: ``parent_id`` is None for top-level accounts.

    ``position`` is the node's index among its siblings as the legacy budget lists them; ``totals`` and
    ``phase_data`` are keyed by legacy phase id (system idMode).
    """

    id: str
    type: str
    account_id: str | None = Field(default=None, alias="accountId")
    description: str | None = None
    path: str | None = None
    parent_id: str | None = Field(default=None, alias="parentId")
    position: int = 0
    tags: Texts = ()
    contact_id: str | None = Field(default=None, alias="contactId")
    color: str | None = None
    include_accounts: Texts | None = Field(default=None, alias="includeAccounts")
    phase_data: dict[str, PhaseData] = Field(default_factory=dict, alias="phaseData")
    totals: dict[str, RawNumber] = Field(default_factory=dict)
    # The line's ``NoteData`` (read with ``lines.notes``), any JSON value: a malformed note must not refuse its
    # line; ``note_text`` takes its plain-text form.
    note: object = None

    @property
    def note_text(self) -> str | None:
        """The note's plain-text form, None when the line has none or it is not text (A75)."""
        text = self.note.get("text") if isinstance(self.note, dict) else None
        return text if isinstance(text, str) and text.strip() else None


class PhaseFields(Protocol):
    """What the line mappings read of one line's phase data: ``PhaseData`` or its compact form."""

    @property
    def quantity(self) -> RawNumber: ...
    @property
    def rate(self) -> RawNumber: ...
    @property
    def multiplier(self) -> RawNumber: ...
    @property
    def unit(self) -> str | None: ...
    @property
    def fringes(self) -> Sequence[str]: ...
    @property
    def type(self) -> str | None: ...
    @property
    def amount(self) -> RawNumber: ...
    @property
    def exclude_fringes(self) -> bool | None: ...


class LineFields(Protocol):
    """What the tree and the line mappings read of a budget node: ``BudgetLine`` or ``CompactLine``."""

    @property
    def id(self) -> str: ...
    @property
    def type(self) -> str: ...
    @property
    def account_id(self) -> str | None: ...
    @property
    def description(self) -> str | None: ...
    @property
    def parent_id(self) -> str | None: ...
    @property
    def position(self) -> int: ...
    @property
    def tags(self) -> Sequence[str]: ...
    @property
    def contact_id(self) -> str | None: ...
    @property
    def color(self) -> str | None: ...
    @property
    def include_accounts(self) -> Sequence[str] | None: ...
    @property
    def phase_data(self) -> Mapping[str, PhaseFields]: ...
    @property
    def note_text(self) -> str | None: ...
    @property
    def refusal(self) -> MappingError | None: ...


def _shared(text: str | None) -> str | None:
    # Phase keys, fringe ids, parent ids, units and tags repeat on thousands of lines: one string object each.
    return None if text is None else sys.intern(text)


def _shared_number(value: RawNumber) -> RawNumber:
    return sys.intern(value) if isinstance(value, str) else value


@dataclass(frozen=True, slots=True)
class CompactPhaseData:
    """``PhaseData`` without the fields the migration never sends (computed totals, formula echoes)."""

    quantity: RawNumber = None
    rate: RawNumber = None
    multiplier: RawNumber = None
    unit: str | None = None
    fringes: tuple[str, ...] = ()
    type: str | None = None
    amount: RawNumber = None
    exclude_fringes: bool | None = None

    @classmethod
    def of(cls, data: PhaseData) -> CompactPhaseData:
        return cls(
            _shared_number(data.quantity),
            _shared_number(data.rate),
            _shared_number(data.multiplier),
            _shared(data.unit),
            tuple(sys.intern(f) for f in data.fringes),
            _shared(data.type),
            _shared_number(data.amount),
            data.exclude_fringes,
        )


@dataclass(frozen=True, slots=True)
class CompactLine:
    """A budget node as the migration holds it while its tree is written: only what a create body needs.

    A validated ``BudgetLine`` costs about 9 KB (pydantic bookkeeping, totals, the expanded contact, unknown
    fields); this is about 1 KB, so a 27,500-line budget fits in tens of MB instead of hundreds.
    """

    id: str
    type: str
    account_id: str | None = None
    description: str | None = None
    parent_id: str | None = None
    position: int = 0
    tags: tuple[str, ...] = ()
    contact_id: str | None = None
    color: str | None = None
    include_accounts: tuple[str, ...] | None = None
    phase_data: Mapping[str, CompactPhaseData] = field(default_factory=dict)
    refusal: MappingError | None = None
    note_text: str | None = None

    @classmethod
    def of(cls, line: BudgetLine) -> CompactLine:
        return cls(
            line.id,
            sys.intern(line.type),
            line.account_id,
            line.description,
            _shared(line.parent_id),
            line.position,
            tuple(sys.intern(tag) for tag in line.tags),
            _shared(line.contact_id),
            _shared(line.color),
            line.include_accounts,
            {sys.intern(key): CompactPhaseData.of(data) for key, data in line.phase_data.items()},
            line.refusal,
            line.note_text,
        )


class SubActual(LegacyRecord):
    id: str | None = None
    # The part's own line label ("Line identifier for ordering and referencing", e.g. A-10): v1 ``lineNumber``.
    line_id: str | None = Field(default=None, alias="lineId")
    description: str | None = None
    amount: RawNumber = None
    # The budget line the part is coded to (system idMode: the line's id).
    account_id: str | None = Field(default=None, alias="accountId")
    quantity: RawNumber = None
    unit: str | None = None
    rate: RawNumber = None


class Actual(LegacyRecord):
    id: str
    description: str | None = None
    amount: RawNumber = None
    date: str | None = None
    mode: str | None = None
    type: str | None = None
    status: str | None = None
    ref: str | None = None
    pay_id: str | None = Field(default=None, alias="payId")
    notes: str | None = None
    number: str | None = None
    tags: Texts = ()
    contact_id: str | None = Field(default=None, alias="contactId")
    # In system idMode the legacy `accountId` of an actual is the id of the budget line it is coded to.
    account_id: str | None = Field(default=None, alias="accountId")
    subactuals: Annotated[tuple[SubActual, ...], Strict(False)] = ()
    attachments: Files = ()
    purchase_order_id: str | None = Field(default=None, alias="purchaseOrderId")
    # The legacy bank or card transaction the actual was made from (its attachments go with the actual, A102).
    transaction_id: str | None = Field(default=None, alias="transactionId")


class PurchaseOrderItem(LegacyRecord):
    id: str | None = None
    description: str | None = None
    quantity: RawNumber = None
    unit_price: RawNumber = Field(default=None, alias="unitPrice")
    total_price: RawNumber = Field(default=None, alias="totalPrice")
    account_id: str | None = Field(default=None, alias="accountId")


class Linked(LegacyRecord):
    """A related record as an expanded read nests it (a purchase order's contact, its actuals): its id."""

    id: str | None = None


class PurchaseOrder(LegacyRecord):
    id: str
    number: str | None = Field(default=None, alias="purchaseOrderId")
    title: str | None = None
    date: str | None = None
    amount: RawNumber = None
    paid_amount: RawNumber = Field(default=None, alias="paidAmount")
    status: str | None = None
    notes: str | None = None
    items: Annotated[tuple[PurchaseOrderItem, ...], Strict(False)] = ()
    attachments: Files = ()
    # Only when expanded: the read shape has no contactId, and the actuals are the ones naming the order.
    contact: Linked | None = None
    actuals: Annotated[tuple[Linked, ...], Strict(False)] = ()


class CommentAuthor(LegacyRecord):
    id: str | None = None
    name: str | None = None
    email: str | None = None


class Comment(LegacyRecord):
    id: str
    content: str | None = None
    account_id: str | None = Field(default=None, alias="accountId")
    line_id: str | None = Field(default=None, alias="lineId")
    author: CommentAuthor | None = None
    created_at: str | None = Field(default=None, alias="createdAt")


class BudgetNote(LegacyRecord):
    """A project's root budget note (``NoteData``) in the forms the bridge reads."""

    id: str | None = None
    text: str | None = None
    html: str | None = None


class Rate(LegacyRecord):
    id: str
    identifier: str | None = None
    emoji: str | None = None
    description: str | None = None
    note: str | None = None
    quantity: RawNumber = None
    rate: RawNumber = None
    unit: str | None = None
    # The rate's contact as ``expands[]=contact`` shows it (any object: only its presence is reported).
    contact: dict[str, object] | None = None


class BankTransaction(LegacyRecord):
    """A legacy bank or card transaction (``GET /transactions``); the actuals made from them are read apart."""

    id: str
    type: str | None = None
    status: str | None = None
    amount: RawNumber = None
    project_id: str | None = Field(default=None, alias="projectId")
    is_actualized: bool | None = Field(default=None, alias="isActualized")
    attachments: Files = ()


class ProjectBudget(LegacyRecord):
    """One project's whole budget as the legacy surface computes it (system idMode, hidden phases in)."""

    project_id: str = Field(alias="projectId")
    phases: Annotated[tuple[Phase, ...], Strict(False)] = ()
    fringes: Annotated[tuple[Fringe, ...], Strict(False)] = ()
    globals_: Annotated[tuple[Global, ...], Strict(False)] = Field(default=(), alias="globals")
    lines: Annotated[tuple[BudgetLine, ...], Strict(False)] = ()
    totals: dict[str, RawNumber] = Field(default_factory=dict)
