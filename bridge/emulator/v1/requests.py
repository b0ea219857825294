"""The v1 write shapes the published description gives, as closed pydantic models (our own encoding) (A50-A53).

Each model is closed where the description closes the shape (every write body the bridge sends is), strict
about JSON types (no "5" for 5, no 1 for true), and carries the published nullability, lengths, bounds, enums,
formats and item counts. ``parse`` checks a decoded JSON body against one of them and returns it under its
wire names, or raises the documented 400 ``validation`` with ``fieldErrors`` keyed by field path (A50). What
a body means (references, money, tree rules) stays with the routes and the store; a field the description
accepts but the emulator does not model is accepted and not kept (A53).
"""

from __future__ import annotations

from datetime import date
from typing import Annotated, Literal

import pydantic
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, PlainValidator, field_validator, model_validator
from pydantic.alias_generators import to_camel
from pydantic_core import ErrorDetails

from bridge.emulator.v1.errors import ValidationError
from bridge.emulator.wire.formats import DATE, is_date_time

Json = dict[str, object]

# -- field types ------------------------------------------------------------------------------------------------


def number(value: object) -> int | float:
    """A JSON number (int or float as decoded, so 0.1 stays what was sent); a boolean is not a number."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError("must be a number")
    return value


def _date(value: str) -> str:
    """An RFC 3339 full-date (``format: date``)."""
    try:
        if DATE.match(value):
            date.fromisoformat(value)
            return value
    except ValueError:
        pass
    raise ValueError(f"{value!r} is not a date like 2024-05-31")


def _date_time(value: str) -> str:
    """An RFC 3339 date-time; a bare date is accepted too, as the description says it means midnight UTC (A51)."""
    if is_date_time(value):
        return value
    if DATE.match(value):
        return _date(value)
    raise ValueError(f"{value!r} is not an RFC 3339 date-time like 2024-05-31T12:00:00Z")


Number = Annotated[int | float, PlainValidator(number)]
DateText = Annotated[str, AfterValidator(_date)]
DateTimeText = Annotated[str, AfterValidator(_date_time)]
NonEmpty = Annotated[str, Field(min_length=1)]
Text255 = Annotated[str, Field(max_length=255)]
CurrencyCode = Annotated[str, Field(min_length=3, max_length=3)]
Int64 = Annotated[int, Field(ge=-(2**63), le=2**63 - 1)]
ContactType = Literal["contractor", "employee", "company", "vendor"]
TagColor = Literal[
    "slate", "gray", "zinc", "red", "orange", "amber", "yellow", "lime", "green", "emerald",
    "teal", "cyan", "sky", "blue", "indigo", "violet", "purple", "pink", "rose",
]  # fmt: skip
ManualType = Literal["Invoice", "Projection", "Cash", "Check", "Wire", "ACH", "CreditCard", "TimeCard", "ETransfer"]
TransactionType = Literal[
    "SaturationPCard", "ACH", "Cash", "Check", "CreditCard", "Deposit", "ETransfer", "Invoice", "Projection",
    "TimeCard", "Wire", "Withdrawal",
]  # fmt: skip
TransactionStatus = Literal["unpaid", "pending", "posted", "void", "needs_review", "projected", "rejected"]


class Closed(BaseModel):
    """A published shape with ``additionalProperties: false``; fields are read under their camelCase wire names."""

    model_config = ConfigDict(extra="forbid", strict=True, alias_generator=to_camel, frozen=True)


class Patch(Closed):
    """A partial update: ``minProperties: 1``."""

    @model_validator(mode="after")
    def _not_empty(self) -> Patch:
        if not self.model_fields_set:
            raise ValueError("send at least one field to change")
        return self


class Money(Closed):
    amount: Int64
    currency: CurrencyCode


# -- projects, spaces, contacts --------------------------------------------------------------------------------


class ProjectCreate(Closed):
    name: NonEmpty
    slug: str = ""
    emoji: str | None = None
    image: str | None = None
    summary: str | None = None
    space_id: str | None = None
    project_type: str | None = None
    tag_ids: list[str] = Field(default_factory=list)


class ProjectUpdate(Patch):
    name: NonEmpty = "-"
    slug: str = ""
    emoji: str | None = None
    image: str | None = None
    summary: str | None = None
    space_id: str | None = None
    status: Literal["active", "archived"] = "active"
    project_type: str | None = None
    tag_ids: list[str] = Field(default_factory=list)


class SpaceCreate(Closed):
    name: NonEmpty
    slug: str = ""
    image: str | None = None
    parent_id: str | None = None


class SpaceUpdate(Patch):
    name: NonEmpty = "-"
    slug: str = ""
    image: str | None = None
    parent_id: str | None = None
    archived: bool = False


class _ContactFields(Closed):
    company: str | None = None
    title: str | None = None
    type: ContactType = "contractor"
    email: str | None = None
    phone: str | None = None
    address: str | None = None
    website: str | None = None
    instagram: str | None = None
    imdb: str | None = None
    rate: Money | None = None
    track1099: bool = False
    notes: str | None = None


class ContactCreate(_ContactFields):
    name: NonEmpty


class ContactUpdate(_ContactFields, Patch):
    name: NonEmpty = "-"


# -- library ----------------------------------------------------------------------------------------------------


class FringeWrite(Closed):
    name: NonEmpty = "-"
    description: str | None = None
    calculation_type: Literal["percent", "flat", "total"] = "percent"
    rate: Number | None = None
    cutoff: Number | None = None
    fringe_group_ids: list[str] = Field(default_factory=list)
    color: str | None = None


class GlobalWrite(Closed):
    symbol: NonEmpty | None = None
    description: str | None = None
    formula: str | None = None
    unit: str | None = None
    custom_unit_id: str | None = None


class CurrencyWrite(Closed):
    code: CurrencyCode = "USD"
    name: str | None = None
    symbol: str | None = None
    rate_to_usd: Number | None = Field(default=None, alias="rateToUSD")


class FringeGroupWrite(Closed):
    name: NonEmpty = "-"
    color: TagColor | None = None


class TagCreate(Closed):
    name: NonEmpty
    color: TagColor | None = None
    description: str = ""
    eligibility_key: str = ""


class TagUpdate(Patch):
    name: NonEmpty = "-"
    color: TagColor | None = None
    description: str | None = None
    eligibility_key: str | None = None


class UnitCreate(Closed):
    label: NonEmpty
    plural_label: str | None = None
    category: Literal["time", "quantity", "flat"] = "quantity"
    hours_per_unit: Annotated[Number, Field(ge=0)] | None = None
    color: str | None = None
    description: str = ""


class UnitUpdate(Patch):
    label: NonEmpty = "-"
    plural_label: str | None = None
    category: Literal["time", "quantity", "flat"] = "quantity"
    hours_per_unit: Annotated[Number, Field(ge=0)] | None = None
    color: str | None = None
    description: str | None = None


class CopyAdd(Closed):
    source_id: str


LIBRARY_CREATE: dict[str, type[Closed]] = {
    "currencies": CurrencyWrite,
    "fringes": FringeWrite,
    "fringe-groups": FringeGroupWrite,
    "globals": GlobalWrite,
    "tags": TagCreate,
    "units": UnitCreate,
}
LIBRARY_UPDATE: dict[str, type[Closed]] = {**LIBRARY_CREATE, "tags": TagUpdate, "units": UnitUpdate}

# -- transactions -----------------------------------------------------------------------------------------------


class TransactionCreate(Closed):
    type: ManualType
    amount: Money
    timestamp: DateTimeText
    status: TransactionStatus = "posted"
    description: str = ""
    project_id: str = ""
    contact_id: str = ""
    budget_line_id: str = ""
    fringe_id: str = ""
    number: str = ""
    ref: str = ""
    notes: str = ""
    actualized: bool = True


class TransactionBulkCreate(Closed):
    transactions: Annotated[list[TransactionCreate], Field(min_length=1, max_length=500)]


class TransactionPatch(Patch):
    project_id: str | None = None
    contact_id: str | None = None
    budget_line_id: str | None = None
    fringe_id: str | None = None
    notes: str | None = None
    number: str | None = None
    ref: str | None = None
    amount: Money | None = None  # optional, but not nullable: a null is refused below
    timestamp: DateTimeText = ""
    type: TransactionType = "Invoice"
    status: TransactionStatus = "posted"
    description: str | None = None
    merchant: str | None = None
    source_last4: str | None = None
    source_name: str | None = None
    actualized: bool = True

    @field_validator("amount", mode="before")
    @classmethod
    def _amount_not_null(cls, value: object) -> object:
        if value is None:
            raise ValueError("must be Money {amount, currency}, not null")
        return value


class TransactionItemCreate(Closed):
    amount: Money
    line_number: str = ""
    description: str = ""
    budget_line_id: str = ""
    fringe_id: str = ""
    contact_id: str = ""
    qty: str = ""
    unit: str = ""
    custom_unit_id: str = ""
    rate: str = ""
    overtime: str = ""
    taxable: str = ""
    non_taxable: str = ""
    tag_ids: list[str] = Field(default_factory=list)


class TransactionItemPatch(Patch):
    """Every field optional and nullable but tagIds (an array, ``[]`` removes every tag)."""

    amount: Money | None = None
    line_number: str | None = None
    description: str | None = None
    budget_line_id: str | None = None
    fringe_id: str | None = None
    contact_id: str | None = None
    qty: str | None = None
    unit: str | None = None
    custom_unit_id: str | None = None
    rate: str | None = None
    overtime: str | None = None
    taxable: str | None = None
    non_taxable: str | None = None
    tag_ids: list[str] = Field(default_factory=list)


# -- parsing ----------------------------------------------------------------------------------------------------

BODY = "body"


def field_path(loc: tuple[int | str, ...]) -> str:
    """A pydantic location as the wire path: ``lines[3].phaseData.phs_1.rate``; the body itself is ``body``."""
    path = ""
    for part in loc:
        path += f"[{part}]" if isinstance(part, int) else (f".{part}" if path else part)
    return path or BODY


def _message(error: ErrorDetails) -> str:
    kind = error["type"]
    if kind == "extra_forbidden":
        return "is not a field of this shape; remove it"
    if kind == "missing":
        return "is required"
    if kind == "value_error":
        return str(error["ctx"]["error"]) if "ctx" in error else error["msg"]
    return str(error["msg"])


def field_errors(exc: pydantic.ValidationError) -> dict[str, list[str]]:
    """The documented ``fieldErrors`` map: field path -> messages, in the order pydantic found them."""
    found: dict[str, list[str]] = {}
    for error in exc.errors(include_url=False):
        found.setdefault(field_path(tuple(error["loc"])), []).append(_message(error))
    return found


def refusal(exc: pydantic.ValidationError) -> ValidationError:
    """The 400 ``validation`` a body that does not fit its published shape is answered with."""
    errors = field_errors(exc)
    first, messages = next(iter(errors.items()))
    more = sum(len(m) for m in errors.values()) - 1
    tail = f" (and {more} more problem{'s' if more > 1 else ''})" if more else ""
    return ValidationError(
        f"The request does not fit the published shape: {first}: {messages[0]}{tail}. Nothing was changed.",
        fieldErrors=errors,
    )


def parse(model: type[Closed], body: object) -> Json:
    """``body`` checked against ``model``: the fields that were sent, under their wire names, else the 400."""
    try:
        parsed = model.model_validate(body)
    except pydantic.ValidationError as exc:
        raise refusal(exc) from None
    return wire_fields(parsed)


def wire_fields(parsed: Closed) -> Json:
    """The fields a checked body was sent with, under their wire names."""
    return parsed.model_dump(by_alias=True, exclude_unset=True)
