"""The published legacy response shapes, encoded in our own words (never copied from the description).

Each shape is a ``TypedDict`` validated by pydantic in strict mode: a required field is a required key, an
optional one a ``NotRequired`` key, and ``None`` is accepted only where the description marks the field
``nullable``. Unlike v1, the legacy description closes none of its objects, so every shape here is open: an
unlisted key is allowed, but a listed one must have its published type. A published ``number`` takes an
integer or a float, never text. ``legacy.contract`` binds these shapes to operations.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, NotRequired

from pydantic import ConfigDict, Field, with_config
from typing_extensions import TypedDict  # pydantic needs this one before Python 3.12

from bridge.emulator.wire.formats import Date, DateTime

OPEN = ConfigDict(extra="allow", strict=True)
Number = float  # strict pydantic takes an int for a float, and refuses text
# AccountSummary and ContactAccount require a ``description`` their properties never type: any value passes (A48).
Undeclared = Any


@with_config(OPEN)
class Error(TypedDict):
    error: str
    details: NotRequired[dict[str, Any]]
    code: NotRequired[str]


# -- workspace records ----------------------------------------------------------------------------------------


@with_config(OPEN)
class Named(TypedDict, total=False):
    id: str
    name: str


@with_config(OPEN)
class Project(TypedDict):
    id: str
    name: NotRequired[str | None]
    icon: NotRequired[str | None]
    imageUrl: NotRequired[str | None]
    spaceId: NotRequired[str | None]
    space: NotRequired[Named | None]
    templateId: NotRequired[str | None]
    template: NotRequired[Named | None]
    status: Literal["active", "archived"]
    labels: NotRequired[list[str]]
    createdAt: DateTime
    updatedAt: DateTime


@with_config(OPEN)
class Space(TypedDict):
    id: str
    alias: str
    name: str
    image: NotRequired[str | None]
    archived: bool
    projectCount: NotRequired[int]
    projects: NotRequired[list[Project]]
    createdAt: NotRequired[DateTime]
    updatedAt: NotRequired[DateTime]


# -- contacts -------------------------------------------------------------------------------------------------


@with_config(OPEN)
class ContactUser(TypedDict):
    id: str
    name: str
    email: str


@with_config(OPEN)
class SecureInfo(TypedDict, total=False):
    address: str | None
    phone: str | None
    taxIdLast4: str | None


@with_config(OPEN)
class Origin(TypedDict, total=False):
    origin: Literal["onboarding", "manual", "api"] | None
    createdAt: DateTime | None
    createdByUser: ContactUser | None


@with_config(OPEN)
class Startwork(TypedDict):
    id: str
    title: str
    signedOn: DateTime


@with_config(OPEN)
class BankDetail(TypedDict, total=False):
    id: str
    name: str
    logo: str | None


@with_config(OPEN)
class BankAccount(TypedDict):
    id: str
    accountHolderType: Literal["individual", "company"]
    bankName: str
    accountType: Literal["checking", "savings"]
    accountLast4: NotRequired[str | None]
    routingNumber: NotRequired[str | None]
    detailInfo: NotRequired[BankDetail | None]


@with_config(OPEN)
class File(TypedDict):
    id: str
    name: str
    type: str
    size: int


@with_config(OPEN)
class ContactAccount(TypedDict):
    type: NotRequired[Literal["account", "markup", "line", "fringes"]]
    id: str
    accountId: str | None
    description: Undeclared


@with_config(OPEN)
class ContactProject(TypedDict):
    id: str
    name: str
    accounts: NotRequired[list[ContactAccount]]


@with_config(OPEN)
class Contact(TypedDict):
    id: str
    contactTitle: NotRequired[str | None]
    name: NotRequired[str | None]
    email: NotRequired[str | None]
    company: NotRequired[str | None]
    type: NotRequired[Literal["Contractor", "Employee", "Company"] | None]
    jobTitle: NotRequired[str | None]
    rate: NotRequired[Number | None]
    lastModified: DateTime
    secureInfo: NotRequired[SecureInfo]
    origin: NotRequired[Origin]
    startwork: NotRequired[list[Startwork]]
    linkedUser: NotRequired[ContactUser | None]
    bankInfo: NotRequired[list[BankAccount] | None]
    taxDocuments: NotRequired[list[File]]
    attachments: NotRequired[list[File]]
    projects: NotRequired[dict[str, ContactProject]]


# -- budget ---------------------------------------------------------------------------------------------------


@with_config(OPEN)
class Currency(TypedDict, total=False):
    code: str | None
    symbol: str | None
    exchangeRate: Number | None
    isConversionEnabled: bool | None


@with_config(OPEN)
class Phase(TypedDict):
    type: Literal["estimate", "actual", "rollup", "committed"]
    id: str
    alias: str
    name: NotRequired[str | None]
    isHidden: bool
    isLocked: bool
    currency: NotRequired[Currency | None]
    operation: NotRequired[Literal["sum", "difference"]]
    phaseIds: NotRequired[list[str]]
    lastModified: DateTime


@with_config(OPEN)
class Fringe(TypedDict):
    id: str
    code: NotRequired[str | None]
    units: Literal["percent", "flat", "total"]
    rate: NotRequired[Number | None]
    cutoff: NotRequired[Number | None]
    lastModified: DateTime


@with_config(OPEN)
class Global(TypedDict):
    id: str
    symbol: NotRequired[str | None]
    unit: NotRequired[str | None]
    formula: NotRequired[str | None]
    lastModified: DateTime


@with_config(OPEN)
class FringeBreakdown(TypedDict):
    id: str
    code: NotRequired[str | None]
    amount: Number


@with_config(OPEN)
class OvertimeStep(TypedDict, total=False):
    threshold: Number
    multiplier: Number


@with_config(OPEN)
class Overtime(TypedDict):
    mode: Literal["formula", "flat"]
    flatAmount: NotRequired[Number]
    overtimeHours: NotRequired[Number]
    baseHours: Number
    multipliers: NotRequired[list[OvertimeStep]]


@with_config(OPEN)
class DateSpan(TypedDict, total=False):
    startDate: Date | None
    endDate: Date | None


@with_config(OPEN)
class PhaseData(TypedDict, total=False):
    quantity: Number | None
    unit: str | None
    rate: Number | None
    multiplier: Number | None
    fringes: list[str]
    date: DateSpan
    overtime: Number | None
    overtimeDetail: Overtime
    quantityFormula: str
    rateFormula: str
    multiplierFormula: str
    fringeTotal: Number
    fringeBreakdown: dict[str, FringeBreakdown]


@with_config(OPEN)
class Note(TypedDict, total=False):
    id: str | None
    text: str | None
    html: str | None
    json: str | None


SubtotalColor = Literal[
    "red", "rose", "pink", "fuchsia", "purple", "violet", "indigo", "blue", "sky", "cyan", "teal", "green",
    "yellow", "amber", "orange",
]  # fmt: skip


@with_config(OPEN)
class BudgetLine(TypedDict):
    """One line of any kind: the kinds share the base fields and each adds its own (subtotal: alias and color;
    markup: includeAccounts; fringes: breakdown), optional like every field beyond the base's required ones."""

    type: Literal["line", "account", "subtotal", "markup", "fringes"]
    id: str
    accountId: NotRequired[str | None]
    path: str
    totals: dict[str, Number]
    tags: NotRequired[list[str]]
    # Null when an expanded line has no contact: what the official SDKs read (the description shows no null).
    contact: NotRequired[Contact | None]
    phaseData: NotRequired[dict[str, PhaseData]]
    # A line without a note omits it (`nullable` beside `allOf` admits no null under OAS 3.0.3).
    note: NotRequired[Note]
    lastModified: NotRequired[DateTime]
    alias: NotRequired[str | None]
    color: NotRequired[SubtotalColor]
    includeAccounts: NotRequired[list[str]]
    breakdown: NotRequired[dict[str, dict[str, FringeBreakdown]]]


