"""Typed legacy records: what the legacy client reads (always in idMode=system) and the mappings consume.

Each record keeps the fields it does not know (``extra="allow"``), so a service that adds a field never
breaks a read, and numbers arrive as the service sent them (``RawNumber``): validating them is the
mappings' job, where a bad value becomes a quarantine entry that names the record and the field.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

RawNumber = float | int | str | None
"""A legacy number as sent: normally a float, but bad records carry strings, NaN, null or formulas."""


class LegacyRecord(BaseModel):
    """Base of every legacy record: immutable, camelCase on the wire, unknown fields kept."""

    model_config = ConfigDict(extra="allow", frozen=True, populate_by_name=True)


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
    labels: tuple[str, ...] = ()
    space_id: str | None = Field(default=None, alias="spaceId")
    space: ProjectSpaceRef | None = None
    icon: str | None = None
    image_url: str | None = Field(default=None, alias="imageUrl")


class Contact(LegacyRecord):
    id: str
    name: str | None = None
    contact_title: str | None = Field(default=None, alias="contactTitle")
    email: str | None = None
    company: str | None = None
    type: str | None = None
    job_title: str | None = Field(default=None, alias="jobTitle")
    rate: RawNumber = None


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
    phase_ids: tuple[str, ...] = Field(default=(), alias="phaseIds")


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
    fringes: tuple[str, ...] = ()
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
    tags: tuple[str, ...] = ()
    contact_id: str | None = Field(default=None, alias="contactId")
    color: str | None = None
    include_accounts: tuple[str, ...] | None = Field(default=None, alias="includeAccounts")
    phase_data: dict[str, PhaseData] = Field(default_factory=dict, alias="phaseData")
    totals: dict[str, RawNumber] = Field(default_factory=dict)


class SubActual(LegacyRecord):
    id: str | None = None
    line_id: str | None = Field(default=None, alias="lineId")
    description: str | None = None
    amount: RawNumber = None
    account_id: str | None = Field(default=None, alias="accountId")


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
    tags: tuple[str, ...] = ()
    contact_id: str | None = Field(default=None, alias="contactId")
    # In system idMode the legacy `accountId` of an actual is the id of the budget line it is coded to.
    account_id: str | None = Field(default=None, alias="accountId")
    subactuals: tuple[SubActual, ...] = ()


class ProjectBudget(LegacyRecord):
    """One project's whole budget as the legacy surface computes it (system idMode, hidden phases in)."""

    project_id: str = Field(alias="projectId")
    phases: tuple[Phase, ...] = ()
    fringes: tuple[Fringe, ...] = ()
    globals_: tuple[Global, ...] = Field(default=(), alias="globals")
    lines: tuple[BudgetLine, ...] = ()
    totals: dict[str, RawNumber] = Field(default_factory=dict)
