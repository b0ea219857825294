"""The published v1 response shapes, encoded in our own words (never copied from the description).

Each shape is a ``TypedDict`` validated by pydantic in strict mode, so a required field is a required key, an
optional one a ``NotRequired`` key, a null is accepted only where the description publishes ``null`` among the
types, and a shape the description closes (``additionalProperties: false``, nearly all of them) refuses unknown
keys. ``v1.contract`` binds them to operations; the library's shapes are in ``v1.contract_library``.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal, NotRequired

from pydantic import ConfigDict, Field, with_config
from typing_extensions import TypedDict  # pydantic needs this one before Python 3.12

from bridge.emulator.wire.formats import Date, DateTime, checked

# -- formats ------------------------------------------------------------------------------------------------

# An address with a local part and a dotted host name: what ``format: email`` takes.
_EMAIL = re.compile(
    r"^[^@\s]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)+$"
)
Email = Annotated[str, checked("email", lambda value: _EMAIL.match(value) is not None)]
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


@with_config(CLOSED)
class TransactionStats(TypedDict):
    total: int
    amount: Money


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


def page(item: Any) -> Any:
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
