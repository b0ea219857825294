"""The v1 write shapes the bridge may send, as closed models, and the published operation each write is.

Every body the bridge writes to v1 is validated here before it is journalled or sent: each model is the
published request shape (additionalProperties false -> ``extra="forbid"``; the published nullability,
enums, lengths and bounds), so a field the description has no place for (a budget line's tags, a markup's
excludeFringes) or a null where it publishes a plain string cannot be built. A model may declare fewer fields
than the description (only what the bridge writes); it never declares one more.

``OPERATIONS`` names each operation the bridge uses by its published operationId, with its method, path
template, body shape and, for a bulk, the body's list of entries (its bulk limit is the shape's published
maxItems). The layers above name an operation and its path parameters; only ``Operation.render`` makes a path.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictFloat, StrictInt, StrictStr, ValidationError
from pydantic.alias_generators import to_camel
from pydantic_core import PydanticSerializationError

from bridge.clients.compose import Encoded
from bridge.errors import ValidationFailed


class UnpublishedBody(ValidationFailed):
    """A request body the published v1 description does not allow: never sent, its records quarantined."""

    def __init__(self, message: str) -> None:
        # Refused here, before any service saw it: the code is ours (the service's codes name its refusals).
        super().__init__(message, code="unpublished_body")


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


@dataclass(frozen=True, slots=True)
class FanOut:
    """A write the engine journals as one intent of many single-record requests (split items have no bulk).

    The intent's body is ``{list_field: [{param: <path value>, body: <request body>}, ...]}``: each entry is one
    request, its path parameter ``param`` taken from the entry. Journalled, the intent's path holds
    ``FANOUT_MARK`` in place of that parameter (no one request is the intent)."""

    list_field: str
    param: str
    body: str
    limit: int


# A journalled fan-out's path holds this in place of its entries' own path parameter.
FANOUT_MARK = "-"


@dataclass(frozen=True, slots=True)
class Operation:
    """One published v1 operation: its operationId, method, path template, body shape and (bulk) list field.

    The client alone turns an operation and its path parameters into a path (``render``) and back
    (``params_of``); everything above it names operations, never routes."""

    id: str
    method: str
    template: str
    body: type[Closed] | None
    list_field: str | None = None
    fan_out: FanOut | None = None
    # A list read page by page (limit and cursor); False for a list answered whole (budget_listPhases, A47).
    pages: bool = True
    # Sent as multipart/form-data: the body is the ``metadata`` part, the file travels beside it (uploads).
    multipart: bool = False
    # Which path parameter names the record a keyless write (a PATCH, a link's PUT) is booked under: the last
    # (a patched record, a transaction linked to an order), or another (a document linked to its target).
    record: int = -1
    # The template's segments, None for a parameter: split once, since every request is matched against them.
    segments: tuple[str | None, ...] = field(init=False, repr=False, compare=False)
    # Whether pydantic writes every body of this shape as json.dumps writes it (see ``encoded``).
    exact_json: bool = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        parts = self.template.strip("/").split("/")
        object.__setattr__(self, "segments", tuple(None if part.startswith("{") else part for part in parts))
        object.__setattr__(self, "exact_json", self.body is not None and _written_as_json_dumps(self.body))

    @property
    def parameters(self) -> int:
        return sum(part is None for part in self.segments)

    @property
    def bulk_limit(self) -> int:
        """How many records one request carries at most: the published maxItems of a bulk's list (a fan-out's
        own limit for a fan-out, one otherwise)."""
        if self.fan_out is not None:
            return self.fan_out.limit
        if self.list_field is None or self.body is None:
            return 1
        info = self.body.model_fields[_snake(self.list_field)]
        return next(int(m.max_length) for m in info.metadata if getattr(m, "max_length", None) is not None)

    def render(self, params: Sequence[str]) -> str:
        """The path of this operation with ``params`` in template order (a fan-out intent's: ``FANOUT_MARK``
        for its entries' own parameter, which it is not given)."""
        values = list(params)
        if self.fan_out is not None and len(values) == self.parameters - 1:
            values.append(FANOUT_MARK)
        if len(values) != self.parameters:
            raise ValueError(f"{self.id} takes {self.parameters} path parameters, not {len(values)}")
        filled = iter(values)
        return "/" + "/".join(part if part is not None else next(filled) for part in self.segments)

    def params_of(self, path: str) -> tuple[str, ...]:
        """The path parameters of a path this operation rendered (a journalled intent read back)."""
        theirs = path.strip("/").split("/")
        fits = len(theirs) == len(self.segments) and all(
            ours is None or ours == part for ours, part in zip(self.segments, theirs, strict=True)
        )
        if not fits:
            raise ValueError(f"{path} is not a path of {self.id}")
        found = tuple(part for ours, part in zip(self.segments, theirs, strict=True) if ours is None)
        return found[:-1] if self.fan_out is not None and found[-1:] == (FANOUT_MARK,) else found


def _snake(name: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in name)


# Schema nodes pydantic writes as JSON byte for byte as ``json.dumps`` (compact, not ASCII-only) writes them:
# text (the same escapes), integers of any size, flags, null, lists, objects and the models built of them. A
# float is not among them (pydantic writes 1e-05 as 1e-5).
_EXACT_JSON_NODES = frozenset(
    {"model", "model-fields", "model-field", "default", "nullable", "str", "int", "bool", "literal", "list"}
)


def _written_as_json_dumps(model: type[Closed]) -> bool:
    """Whether every node of ``model``'s validation schema is one pydantic writes as json.dumps does."""
    pending: list[object] = [model.__pydantic_core_schema__]
    while pending:
        node = pending.pop()
        if isinstance(node, dict):
            kind = node.get("type")
            if isinstance(kind, str) and kind not in _EXACT_JSON_NODES:
                return False
            pending.extend(node.values())
        elif isinstance(node, list | tuple):
            pending.extend(node)
    return True


def _op(
    op_id: str,
    method: str,
    template: str,
    body: type[Closed] | None = None,
    *,
    bulk: str | None = None,
    fan_out: FanOut | None = None,
    pages: bool = True,
    multipart: bool = False,
    record: int = -1,
) -> Operation:
    return Operation(op_id, method, template, body, bulk, fan_out, pages, multipart, record)


_PROJECT = "/projects/{projectId}"
_LINES = f"{_PROJECT}/budget/lines"
# Split items have no bulk endpoint: one POST /transactions/{id}/items each. A fan-out journals up to 200 of
# them as ONE intent (one journal record and one completion instead of one per item); each entry is
# {"transactionId", "item"} and goes with its own key derived from the intent's.
_ITEMS = FanOut(list_field="items", param="transactionId", body="item", limit=200)
_ORDER = "/purchase-orders/{purchaseOrderId}"
# The operations the bridge uses: the writes it sends and the lists it reads records back from.
OPERATIONS: tuple[Operation, ...] = (
    _op("spaces_list", "GET", "/spaces"),
    _op("spaces_create", "POST", "/spaces", SpaceCreate),
    _op("spaces_update", "PATCH", "/spaces/{spaceId}", SpaceUpdate),
    _op("projects_list", "GET", "/projects"),
    _op("projects_create", "POST", "/projects", ProjectCreate),
    _op("projects_update", "PATCH", _PROJECT, ProjectUpdate),
    _op("contacts_list", "GET", "/contacts"),
    _op("contacts_create", "POST", "/contacts", ContactCreate),
    _op("contacts_update", "PATCH", "/contacts/{contactId}", ContactUpdate),
    _op("library_listTags", "GET", "/library/tags"),
    _op("library_createTag", "POST", "/library/tags", TagCreate),
    _op("library_updateTag", "PATCH", "/library/tags/{tagId}", TagUpdate),
    _op("library_listCurrencies", "GET", "/library/currencies"),
    _op("library_createCurrency", "POST", "/library/currencies", CurrencyWrite),
    _op("library_updateCurrency", "PATCH", "/library/currencies/{currencyId}", CurrencyWrite),
    _op("library_listFringes", "GET", "/library/fringes"),
    _op("library_createFringe", "POST", "/library/fringes", FringeWrite),
    _op("library_updateFringe", "PATCH", "/library/fringes/{fringeId}", FringeWrite),
    _op("library_listGlobals", "GET", "/library/globals"),
    _op("library_createGlobal", "POST", "/library/globals", GlobalWrite),
    _op("library_updateGlobal", "PATCH", "/library/globals/{globalId}", GlobalWrite),
    _op("library_listProjectCurrencies", "GET", f"{_PROJECT}/library/currencies"),
    _op("library_addProjectCurrency", "POST", f"{_PROJECT}/library/currencies", ProjectCopyAdd),
    _op("library_updateProjectCurrency", "PATCH", f"{_PROJECT}/library/currencies/{{currencyId}}", CurrencyWrite),
    _op("library_listProjectFringes", "GET", f"{_PROJECT}/library/fringes"),
    _op("library_addProjectFringe", "POST", f"{_PROJECT}/library/fringes", ProjectCopyAdd),
    _op("library_updateProjectFringe", "PATCH", f"{_PROJECT}/library/fringes/{{fringeId}}", FringeWrite),
    _op("library_listProjectGlobals", "GET", f"{_PROJECT}/library/globals"),
    _op("library_addProjectGlobal", "POST", f"{_PROJECT}/library/globals", ProjectCopyAdd),
    _op("library_updateProjectGlobal", "PATCH", f"{_PROJECT}/library/globals/{{globalId}}", GlobalWrite),
    _op("budget_listPhases", "GET", f"{_PROJECT}/budget/phases", pages=False),
    _op("budget_createPhase", "POST", f"{_PROJECT}/budget/phases", PhaseCreate),
    _op("budget_updatePhase", "PATCH", f"{_PROJECT}/budget/phases/{{phaseId}}", PhaseUpdate),
    _op("budget_listLines", "GET", _LINES),
    _op("budget_createLinesBulk", "POST", f"{_LINES}/bulk", LineBulkCreate, bulk="lines"),
    _op("budget_updateLine", "PATCH", f"{_LINES}/{{lineId}}", LineUpdate),
    _op("transactions_list", "GET", "/transactions"),
    _op("transactions_get", "GET", "/transactions/{transactionId}"),
    _op("transactions_update", "PATCH", "/transactions/{transactionId}", TransactionPatch),
    _op("transactions_createBulk", "POST", "/transactions/bulk", TransactionBulkCreate, bulk="transactions"),
    _op(
        "transactions_createItem", "POST", "/transactions/{transactionId}/items", TransactionItemCreate, fan_out=_ITEMS
    ),
    _op("transactions_updateItem", "PATCH", "/transactions/{transactionId}/items/{itemId}", TransactionItemPatch),
    _op("comments_list", "GET", f"{_PROJECT}/comments"),
    _op("comments_create", "POST", f"{_PROJECT}/comments", CommentCreate),
    _op("library_listRatePacks", "GET", "/library/rate-packs"),
    _op("library_createRatePack", "POST", "/library/rate-packs", RatePackCreate),
    _op("library_listRatePackItems", "GET", "/library/rate-packs/{packId}/items"),
    _op("library_createRatePackItem", "POST", "/library/rate-packs/{packId}/items", RatePackItemCreate),
    _op("purchase-orders_list", "GET", "/purchase-orders"),
    _op("purchase-orders_get", "GET", _ORDER),
    _op("purchase-orders_create", "POST", "/purchase-orders", PurchaseOrderCreate),
    _op("purchase-orders_delete", "DELETE", _ORDER),
    _op("purchase-orders_submit", "POST", f"{_ORDER}/submit"),
    _op("purchase-orders_listItems", "GET", f"{_ORDER}/items"),
    _op("purchase-orders_createItem", "POST", f"{_ORDER}/items", PurchaseOrderItemWrite),
    # A PUT with no body and no Idempotency-Key (none is published): linking again changes nothing.
    _op("purchase-orders_linkTransaction", "PUT", f"{_ORDER}/transactions/{{transactionId}}"),
    _op("documents_list", "GET", "/documents"),
    _op("documents_get", "GET", "/documents/{documentId}"),
    _op("documents_getContent", "GET", "/documents/{documentId}/content"),
    _op("documents_upload", "POST", "/documents", DocumentUploadMetadata, multipart=True),
    _op("documents_update", "PATCH", "/documents/{documentId}", DocumentUpdate),
    _op("documents_link", "PUT", "/documents/{documentId}/links/{kind}", DocumentLinkRequest, record=0),
)
BY_ID: dict[str, Operation] = {op.id: op for op in OPERATIONS}


def checked(operation: Operation, body: Mapping[str, object] | None) -> Closed | None:
    """``body`` as the operation's closed model; UnpublishedBody names what the description does not allow."""
    if operation.body is None:
        if body:
            raise UnpublishedBody(f"{operation.id} takes no body")
        return None
    try:
        model = operation.body.model_validate(dict(body or {}))
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in error['loc']) or 'body'}: {error['msg']}" for error in exc.errors()
        )
        raise UnpublishedBody(f"{operation.id}: the published request shape does not allow {problems}") from exc
    if operation.method == "PATCH" and not model.model_fields_set:
        raise UnpublishedBody(f"{operation.id}: an update must change at least one field")
    return model