@with_config(OPEN)
class Account(TypedDict):
    id: str
    accountId: NotRequired[str | None]
    path: str
    lines: list[BudgetLine]
    totals: dict[str, Number]
    contact: NotRequired[Contact]
    lastModified: NotRequired[DateTime]


@with_config(OPEN)
class Budget(TypedDict):
    account: Account
    subAccounts: NotRequired[dict[str, Account]]
    phases: NotRequired[list[Phase]]
    fringes: NotRequired[list[Fringe]]
    globals: NotRequired[list[Global]]


@with_config(OPEN)
class AccountSummary(TypedDict):
    id: str
    accountId: str | None
    path: str
    description: Undeclared
    lastModified: NotRequired[DateTime]


# -- tags and actuals -----------------------------------------------------------------------------------------


@with_config(OPEN)
class TagTotals(TypedDict):
    phaseTotals: dict[str, Number]
    fringeTotals: dict[str, Number]
    actualTotal: Number


@with_config(OPEN)
class Tag(TypedDict):
    id: str
    name: Annotated[str, Field(min_length=1, max_length=100)]
    color: NotRequired[Annotated[str, Field(pattern=r"^#[0-9A-Fa-f]{6}$")]]
    totals: TagTotals


ActualType = Literal[
    "SaturationACH", "SaturationPCard", "SaturationWire", "ACH", "Cash", "Check", "CreditCard", "Wire",
    "ETransfer", "Invoice", "Projection", "TimeCard",
]  # fmt: skip
OneOrMany = str | None | list[str]


