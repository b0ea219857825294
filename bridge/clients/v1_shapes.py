"""The v1 request shapes the bridge may send, as closed models (``v1_requests`` pairs each with its operation).

Each model is the published request shape (additionalProperties false -> ``extra="forbid"``; the published
nullability, enums, lengths and bounds), so a field the description has no place for (a budget line's tags, a
markup's excludeFringes) or a null where it publishes a plain string cannot be built. A model may declare fewer
fields than the description (only what the bridge writes); it never declares one more.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictFloat, StrictInt, StrictStr
from pydantic.alias_generators import to_camel


class Closed(BaseModel):
    """A published v1 request shape: closed, strict (no coercion), immutable.

    A default only makes a field optional: the wire body holds the fields that were set (``wire``), so a
    default is never sent.
    """

    # Fields are snake_case in Python and the published camelCase on the wire (validated and sent by alias).
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True, alias_generator=to_camel)


Id = Annotated[StrictStr, Field(min_length=1)]
Name = Annotated[StrictStr, Field(min_length=1)]
Number = StrictInt | StrictFloat
# A phase-data cell: a number, a formula or variable reference (a string), or null.
PhaseValue = StrictInt | StrictFloat | StrictStr | None
Date = Annotated[StrictStr, Field(pattern=r"^\d{4}-\d{2}-\d{2}$")]
DateTime = Annotated[StrictStr, Field(pattern=r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$")]
TagColor = Literal[
    "slate", "gray", "zinc", "red", "orange", "amber", "yellow", "lime", "green", "emerald",
    "teal", "cyan", "sky", "blue", "indigo", "violet", "purple", "pink", "rose",
]  # fmt: skip
LineType = Literal["account", "line", "subtotal", "fringe", "markup", "credit", "banner"]
PhaseType = Literal["estimate", "actual", "rollup", "committed"]
RollupFormula = Annotated[StrictStr, Field(max_length=2000, pattern=r"^(?:@\{[\w-]+\}|@[\w-]+|[\d\s+\-*/().,%])*$")]


class Money(Closed):
    amount: StrictInt
    currency: Annotated[StrictStr, Field(min_length=3, max_length=3)]


class SpaceCreate(Closed):
    name: Name
    slug: StrictStr = ""
    image: StrictStr | None = None
    parent_id: Id | None = None


class SpaceUpdate(Closed):
    name: Name = "-"
    slug: StrictStr = ""
    image: StrictStr | None = None
    parent_id: Id | None = None
    archived: StrictBool = False


class ProjectCreate(Closed):
    name: Name
    slug: StrictStr = ""
    emoji: StrictStr | None = None
    image: StrictStr | None = None
    summary: StrictStr | None = None
    space_id: Id | None = None
    project_type: StrictStr | None = None
    tag_ids: list[Id] = []


class ProjectUpdate(Closed):
    name: Name = "-"
    slug: StrictStr = ""
    emoji: StrictStr | None = None
    image: StrictStr | None = None
    summary: StrictStr | None = None
    space_id: Id | None = None
    status: Literal["active", "archived"] = "active"
    project_type: StrictStr | None = None
    tag_ids: list[Id] = []


class ContactCreate(Closed):
    name: Name
    company: StrictStr | None = None
    title: StrictStr | None = None
    type: Literal["contractor", "employee", "company", "vendor"] = "contractor"
    email: StrictStr | None = None
    phone: StrictStr | None = None
    address: StrictStr | None = None
    website: StrictStr | None = None
    instagram: StrictStr | None = None
    imdb: StrictStr | None = None
    rate: Money | None = None
    track1099: StrictBool = False
    notes: StrictStr | None = None


class ContactUpdate(ContactCreate):
    name: Name = "-"


class TagCreate(Closed):
    name: Name
    color: TagColor | None = None
    description: StrictStr = ""  # published as a string, never null: omitted when there is none
    eligibility_key: StrictStr = ""


class TagUpdate(Closed):
    name: Name = "-"
    color: TagColor | None = None
    description: StrictStr | None = None
    eligibility_key: StrictStr | None = None


class CurrencyWrite(Closed):
    code: Annotated[StrictStr, Field(min_length=3, max_length=3)] = "XXX"
    name: StrictStr | None = None
    symbol: StrictStr | None = None
    rate_to_usd: Number | None = Field(default=None, alias="rateToUSD")


class FringeWrite(Closed):
    name: Name = "-"
    description: StrictStr | None = None
    calculation_type: Literal["percent", "flat", "total"] = "percent"
    rate: Number | None = None
    cutoff: Number | None = None
    fringe_group_ids: list[Id] = []
    color: StrictStr | None = None


class GlobalWrite(Closed):
    symbol: Name | None = None
    description: StrictStr | None = None
    formula: StrictStr | None = None
    unit: StrictStr | None = None
    custom_unit_id: Id | None = None


class ProjectCopyAdd(Closed):
    source_id: Id


class PhaseCreate(Closed):
    type: PhaseType
    name: Annotated[StrictStr, Field(max_length=255)]
    alias: Annotated[StrictStr, Field(max_length=64)] = ""
    color: Annotated[StrictStr, Field(max_length=32)] = ""
    is_hidden: StrictBool = False
    display_decimals: Annotated[StrictInt, Field(ge=0, le=4)] | None = None
    base_currency_id: StrictStr | None = None
    actual_date_start: Date | None = None
    actual_date_end: Date | None = None
    rollup_formula: RollupFormula = ""


class PhaseUpdate(Closed):
    name: Annotated[StrictStr, Field(max_length=255)] = ""
    alias: Annotated[StrictStr, Field(max_length=64)] = ""
    color: Annotated[StrictStr, Field(max_length=32)] | None = None
    is_hidden: StrictBool = False
    display_decimals: Annotated[StrictInt, Field(ge=0, le=4)] | None = None
    base_currency_id: StrictStr | None = None
    actual_date_start: Date | None = None
    actual_date_end: Date | None = None
    rollup_formula: RollupFormula | None = None


class PhaseDataWrite(Closed):
    """BudgetLinePhaseDataWrite: the editable cells of one line and phase. It has no markup-only field."""

    rate: PhaseValue = None
    quantity: PhaseValue = None
    multiplier: PhaseValue = None
    qty_auto_derived: StrictBool | None = None
    unit: StrictStr | None = None
    custom_unit_id: Id | None = None
    start_date: StrictStr | None = None
    end_date: StrictStr | None = None
    fringe_ids: list[Id] | None = None
    fringe_group_ids: list[Id] | None = None
    currency_id: Id | None = None


class LineCreate(Closed):
    """BudgetLineCreate: no tags (v1 publishes no write for a line's tags)."""

    description: Annotated[StrictStr, Field(max_length=255)]
    type: LineType = "line"
    account_id: StrictStr = ""
    parent_id: Id = "-"
    contact_id: Id = "-"
    line_color: StrictStr = ""
    emoji: StrictStr = ""
    notes: StrictStr = ""
    subtotal_sum_all_above: StrictBool = False
    subtotal_is_bold: StrictBool = False
    markup_account_filter: StrictStr = ""  # a string, never null: omitted for "every account"
    phase_data: dict[Id, PhaseDataWrite] = {}


class LineUpdate(Closed):
    description: Annotated[StrictStr, Field(max_length=255)] = ""
    type: LineType = "line"
    account_id: StrictStr = ""
    parent_id: Id = "-"
    contact_id: Id | None = None
    line_color: StrictStr | None = None
    emoji: StrictStr | None = None
    notes: StrictStr | None = None
    subtotal_sum_all_above: StrictBool = False
    subtotal_is_bold: StrictBool = False
    markup_account_filter: StrictStr | None = None
    phase_data: dict[Id, PhaseDataWrite] = {}


class LineBulkCreate(Closed):
    lines: Annotated[list[LineCreate], Field(min_length=1, max_length=100)]


class TransactionCreate(Closed):
    """TransactionManualCreate."""

    type: Literal["Invoice", "Projection", "Cash", "Check", "Wire", "ACH", "CreditCard", "TimeCard", "ETransfer"]
    amount: Money
    timestamp: DateTime
    status: Literal["unpaid", "pending", "posted", "void", "needs_review", "projected", "rejected"] = "posted"
    description: StrictStr = ""
    project_id: Id = "-"
    contact_id: Id = "-"
    budget_line_id: Id = "-"
    fringe_id: Id = "-"
    number: StrictStr = ""
    ref: StrictStr = ""
    notes: StrictStr = ""
    actualized: StrictBool = False


class TransactionPatch(Closed):
    type: Literal[
        "SaturationPCard", "ACH", "Cash", "Check", "CreditCard", "Deposit", "ETransfer", "Invoice", "Projection",
        "TimeCard", "Wire", "Withdrawal",
    ] = "Cash"  # fmt: skip
    amount: Money = Money(amount=0, currency="USD")
    timestamp: DateTime = "1970-01-01T00:00:00Z"
    status: Literal["unpaid", "pending", "posted", "void", "needs_review", "projected", "rejected"] = "posted"
    description: StrictStr | None = None
    project_id: Id | None = None
    contact_id: Id | None = None
    budget_line_id: Id | None = None
    fringe_id: Id | None = None
    number: StrictStr | None = None
    ref: StrictStr | None = None
    notes: StrictStr | None = None
    actualized: StrictBool = False


class TransactionBulkCreate(Closed):
    transactions: Annotated[list[TransactionCreate], Field(min_length=1, max_length=500)]


class TransactionItemCreate(Closed):
    line_number: StrictStr = ""
    description: StrictStr = ""
    budget_line_id: Id = "-"
    fringe_id: Id = "-"
    contact_id: Id = "-"
    qty: StrictStr = ""
    unit: StrictStr = ""
    rate: StrictStr = ""
    amount: Money
    tag_ids: list[Id] = []


class TransactionItemPatch(Closed):
    line_number: StrictStr | None = None
    description: StrictStr | None = None
    budget_line_id: Id | None = None
    fringe_id: Id | None = None
    contact_id: Id | None = None
    qty: StrictStr | None = None
    unit: StrictStr | None = None
    rate: StrictStr | None = None
    amount: Money | None = None
    tag_ids: list[Id] = []


class CommentTarget(Closed):
    kind: Literal["project", "budgetLine", "transaction", "purchaseOrder", "contact", "document"]
    id: Id


class CommentCreate(Closed):
    content: Annotated[StrictStr, Field(min_length=1)]
    target: CommentTarget


class RatePackCreate(Closed):
    name: Name
    description: StrictStr = ""
    category: StrictStr = "custom"


class RatePackItemCreate(Closed):
    title: Name
    rate: Money
    unit: StrictStr
    description: StrictStr = ""
    quantity: Number = 0


Int64 = Annotated[StrictInt, Field(ge=-(2**63), le=2**63 - 1)]


class PurchaseOrderItemWrite(Closed):
    """PurchaseOrderItemWrite (create and update alike): qty and rate as text, amount in minor units."""

    description: StrictStr | None = None
    budget_line_id: StrictStr | None = None
    qty: StrictStr | None = None
    rate: StrictStr | None = None
    amount: Int64 | None = None


class PurchaseOrderCreate(Closed):
    """PurchaseOrderCreate: a draft; nothing is required and nothing is nullable; at most 100 items inline."""

    project_id: StrictStr = ""
    number: StrictStr = ""
    name: StrictStr = ""
    contact_id: StrictStr = ""
    notes: StrictStr = ""
    sort: Number = 0
    items: Annotated[list[PurchaseOrderItemWrite], Field(max_length=100)] = []


class PurchaseOrderUpdate(Closed):
    """PurchaseOrderUpdate: a draft's or rejected order's header (no items: they have writes of their own); each
    field published nullable, a null clearing it."""

    number: StrictStr | None = None
    name: StrictStr | None = None
    contact_id: StrictStr | None = None
    notes: StrictStr | None = None
    sort: Number | None = None


class DocumentUploadMetadata(Closed):
    """The upload's ``metadata`` part. The description names DocumentCreateMetadata without defining it; its
    one example sends ``name`` (and ``links``): the bridge sends the name alone and links afterwards (A93)."""

    name: Annotated[StrictStr, Field(min_length=1, max_length=255)]


class DocumentLinkRequest(Closed):
    target_id: Id
    phase_id: Id | None = None
    replace: StrictBool = False


class DocumentUpdate(Closed):
    name: Annotated[StrictStr, Field(min_length=1, max_length=255)] = "-"
    description: StrictStr | None = None
    folder_id: Id | None = None
