"""v1 rate packs: the workspace's own packs and their items (kept per workspace in ``PackLibrary``), and the
published write shapes for them, closed (``RatePackCreate``/``Update``, ``RatePackItemCreate``/``Update``).

A pack made through the API is the workspace's own (``private``, owned, never deprecated) and enabled at once.
An item's rate is Money in integer minor units; ``unit`` is free text on v1 (the legacy enum is not v1's).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from pydantic import Field

from bridge.emulator.v1.requests import Closed, DateText, Money, NonEmpty, Number, Patch


@dataclass(slots=True)
class RatePackItem:
    id: str
    title: str
    rate_minor: int
    currency: str
    unit: str
    details: dict[str, object] = field(default_factory=dict)
    """The published optional fields as sent (description, quantity, multiplier, group, agreement, local,
    effectiveDate, labels, displayTags), under their wire names."""


@dataclass(slots=True)
class RatePack:
    id: str
    slug: str
    name: str
    created_at: datetime
    description: str | None = None
    category: str = "custom"
    tags: list[str] = field(default_factory=list)
    enabled: bool = True
    enabled_at: datetime | None = None
    items: dict[str, RatePackItem] = field(default_factory=dict)


Tags = list[str]


class RatePackCreate(Closed):
    name: NonEmpty
    description: str = ""
    category: str = "custom"
    tags: Tags = Field(default_factory=list)


class RatePackUpdate(Patch):
    name: NonEmpty = "-"
    description: str | None = None
    category: str = ""
    tags: Tags = Field(default_factory=list)


class _ItemDetails(Closed):
    labels: Tags = Field(default_factory=list)
    display_tags: Tags = Field(default_factory=list)


class RatePackItemCreate(_ItemDetails):
    title: NonEmpty
    rate: Money
    unit: str
    description: str = ""
    quantity: Number = 0
    multiplier: Number = 0
    group: str = ""
    agreement: str = ""
    local: str = ""
    effective_date: DateText = ""


class RatePackItemUpdate(Patch, _ItemDetails):
    title: NonEmpty = "-"
    rate: Money = Money(amount=0, currency="USD")
    unit: str = ""
    description: str | None = None
    quantity: Number | None = None
    multiplier: Number | None = None
    group: str | None = None
    agreement: str | None = None
    local: str | None = None
    effective_date: DateText | None = None
