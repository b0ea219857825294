"""Records beyond the budget and the ledger: comments, rich-text notes and workspace rates.

They live in their own module so ``model`` can hold them (a project's comments and notes, a workspace's rates)
while the stores that guard them (``comments``, ``notes``, ``rates``) import the model.

- A ``Comment`` is one record both surfaces show: legacy lists the budget's (HTML or plain content, an author
  with an email), v1 the project's (Markdown content, a target, threads). The content is kept as written.
- A ``Note`` is the rich form of a budget note: plain text, HTML and a TipTap JSON document. A line's v1
  ``notes`` is its text; the rich form stands while that text is unchanged (``core.notes``).
- A ``Rate`` is a legacy workspace rate; every field but the id may be empty, as the legacy description allows.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import Literal

CommentTargetKind = Literal["project", "budgetLine", "transaction", "purchaseOrder", "contact", "document"]
COMMENT_TARGET_KINDS: tuple[CommentTargetKind, ...] = (
    "project",
    "budgetLine",
    "transaction",
    "purchaseOrder",
    "contact",
    "document",
)
RateUnit = Literal["hour", "day", "week", "month", "year", "each", "sqft", "sqm", "lnft", "lnm"]
RATE_UNITS: tuple[RateUnit, ...] = ("hour", "day", "week", "month", "year", "each", "sqft", "sqm", "lnft", "lnm")
ROOT_NOTE = "root"
"""The key of a project's root (budget) note among its notes; line notes are keyed by node id."""


@dataclass(frozen=True, slots=True)
class Author:
    """Who wrote a comment: a v1 token's user, or a legacy user (the seed's)."""

    id: str
    name: str
    email: str


@dataclass(slots=True)
class CommentTag:
    """A mention or resource link in a comment (v1 ``tags``)."""

    id: str
    target_type: str
    target_id: str
    label: str
    kind: Literal["mention", "anchor"] = "mention"


@dataclass(slots=True)
class Comment:
    id: str
    content: str
    target_kind: CommentTargetKind
    target_id: str
    author: Author
    created_at: datetime
    updated_at: datetime
    thread_id: str | None = None
    resolved: bool = False
    edited: bool = False
    tags: list[CommentTag] = field(default_factory=list)


@dataclass(slots=True)
class Note:
    """A budget note in the three forms the legacy surface serves; ``json`` is the TipTap document as text."""

    id: str
    text: str
    html: str
    json: str


@dataclass(slots=True)
class Rate:
    id: str
    identifier: str | None = None
    emoji: str | None = None
    description: str | None = None
    note: str | None = None
    quantity: Decimal | None = None
    rate: Decimal | None = None
    unit: str | None = None
    contact_id: str | None = None
