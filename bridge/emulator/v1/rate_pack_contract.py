"""The published v1 rate-pack response shapes, in our own words (strict and closed, as ``v1.contract_shapes``)."""

from __future__ import annotations

from typing import Literal, NotRequired

from pydantic import with_config
from typing_extensions import TypedDict  # pydantic needs this one before Python 3.12

from bridge.emulator.v1.contract_shapes import CLOSED, Id, Money
from bridge.emulator.wire.formats import Date, DateTime

Number = float | int


@with_config(CLOSED)
class RatePackVersion(TypedDict, total=False):
    id: Id
    effectiveDate: Date | None
    itemCount: int


@with_config(CLOSED)
class RatePackItem(TypedDict):
    id: Id
    title: str
    description: NotRequired[str | None]
    rate: Money
    unit: str
    quantity: NotRequired[Number | None]
    multiplier: NotRequired[Number | None]
    group: NotRequired[str | None]
    agreement: NotRequired[str | None]
    local: NotRequired[str | None]
    effectiveDate: NotRequired[Date | None]
    labels: NotRequired[list[str]]
    displayTags: NotRequired[list[str]]
    version: NotRequired[RatePackVersion]


@with_config(CLOSED)
class RatePack(TypedDict):
    id: Id
    slug: str
    name: str
    description: NotRequired[str | None]
    publisher: NotRequired[str | None]
    category: str
    tags: NotRequired[list[str]]
    visibility: Literal["public", "private", "shared"]
    isOwned: bool
    deprecated: bool
    enabled: bool
    enabledAt: NotRequired[DateTime | None]
    enabledBy: NotRequired[Id | None]
    latestVersion: NotRequired[RatePackVersion]
    items: NotRequired[list[RatePackItem]]


@with_config(CLOSED)
class RatePackEnableLink(TypedDict):
    id: Id
    ratePackId: Id
    enabledAt: DateTime
