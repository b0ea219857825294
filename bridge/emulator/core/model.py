"""The emulated service's entity model: one set of records that both the legacy and the v1 surface show.

Records are plain mutable dataclasses owned by the store (``store.py``); the surfaces never mutate them, they
call store methods. Amounts are ``Decimal`` in major units of their currency. Fields that bad source data can
corrupt (the dirty seed) are typed ``Cell``: the store's own API only ever writes a finite ``Decimal``, a
``'='``-formula string or ``None`` there, but the seed writes raw junk directly so the bridge can be tested on it.

How the two surfaces' concepts share one record:

- legacy project fringes/globals/currencies are the project *copies* of v1 library items (``source_id`` names
  the workspace item, or is ``None`` for a legacy-only item);
- legacy per-project tags (id = name) and v1 workspace tags (``tag_...``) meet on the tag *name*: a node or an
  actual stores tag names, the legacy view shows them, the v1 view resolves them to workspace tag ids;
- legacy actuals are v1 transactions (``Actual``), split parts are v1 transaction items (``SubActual``); a
  project keeps them in a ``Ledger`` (``core.ledger``), by id and in date order;
- a rollup phase stores a v1 ``rollup_formula`` over ``@phaseId`` references; the legacy view derives
  ``operation`` sum|difference and ``phaseIds`` from it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import Literal

from bridge.emulator.core.bank import BankFeed
from bridge.emulator.core.files import Shelf
from bridge.emulator.core.ledger import Ledger
from bridge.emulator.core.purchase_orders import LegacyPurchaseOrder, PurchaseOrder
from bridge.emulator.core.records import Comment, Note, Rate

Cell = Decimal | int | float | str | None
"""A stored number that may be a formula ('=SHOOT_DAYS * 2') or, in dirty seed data, junk ('1,000.00', NaN)."""


PhaseType = Literal["estimate", "actual", "committed", "rollup"]
NodeType = Literal["account", "line", "subtotal", "markup"]
FringeUnits = Literal["percent", "flat", "total"]
MarkupType = Literal["percent", "flat"]
ProjectStatus = Literal["active", "archived"]
ActualMode = Literal["default", "split"]

PHASE_TYPES: tuple[PhaseType, ...] = ("estimate", "actual", "committed", "rollup")
NODE_TYPES: tuple[NodeType, ...] = ("account", "line", "subtotal", "markup")
FRINGE_UNITS: tuple[FringeUnits, ...] = ("percent", "flat", "total")
# A contact's free-text details, under the same name in the model and on the v1 surface.
CONTACT_DETAILS = ("phone", "address", "website", "instagram", "imdb", "notes")


@dataclass(slots=True)
class Space:
    """A group of projects. ``uuid`` is the id the legacy surface shows in system mode (its doc says UUID)."""

    id: str
    alias: str
    name: str
    created_at: datetime
    updated_at: datetime
    uuid: str = ""
    image: str | None = None
    parent_id: str | None = None
    archived: bool = False
    deleted: bool = False


@dataclass(slots=True)
class ProjectCurrency:
    """A currency the project's phases can use; ``rate_to_usd`` is what one unit is worth in USD (A09)."""

    id: str
    code: str
    symbol: str | None
    rate_to_usd: Cell
    source_id: str | None = None


@dataclass(slots=True)
class Fringe:
    """A project fringe (legacy fringe = v1 project fringe copy). ``code`` is the legacy code and v1 name."""

    id: str
    code: str
    units: FringeUnits
    rate: Cell
    description: str | None = None
    cutoff: Cell = None
    source_id: str | None = None
    source_type: Literal["workspace", "saturation"] = "workspace"
    fringe_group_ids: list[str] = field(default_factory=list)
    color: str | None = None
    last_modified: datetime | None = None


@dataclass(slots=True)
class Global:
    """A project global: ``formula`` is a number or an expression over other globals' symbols (A24)."""

    id: str
    symbol: str
    formula: str | None
    description: str | None = None
    unit: str | None = None
    source_id: str | None = None
    last_modified: datetime | None = None