@with_config(OPEN)
class SubActual(TypedDict):
    id: str
    lineId: NotRequired[str | None]
    amount: NotRequired[Number | None]
    accountId: NotRequired[str | None]
    accountPath: NotRequired[str | None]
    quantity: NotRequired[Number]
    unit: NotRequired[str]
    rate: NotRequired[Number]
    account: NotRequired[BudgetLine | None]
    lastModified: DateTime


@with_config(OPEN)
class Actual(TypedDict):
    id: str
    amount: NotRequired[Number | None]
    date: NotRequired[DateTime | None]
    mode: Literal["default", "split"]
    accountId: NotRequired[OneOrMany]
    accountPath: NotRequired[OneOrMany]
    type: NotRequired[ActualType | None]
    attachments: NotRequired[list[File] | None]
    ref: NotRequired[str | None]
    payId: NotRequired[str | None]
    status: NotRequired[Literal["Unpaid", "Pending", "Paid", "Refund", "NeedsReview"] | None]
    notes: NotRequired[str | None]
    tags: NotRequired[list[str]]
    purchaseOrderId: NotRequired[str | None]
    transactionId: NotRequired[str | None]
    contact: NotRequired[Contact | None]
    subactuals: NotRequired[list[SubActual] | None]
    account: NotRequired[BudgetLine | None]
    lastModified: DateTime


# -- list envelopes: the description lists each key without requiring it; tags alone require theirs -----------


@with_config(OPEN)
class Projects(TypedDict, total=False):
    projects: list[Project]


@with_config(OPEN)
class Spaces(TypedDict, total=False):
    spaces: list[Space]


@with_config(OPEN)
class Contacts(TypedDict, total=False):
    contacts: list[Contact]


@with_config(OPEN)
class Accounts(TypedDict, total=False):
    accounts: list[AccountSummary]


@with_config(OPEN)
class Phases(TypedDict, total=False):
    phases: list[Phase]


@with_config(OPEN)
class Fringes(TypedDict, total=False):
    fringes: list[Fringe]


@with_config(OPEN)
class Globals(TypedDict, total=False):
    globals: list[Global]


@with_config(OPEN)
class Tags(TypedDict):
    tags: list[Tag]


@with_config(OPEN)
class Actuals(TypedDict, total=False):
    actuals: list[Actual]
    totalAmount: Number