def checked_write(operation: Operation, body: Mapping[str, object]) -> None:
    """Check a journalled write's body; a fan-out's is checked entry by entry (each entry's request body)."""
    fan_out = operation.fan_out
    if fan_out is None:
        checked(operation, body)
        return
    entries = body.get(fan_out.list_field)
    for entry in entries if isinstance(entries, list) else []:
        item = entry.get(fan_out.body) if isinstance(entry, Mapping) else None
        checked(operation, item if isinstance(item, Mapping) else {})


def wire(model: Closed | None) -> dict[str, object] | None:
    """The JSON object a checked model sends: only the fields that were set, nulls kept where published."""
    return None if model is None else model.model_dump(mode="json", exclude_unset=True, by_alias=True)


def encoded(operation: Operation, model: Closed) -> Encoded | None:
    """``wire(model)`` written as the JSON text httpx would send for it, when pydantic writes it the same
    (``Operation.exact_json``), else None. Writing it straight from the model cost half what building the
    object and encoding it with json.dumps cost (a 500-transaction bulk, a split item)."""
    if not operation.exact_json:
        return None
    try:
        return Encoded(model.__pydantic_serializer__.to_json(model, exclude_unset=True, by_alias=True))
    except PydanticSerializationError:
        return None  # text json.dumps writes or refuses its own way (a lone surrogate): left to it