@dataclass(slots=True)
class ProjectTag:
    """A legacy per-project tag; its id is its name (immutable), only ``color`` may change."""

    name: str
    color: str | None = None
    description: str | None = None


@dataclass(slots=True)
class Phase:
    """A budget column. ``currency_id`` names a ``ProjectCurrency``; ``None`` means the workspace currency."""

    id: str
    type: PhaseType
    name: str
    alias: str
    sort: int
    currency_id: str | None = None
    is_hidden: bool = False
    is_locked: bool = False
    color: str | None = None
    rollup_formula: str | None = None
    last_modified: datetime | None = None


@dataclass(slots=True)
class PhaseData:
    """One node's values in one phase. Markup nodes use ``markup_type``/``markup_amount``/``exclude_fringes``."""

    quantity: Cell = None
    rate: Cell = None
    multiplier: Cell = None
    unit: str | None = None
    fringe_ids: list[str] = field(default_factory=list)
    markup_type: MarkupType | None = None
    markup_amount: Cell = None
    exclude_fringes: bool = False
    start_date: str | None = None
    end_date: str | None = None


@dataclass(slots=True)
class Node:
    """A budget-tree node. ``parent_id`` None = top level; ``children`` keeps sibling order."""

    id: str
    type: NodeType
    account_code: str | None
    description: str
    parent_id: str | None
    last_modified: datetime
    children: list[str] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)
    contact_id: str | None = None
    color: str | None = None
    alias: str | None = None
    include_accounts: list[str] | None = None
    subtotal_sum_all_above: bool = False
    notes: str | None = None
    phase_data: dict[str, PhaseData] = field(default_factory=dict)


@dataclass(slots=True)
class SubActual:
    """A split part of an actual (v1: a transaction item)."""

    id: str
    amount: Cell
    line_id: str | None = None
    description: str | None = None
    notes: str | None = None
    tags: list[str] = field(default_factory=list)
    # The part's own line label (legacy ``lineId`` read, ``number`` written; v1 ``lineNumber``), not its coding.
    line_number: str | None = None
    # Quantity and rate as numbers (legacy) or the text v1 was sent ("Quantity or formula"); rate in major units.
    quantity: Cell = None
    unit: str | None = None
    rate: Cell = None


@dataclass(slots=True)
class Actual:
    """A legacy actual and, seen from v1, a transaction. ``amount`` is in ``currency`` major units."""

    id: str
    description: str
    amount: Cell
    currency: str
    date: datetime
    created_at: datetime
    updated_at: datetime
    type: str | None = None
    status: str | None = None
    mode: ActualMode = "default"
    line_id: str | None = None
    contact_id: str | None = None
    tags: list[str] = field(default_factory=list)
    ref: str | None = None
    pay_id: str | None = None
    notes: str | None = None
    number: str | None = None
    source: str = "manual"
    actualized: bool = True
    subactuals: list[SubActual] = field(default_factory=list)
    # The purchase order it is linked to (legacy ``purchaseOrderId``; on v1 read-only, set by linking).
    purchase_order_id: str | None = None


@dataclass(slots=True)
class Project:
    """A project with its budget. ``version`` grows on every change; totals caches and ETags key on it."""

    id: str
    alias: str
    name: str
    created_at: datetime
    updated_at: datetime
    status: ProjectStatus = "active"
    labels: list[str] = field(default_factory=list)
    space_id: str | None = None
    emoji: str | None = None
    image: str | None = None
    summary: str | None = None
    project_type: str | None = None
    tag_ids: list[str] = field(default_factory=list)
    deleted: bool = False
    budget_id: str = ""
    version: int = 0
    phases: dict[str, Phase] = field(default_factory=dict)
    currencies: dict[str, ProjectCurrency] = field(default_factory=dict)
    fringes: dict[str, Fringe] = field(default_factory=dict)
    globals: dict[str, Global] = field(default_factory=dict)
    tags: dict[str, ProjectTag] = field(default_factory=dict)
    nodes: dict[str, Node] = field(default_factory=dict)
    roots: list[str] = field(default_factory=list)
    actuals: Ledger = field(default_factory=Ledger)
    purchase_orders: dict[str, LegacyPurchaseOrder] = field(default_factory=dict)
    # The rich forms of the budget notes (``core.notes``) and the comments on the project's records.
    notes: dict[str, Note] = field(default_factory=dict)
    comments: dict[str, Comment] = field(default_factory=dict)


