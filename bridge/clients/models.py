"""Typed v1 responses: the fields the bridge reads, named; every other field kept (``extra="allow"``).

Shapes follow the v1 seed and the wire contract (A04-A08, A16, A18, A19); money in responses is an integer in
minor units with its currency. The models are deliberately lenient where the contract is (optional fields),
so a service that adds a field or omits an optional one never breaks a read.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, TypeVar

from pydantic import BaseModel, ConfigDict, Field

T = TypeVar("T")


class V1Record(BaseModel):
    """Base of every v1 response model: immutable, camelCase on the wire, unknown fields kept."""

    model_config = ConfigDict(extra="allow", frozen=True, populate_by_name=True)


class Money(V1Record):
    amount: int
    currency: str


class WorkspaceRole(V1Record):
    workspace_id: str = Field(alias="workspaceId")
    workspace_role: str = Field(alias="workspaceRole")


class Identity(V1Record):
    id: str
    type: str | None = None
    email: str | None = None
    name: str | None = None
    workspaces: tuple[WorkspaceRole, ...] = ()


class Space(V1Record):
    id: str
    name: str
    slug: str | None = None
    image: str | None = None
    parent_id: str | None = Field(default=None, alias="parentId")
    archived: bool = False


class DefaultBudget(V1Record):
    budget_id: str = Field(alias="budgetId")
    estimate_phase_id: str = Field(alias="estimatePhaseId")


class Project(V1Record):
    id: str
    name: str
    slug: str | None = None
    status: str = "active"
    space_id: str | None = Field(default=None, alias="spaceId")
    default_budget: DefaultBudget | None = Field(default=None, alias="defaultBudget")


class Contact(V1Record):
    id: str
    name: str | None = None
    display_name: str | None = Field(default=None, alias="displayName")


class Phase(V1Record):
    id: str
    name: str
    type: str
    alias: str | None = None
    is_hidden: bool = Field(default=False, alias="isHidden")
    base_currency_id: str | None = Field(default=None, alias="baseCurrencyId")


class LibraryItem(V1Record):
    """A workspace library item or a project copy (currency, fringe, global, tag, unit): id plus its fields."""

    id: str
    source_id: str | None = Field(default=None, alias="sourceId")


class BudgetLine(V1Record):
    id: str
    description: str | None = None
    type: str | None = None
    account_id: str | None = Field(default=None, alias="accountId")
    parent_id: str | None = Field(default=None, alias="parentId")
    path: str | None = None
    tag_ids: tuple[str, ...] = Field(default=(), alias="tagIds")
    phase_data: dict[str, dict[str, object]] = Field(default_factory=dict, alias="phaseData")


class Transaction(V1Record):
    id: str
    amount: Money
    type: str | None = None
    status: str | None = None
    project_id: str | None = Field(default=None, alias="projectId")
    budget_line_id: str | None = Field(default=None, alias="budgetLineId")


class PhaseValues(V1Record):
    """One phase's computed values, integer minor units of the workspace currency (A09)."""

    base: int = 0
    overtime: int = 0
    fringe: int = 0
    amount: int = 0
    currency: str | None = None


class BudgetTotals(V1Record):
    computed_at: str | None = Field(default=None, alias="computedAt")
    totals: dict[str, PhaseValues] = Field(default_factory=dict)


class BudgetDocument(V1Record):
    id: str | None = None
    computed_at: str | None = Field(default=None, alias="computedAt")
    phases: tuple[Phase, ...] = ()
    totals: dict[str, PhaseValues] = Field(default_factory=dict)
    lines: tuple[BudgetLine, ...] = ()


@dataclass(frozen=True, slots=True)
class Cached(Generic[T]):
    """A conditional read: the value, its ETag, and whether it came from the cache after a 304."""

    value: T
    etag: str | None
    not_modified: bool
