"""The published v1 response shapes the emulator serves, encoded in our own words, and a check against them.

Written from reading the v1 description (never copied from it): each shape is a ``TypedDict`` validated by
pydantic in strict mode, so a required field is a required key, an optional one a ``NotRequired`` key, a
null is accepted only where the description publishes ``null`` among the types, and a shape the description
closes (``additionalProperties: false``, nearly all of them) refuses unknown keys. ``check(method, path,
status, body)`` names every way one response breaks its operation's published shape; an operation this
module does not encode (the library's fringes, globals, currencies, units and packs) is not checked.

The emulator's routes do not use this module: it is the oracle the tests hold the emulator's answers to.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import datetime
from typing import Annotated, Any, Literal, NotRequired

from pydantic import AfterValidator, ConfigDict, Field, TypeAdapter, ValidationError, with_config
from typing_extensions import TypedDict  # pydantic needs this one before Python 3.12

# -- formats ------------------------------------------------------------------------------------------------

_DATE_TIME = re.compile(r"^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
# An address with a local part and a dotted host name: what ``format: email`` takes.
_EMAIL = re.compile(
    r"^[^@\s]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)+$"
)


def _matching(pattern: re.Pattern[str], name: str) -> AfterValidator:
    def valid(value: str) -> str:
        if not pattern.match(value):
            raise ValueError(f"{value!r} is not a valid {name}")
        if name == "date-time":
            datetime.fromisoformat(value.replace("z", "Z").replace("t", "T"))
        return value

    return AfterValidator(valid)


DateTime = Annotated[str, _matching(_DATE_TIME, "date-time")]
Date = Annotated[str, _matching(_DATE, "date")]
Email = Annotated[str, _matching(_EMAIL, "email")]
Id = str
Cell = float | int | str | None  # a phase-data value: a number, a formula, or nothing
CLOSED = ConfigDict(extra="forbid", strict=True)


# -- shared pieces --------------------------------------------------------------------------------------------


@with_config(CLOSED)
class Money(TypedDict):
    amount: int
    currency: str


ErrorCode = Literal[
    "unauthenticated", "invalid_token", "missing_authorization", "token_revoked", "permission_revoked",
    "scope_exceeded", "forbidden", "feature_not_available", "upgrade_required", "capacity_exceeded",
    "approval_required", "resource_locked", "temporarily_unavailable", "role_ceiling_exceeded",
    "api_access_disabled", "not_found", "document_target_not_found", "validation", "cursor_invalid",
    "expand_invalid", "invalid_date_range", "webhook_https_required", "range_too_large", "account_path_ambiguous",
    "account_code_ambiguous", "budget_compute_stale", "idempotency_conflict", "already_linked",
    "status_unreachable_for_source", "po_invalid_status", "webhook_url_invalid_ssrf", "phase_copy_unsupported",
    "field_read_only", "scenario_too_large", "source_not_postable", "webhook_url_blocked", "budget_too_large",
    "bulk_too_large", "rate_limited", "signing_key_not_configured", "internal_error", "budget_compute_timeout",
]  # fmt: skip


@with_config(CLOSED)
class Error(TypedDict):
    success: Literal[False]
    code: ErrorCode
    message: str
    requestId: str
    fieldErrors: NotRequired[dict[str, list[str]]]
    requiredAbility: NotRequired[str]
    retryAfter: NotRequired[int]
    accessDecision: NotRequired[dict[str, Any]]


# -- identity, spaces, projects, contacts ---------------------------------------------------------------------


@with_config(CLOSED)
class WorkspaceReach(TypedDict):
    workspaceId: Id
    workspaceName: NotRequired[str]
    workspaceRole: Literal["owner", "admin", "accountant", "edit", "comment", "view"]


@with_config(CLOSED)
class Me(TypedDict):
    id: Id
    type: Literal["user", "service"]
    email: NotRequired[Email]
    name: NotRequired[str]
    workspaces: list[WorkspaceReach]


@with_config(CLOSED)
class Space(TypedDict):
    id: Id
    slug: str
    name: str
    image: NotRequired[str | None]
    parentId: NotRequired[Id | None]
    archived: bool
    createdAt: DateTime
    updatedAt: DateTime


@with_config(CLOSED)
class ProjectTag(TypedDict):
    id: Id
    name: str
    color: str


@with_config(CLOSED)
class Project(TypedDict):
    id: Id
    slug: str
    name: str
    emoji: NotRequired[str | None]
    image: NotRequired[str | None]
    status: Literal["active", "archived"]
    summary: NotRequired[str | None]
    spaceId: NotRequired[Id | None]
    projectType: NotRequired[str | None]
    tags: NotRequired[list[ProjectTag]]
    createdBy: NotRequired[dict[str, Any] | None]
    createdAt: DateTime
    updatedAt: DateTime
    access: NotRequired[dict[str, Any]]
    assumptions: NotRequired[dict[str, Any] | None]


@with_config(CLOSED)
class DefaultBudget(TypedDict):
    budgetId: Id
    estimatePhaseId: Id


@with_config(CLOSED)
class ProjectCreated(Project):
    defaultBudget: DefaultBudget


ContactType = Literal["contractor", "employee", "company", "vendor"]


@with_config(CLOSED)
class Contact(TypedDict):
    id: Id
    displayName: str
    name: NotRequired[str | None]
    company: NotRequired[str | None]
    title: NotRequired[str | None]
    type: NotRequired[ContactType | None]
    email: NotRequired[str | None]
    phone: NotRequired[str | None]
    address: NotRequired[str | None]
    website: NotRequired[str | None]
    instagram: NotRequired[str | None]
    imdb: NotRequired[str | None]
    rate: NotRequired[Money | None]
    track1099: bool
    taxIdLast4: NotRequired[str | None]
    hasTaxId: NotRequired[bool]
    notes: NotRequired[str | None]
    createdAt: DateTime
    updatedAt: DateTime
    documents: NotRequired[list[dict[str, Any]]]
    transactions: NotRequired[list[dict[str, Any]]]


@with_config(CLOSED)
class Tag(TypedDict):
    id: Id
    name: str
    color: NotRequired[str | None]
    description: NotRequired[str | None]
    eligibilityKey: NotRequired[str | None]
    sort: NotRequired[float | int | None]
    createdAt: DateTime
    updatedAt: DateTime


# -- budget ---------------------------------------------------------------------------------------------------


@with_config(CLOSED)
class FringeShare(TypedDict):
    id: Id
    name: str
    amount: int


@with_config(CLOSED)
class DocumentValues(TypedDict):
    base: int
    overtime: int
    fringe: int
    fringeBreakdown: list[FringeShare]
    amount: int
    currency: str


@with_config(CLOSED)
class PhaseValues(DocumentValues):
    combined: int


@with_config(CLOSED)
class Overtime(TypedDict):
    mode: NotRequired[str | None]
    flatAmount: NotRequired[float | int | None]
    hours: NotRequired[float | int | None]
    baseHours: NotRequired[float | int | None]
    multipliers: NotRequired[Any]
    detail: NotRequired[Any]


@with_config(CLOSED)
class PhaseData(TypedDict):
    rate: Cell
    quantity: Cell
    multiplier: Cell
    qtyAutoDerived: bool
    unit: str | None
    customUnitId: Id | None
    unitLabel: str | None
    startDate: str | None
    endDate: str | None
    fringeIds: list[Id]
    fringeGroupIds: list[Id]
    currencyId: Id | None
    overtime: Overtime | None


@with_config(CLOSED)
class LineContact(TypedDict):
    id: Id
    displayName: str
    name: str | None
    company: str | None
    email: str | None
    type: str | None


@with_config(CLOSED)
class BudgetLine(TypedDict):
    id: Id
    accountId: NotRequired[str | None]
    path: NotRequired[str | None]
    type: Literal["account", "line", "subtotal", "fringe", "markup", "credit", "banner"]
    description: str
    parentId: Id | None
    depth: NotRequired[int]
    sort: int
    contactId: NotRequired[Id | None]
    lineColor: NotRequired[str | None]
    emoji: NotRequired[str | None]
    notes: NotRequired[str | None]
    tagIds: NotRequired[list[Id]]
    subtotalSumAllAbove: NotRequired[bool]
    subtotalIsBold: NotRequired[bool]
    markupAccountFilter: NotRequired[str | None]
    contact: NotRequired[LineContact | None]
    phaseTotals: NotRequired[dict[Id, PhaseValues]]
    phaseData: NotRequired[dict[Id, PhaseData]]


@with_config(CLOSED)
class BudgetPhase(TypedDict):
    id: Id
    type: Literal["estimate", "actual", "rollup", "committed"]
    name: str
    alias: NotRequired[str | None]
    color: NotRequired[str | None]
    sort: int
    isHidden: bool
    displayDecimals: NotRequired[int | None]
    baseCurrencyId: NotRequired[Id | None]
    actualDateStart: NotRequired[Date | None]
    actualDateEnd: NotRequired[Date | None]
    actualStatuses: NotRequired[list[str] | None]
    actualSourceTypes: NotRequired[list[str] | None]
    actualCurrencies: NotRequired[list[str] | None]
    actualContactId: NotRequired[Id | None]
    actualTagIds: NotRequired[list[Id]]
    actualBudgetLineIds: NotRequired[list[Id] | None]
    estimateTagIds: NotRequired[list[Id]]
    overtimeFactors: NotRequired[list[Literal["qty", "x"]]]
    committedDateStart: NotRequired[Date | None]
    committedDateEnd: NotRequired[Date | None]
    committedContactId: NotRequired[Id | None]
    committedPhaseIds: NotRequired[list[Id]]
    committedPoStatuses: NotRequired[
        list[Literal["approved", "paymentRequested", "paymentRejected", "paymentProcessing"]]
    ]
    rollupFormula: NotRequired[str | None]
    rollupDisplayMode: NotRequired[Literal["value", "percent", "bars", "margin"] | None]


@with_config(CLOSED)
class Selection(TypedDict):
    """The selection a document or totals answer applied: only what was given, never null."""

    path: NotRequired[str]
    accountId: NotRequired[str]
    phase: NotRequired[str]


@with_config(CLOSED)
class DocumentLine(TypedDict):
    id: Id
    accountId: NotRequired[str | None]
    description: str
    parentId: Id | None
    path: NotRequired[str | None]
    depth: int
    type: Literal["account", "line", "credit", "fringe"]
    values: dict[Id, DocumentValues]
    phaseData: dict[Id, PhaseData]


@with_config(CLOSED)
class BudgetDocument(TypedDict):
    id: Id
    computedAt: DateTime
    selection: Selection
    phases: list[BudgetPhase]
    totals: dict[Id, DocumentValues]
    lines: list[DocumentLine]


@with_config(CLOSED)
class BudgetTotals(TypedDict):
    computedAt: DateTime
    totals: dict[Id, PhaseValues]
    filter: NotRequired[Selection]


@with_config(CLOSED)
class LineList(TypedDict):
    data: list[BudgetLine]


@with_config(CLOSED)
class PhaseDataUpsert(TypedDict):
    lineId: Id
    phaseId: Id
    phaseData: PhaseData


@with_config(CLOSED)
class PhaseDataUpserts(TypedDict):
    data: list[PhaseDataUpsert]


# -- transactions ---------------------------------------------------------------------------------------------


@with_config(CLOSED)
class ItemTag(TypedDict):
    id: Id
    name: str
    color: str | None


@with_config(CLOSED)
class TransactionItem(TypedDict):
    id: Id
    lineNumber: str | None
    description: NotRequired[str | None]
    budgetLineId: NotRequired[Id | None]
    fringeId: NotRequired[Id | None]
    contactId: NotRequired[Id | None]
    qty: NotRequired[str | None]
    unit: NotRequired[str | None]
    customUnitId: NotRequired[Id | None]
    rate: NotRequired[str | None]
    amount: Money | None
    overtime: NotRequired[str | None]
    taxable: NotRequired[str | None]
    nonTaxable: NotRequired[str | None]
    account: NotRequired[dict[str, Any] | None]
    tagIds: list[Id]
    tags: list[ItemTag]


@with_config(CLOSED)
class Transaction(TypedDict):
    id: Id
    source: Literal["manual", "plaid", "saturation_pay", "saturation_credit"]
    sourceId: NotRequired[str | None]
    type: (
        Literal[
            "SaturationPCard", "ACH", "Cash", "Check", "CreditCard", "Deposit", "ETransfer", "Invoice", "Projection",
            "TimeCard", "Wire", "Withdrawal",
        ]
        | None
    )  # fmt: skip
    status: Literal["unpaid", "pending", "posted", "void", "needs_review", "projected", "rejected"]
    isReversal: bool
    amount: Money
    exchangeRate: NotRequired[float | int | None]
    exchangeRateSource: NotRequired[Literal["bank", "api", "user"] | None]
    timestamp: DateTime
    description: NotRequired[str | None]
    merchant: NotRequired[str | None]
    logoUrl: NotRequired[str | None]
    category: NotRequired[str | None]
    sourceLast4: NotRequired[str | None]
    sourceName: NotRequired[str | None]
    number: NotRequired[str | None]
    ref: NotRequired[str | None]
    payId: NotRequired[str | None]
    notes: NotRequired[str | None]
    contactId: NotRequired[Id | None]
    projectId: Id | None
    budgetLineId: NotRequired[Id | None]
    fringeId: NotRequired[Id | None]
    isItemized: bool
    actualized: bool
    purchaseOrderId: NotRequired[Id | None]
    createdAt: DateTime
    updatedAt: DateTime
    contact: NotRequired[dict[str, Any] | None]
    documents: NotRequired[list[dict[str, Any]]]
    items: NotRequired[list[TransactionItem]]
    account: NotRequired[dict[str, Any] | None]
    purchaseOrder: NotRequired[dict[str, Any] | None]


# -- webhooks -------------------------------------------------------------------------------------------------

WebhookEvent = Literal[
    "transaction.created", "transaction.updated", "budget.changed", "purchaseOrder.created",
    "purchaseOrder.pending", "purchaseOrder.approved", "purchaseOrder.rejected", "purchaseOrder.actualizing",
    "purchaseOrder.paid", "purchaseOrder.void", "document.created", "document.linked", "document.unlinked",
    "document.deleted", "incentive.added", "pack.installed", "pack.uninstalled",
]  # fmt: skip
DeliveryStatus = Literal["pending", "success", "failed", "blocked", "dropped"]


@with_config(CLOSED)
class Webhook(TypedDict):
    id: Id
    url: str
    events: list[WebhookEvent]
    isActive: bool
    workspaceId: Id
    projectId: NotRequired[Id]
    lastDeliveryAt: NotRequired[DateTime]
    lastDeliveryStatus: NotRequired[DeliveryStatus]
    createdAt: DateTime
    updatedAt: DateTime


@with_config(CLOSED)
class WebhookWithSecret(Webhook):
    secret: str


@with_config(CLOSED)
class WebhookDelivery(TypedDict):
    id: Id
    event: WebhookEvent | Literal["ping"]
    status: DeliveryStatus
    entityKind: str
    entityId: Id
    requestUrl: NotRequired[str]
    responseStatus: NotRequired[int]
    attempts: Annotated[int, Field(ge=1)]
    nextRetryAt: NotRequired[DateTime]
    error: NotRequired[str]
    occurredAt: DateTime
    deliveredAt: NotRequired[DateTime]


# -- collections ----------------------------------------------------------------------------------------------


def _page(item: Any) -> Any:
    """A published ``{data, nextCursor?, count?, truncated?}`` collection of ``item`` (the functional form, so
    the item type is bound now rather than resolved from a string later)."""
    fields = {
        "data": list[item],
        "nextCursor": NotRequired[str | None],
        "count": NotRequired[int],
        "truncated": NotRequired[bool],
        "statusReachability": NotRequired[dict[str, Any]],  # only transaction collections publish it
    }
    return with_config(CLOSED)(TypedDict(f"{item.__name__}Page", fields))  # type: ignore[operator]


# -- operations -----------------------------------------------------------------------------------------------

NO_BODY = None  # 204 and 304 answers carry no body
P = "/projects/{projectId}"
B = P + "/budget"

# (method, path template under /v1) -> published success status -> shape. Error statuses all take Error.
OPERATIONS: Mapping[tuple[str, str], Mapping[int, Any]] = {
    ("GET", "/me"): {200: Me},
    ("GET", "/spaces"): {200: _page(Space)},
    ("POST", "/spaces"): {201: Space},
    ("PATCH", "/spaces/{spaceId}"): {200: Space},
    ("DELETE", "/spaces/{spaceId}"): {204: NO_BODY},
    ("GET", "/projects"): {200: _page(Project)},
    ("POST", "/projects"): {201: ProjectCreated},
    ("GET", P): {200: Project},
    ("PATCH", P): {200: Project},
    ("GET", "/contacts"): {200: _page(Contact)},
    ("POST", "/contacts"): {201: Contact},
    ("GET", "/contacts/{contactId}"): {200: Contact},
    ("PATCH", "/contacts/{contactId}"): {200: Contact},
    ("DELETE", "/contacts/{contactId}"): {204: NO_BODY},
    ("GET", B): {200: BudgetDocument, 304: NO_BODY},
    ("GET", B + "/totals"): {200: BudgetTotals, 304: NO_BODY},
    ("GET", B + "/phases"): {200: _page(BudgetPhase)},
    ("POST", B + "/phases"): {201: BudgetPhase},
    ("GET", B + "/phases/{phaseId}"): {200: BudgetPhase},
    ("PATCH", B + "/phases/{phaseId}"): {200: BudgetPhase},
    ("DELETE", B + "/phases/{phaseId}"): {204: NO_BODY},
    ("GET", B + "/lines"): {200: _page(BudgetLine)},
    ("POST", B + "/lines"): {201: BudgetLine},
    ("POST", B + "/lines/bulk"): {201: LineList},
    ("POST", B + "/lines/phase-data/bulk"): {200: PhaseDataUpserts},
    ("GET", B + "/lines/{lineId}"): {200: BudgetLine},
    ("PATCH", B + "/lines/{lineId}"): {200: BudgetLine},
    ("DELETE", B + "/lines/{lineId}"): {204: NO_BODY},
    ("PUT", B + "/lines/{lineId}/phase-data/{phaseId}"): {200: PhaseDataUpsert},
    ("GET", "/library/tags"): {200: _page(Tag)},
    ("POST", "/library/tags"): {201: Tag},
    ("GET", "/library/tags/{tagId}"): {200: Tag},
    ("PATCH", "/library/tags/{tagId}"): {200: Tag},
    ("DELETE", "/library/tags/{tagId}"): {204: NO_BODY},
    ("GET", P + "/library/tags"): {200: _page(Tag)},
    ("GET", "/transactions"): {200: _page(Transaction)},
    ("POST", "/transactions"): {201: Transaction},
    ("POST", "/transactions/bulk"): {201: _page(Transaction)},
    ("GET", "/transactions/{transactionId}"): {200: Transaction},
    ("PATCH", "/transactions/{transactionId}"): {200: Transaction},
    ("GET", "/transactions/{transactionId}/items"): {200: _page(TransactionItem)},
    ("POST", "/transactions/{transactionId}/items"): {201: TransactionItem},
    ("GET", "/webhooks"): {200: _page(Webhook)},
    ("POST", "/webhooks"): {201: WebhookWithSecret},
    ("GET", "/webhooks/{webhookId}"): {200: Webhook},
    ("PATCH", "/webhooks/{webhookId}"): {200: Webhook},
    ("DELETE", "/webhooks/{webhookId}"): {204: NO_BODY},
    ("POST", "/webhooks/{webhookId}/test-delivery"): {202: WebhookDelivery},
    ("GET", "/webhooks/{webhookId}/deliveries"): {200: _page(WebhookDelivery)},
}


def _pattern(template: str) -> re.Pattern[str]:
    return re.compile("^" + re.sub(r"\\\{[^}]+\\\}", "[^/]+", re.escape(template)) + "$")


# Literal segments win over parameters (``/lines/bulk`` is not ``/lines/{lineId}``): fewer parameters first.
_MATCHERS = sorted(
    ((method, template, _pattern(template)) for method, template in OPERATIONS),
    key=lambda entry: entry[1].count("{"),
)
_ADAPTERS: dict[object, TypeAdapter[Any]] = {}


def operation(method: str, path: str) -> str | None:
    """The template of the encoded operation serving ``method path`` (path under /v1), or None."""
    for wanted, template, pattern in _MATCHERS:
        if wanted == method.upper() and pattern.match(path):
            return template
    return None


def _adapter(shape: Any) -> TypeAdapter[Any]:
    if shape not in _ADAPTERS:
        _ADAPTERS[shape] = TypeAdapter(shape)
    return _ADAPTERS[shape]


def check(method: str, path: str, status: int, body: object) -> list[str]:
    """Every way this response breaks its operation's published shape (empty when it conforms or when the
    operation is not encoded here). ``path`` is under /v1; ``body`` is the parsed JSON (None for no body)."""
    template = operation(method, path)
    if template is None:
        return []
    where = f"{method.upper()} {template} -> {status}"
    if status >= 400:
        shape: object = Error
    elif status in OPERATIONS[(method.upper(), template)]:
        shape = OPERATIONS[(method.upper(), template)][status]
    else:
        return [f"{where}: status {status} is not a published answer of this operation"]
    if shape is NO_BODY:
        return [] if body is None else [f"{where}: a body where the description publishes none"]
    try:
        _adapter(shape).validate_python(body)
    except ValidationError as exc:
        return [
            f"{where}: {'/'.join(str(p) for p in error['loc']) or '<root>'}: {error['msg']}" for error in exc.errors()
        ]
    return []