@dataclass(slots=True)
class Contact:
    id: str
    name: str | None
    last_modified: datetime
    contact_title: str | None = None
    email: str | None = None
    company: str | None = None
    type: str | None = None
    job_title: str | None = None
    rate: Cell = None
    phone: str | None = None
    address: str | None = None
    # Legacy ``secureInfo.taxIdLast4``: v1 publishes no contact field for it (tax ids go through documents).
    tax_id_last4: str | None = None
    website: str | None = None
    instagram: str | None = None
    imdb: str | None = None
    notes: str | None = None
    track1099: bool = False


@dataclass(slots=True)
class LibraryCurrency:
    id: str
    code: str
    name: str | None = None
    symbol: str | None = None
    rate_to_usd: Cell = None
    deleted: bool = False


@dataclass(slots=True)
class LibraryFringe:
    id: str
    name: str
    calculation_type: FringeUnits
    rate: Cell
    description: str | None = None
    cutoff: Cell = None
    fringe_group_ids: list[str] = field(default_factory=list)
    color: str | None = None
    deleted: bool = False


@dataclass(slots=True)
class FringeGroup:
    id: str
    name: str
    color: str | None = None
    deleted: bool = False


@dataclass(slots=True)
class LibraryGlobal:
    id: str
    symbol: str
    formula: str | None
    description: str | None = None
    unit: str | None = None
    deleted: bool = False


@dataclass(slots=True)
class LibraryTag:
    id: str
    name: str
    created_at: datetime
    updated_at: datetime
    color: str | None = None
    description: str | None = None
    sort: int = 0
    deleted: bool = False


@dataclass(slots=True)
class Unit:
    id: str
    label: str
    plural_label: str | None = None
    category: Literal["time", "quantity", "flat"] = "quantity"
    hours_per_unit: Decimal | None = None
    color: str | None = None
    description: str | None = None
    is_custom: bool = True
    deleted: bool = False


@dataclass(slots=True)
class Library:
    """Workspace-wide library items (the v1 surface's source of project copies)."""

    currencies: dict[str, LibraryCurrency] = field(default_factory=dict)
    fringes: dict[str, LibraryFringe] = field(default_factory=dict)
    fringe_groups: dict[str, FringeGroup] = field(default_factory=dict)
    globals: dict[str, LibraryGlobal] = field(default_factory=dict)
    tags: dict[str, LibraryTag] = field(default_factory=dict)
    units: dict[str, Unit] = field(default_factory=dict)


@dataclass(slots=True)
class ApiKey:
    """A legacy API key; ``restricted`` makes every call with it answer 403 (workspace access restricted)."""

    key: str
    workspace_id: str
    restricted: bool = False


@dataclass(slots=True)
class Workspace:
    id: str
    name: str
    currency: str = "USD"
    spaces: dict[str, Space] = field(default_factory=dict)
    projects: dict[str, Project] = field(default_factory=dict)
    contacts: dict[str, Contact] = field(default_factory=dict)
    library: Library = field(default_factory=Library)
    version: int = 0
    files: Shelf = field(default_factory=Shelf)
    purchase_orders: dict[str, PurchaseOrder] = field(default_factory=dict)
    rates: dict[str, Rate] = field(default_factory=dict)
    # The v1 plan: which paid features (rate packs) the workspace has (``core.rates.PLANS``).
    plan: str = "studio"
    bank: BankFeed = field(default_factory=BankFeed)


@dataclass(frozen=True, slots=True)
class DirtyRecord:
    """Where a deliberately bad seed value sits: record kind (actual, line, phase, contact, tag), id, field."""

    kind: str
    record_id: str
    field: str
