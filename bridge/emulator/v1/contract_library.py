"""The published v1 library response shapes (workspace items and project copies), in our own words.

Same rules as ``v1.contract_shapes``: strict, closed TypedDicts; a required field is a required key and
``null`` is allowed only where the description lists it. A project copy is its workspace shape plus where it
came from (``sourceType``, ``sourceId``) and, with ``expand=source``, the source or a tombstone.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, NotRequired

from pydantic import Field, with_config
from typing_extensions import TypedDict  # pydantic needs this one before Python 3.12

from bridge.emulator.v1.contract_shapes import CLOSED, Id
from bridge.emulator.wire.formats import DateTime

Number = float | int
TagColor = Literal[
    "slate", "gray", "zinc", "red", "orange", "amber", "yellow", "lime", "green", "emerald", "teal", "cyan", "sky",
    "blue", "indigo", "violet", "purple", "pink", "rose",
]  # fmt: skip
SourceType = Literal["workspace", "saturation"]
Code = Annotated[str, Field(min_length=3, max_length=3)]


@with_config(CLOSED)
class Tombstone(TypedDict):
    id: Id
    deleted: Literal[True]


@with_config(CLOSED)
class Currency(TypedDict):
    id: Id
    code: Code
    name: NotRequired[str | None]
    symbol: NotRequired[str | None]
    rateToUSD: NotRequired[Number | None]


@with_config(CLOSED)
class Fringe(TypedDict):
    id: Id
    name: str
    description: str | None
    calculationType: Literal["percent", "flat", "total"]
    rate: NotRequired[Number | None]
    cutoff: NotRequired[Number | None]
    fringeGroupIds: list[Id]
    color: str | None


@with_config(CLOSED)
class Global(TypedDict):
    id: Id
    symbol: str | None
    description: str | None
    formula: str | None
    unit: NotRequired[str | None]
    customUnitId: NotRequired[Id | None]
    phaseOverrides: NotRequired[dict[str, str] | None]


@with_config(CLOSED)
class FringeGroup(TypedDict):
    id: Id
    name: str
    color: NotRequired[TagColor]


@with_config(CLOSED)
class Unit(TypedDict):
    id: str
    label: str
    pluralLabel: str | None
    category: Literal["time", "quantity", "flat"]
    hoursPerUnit: Annotated[Number, Field(ge=0)] | None
    color: str | None
    description: NotRequired[str | None]
    isCustom: bool
    createdAt: NotRequired[DateTime]
    updatedAt: NotRequired[DateTime]


@with_config(CLOSED)
class UnitCollection(TypedDict):
    data: list[Unit]


def copy_of(shape: Any) -> Any:
    """The project copy of a workspace ``shape``: its fields plus sourceType, sourceId and the expanded source."""
    fields = {
        **shape.__annotations__,
        "sourceType": SourceType,
        "sourceId": NotRequired[Id | None],
        "source": NotRequired[shape | Tombstone],
    }
    return with_config(CLOSED)(TypedDict(f"Project{shape.__name__}", fields))  # type: ignore[operator]


ProjectCurrency = copy_of(Currency)
ProjectFringe = copy_of(Fringe)
ProjectGlobal = copy_of(Global)
ProjectFringeGroup = copy_of(FringeGroup)
