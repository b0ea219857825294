"""The published legacy shapes of comments, budget notes and workspace rates, in our own words.

Open like every legacy shape (``legacy.contract_shapes``): an unlisted key passes, a listed one must have its
published type, ``None`` only where the description marks the field nullable.
"""

from __future__ import annotations

from typing import Literal, NotRequired

from pydantic import with_config
from typing_extensions import TypedDict  # pydantic needs this one before Python 3.12

from bridge.emulator.legacy.contract_shapes import OPEN, Contact, Note, Number
from bridge.emulator.wire.formats import DateTime


@with_config(OPEN)
class CommentAuthor(TypedDict, total=False):
    id: str
    name: str
    email: str


@with_config(OPEN)
class Comment(TypedDict):
    id: str
    content: str
    accountId: NotRequired[str | None]
    lineId: NotRequired[str | None]
    author: CommentAuthor
    createdAt: DateTime
    updatedAt: NotRequired[DateTime]


@with_config(OPEN)
class Comments(TypedDict, total=False):
    comments: list[Comment]


@with_config(OPEN)
class BudgetNote(TypedDict, total=False):
    # OAS 3.0.3: `nullable` beside `allOf` (no `type` of its own) admits no null; no note is an empty NoteData.
    note: Note


@with_config(OPEN)
class NoteLine(TypedDict):
    id: str
    accountId: NotRequired[str | None]
    type: Literal["account", "subtotal", "markup", "fringeLine"]
    path: str


@with_config(OPEN)
class LineNote(TypedDict):
    note: NotRequired[Note]
    line: NoteLine


@with_config(OPEN)
class Rate(TypedDict):
    id: str
    identifier: NotRequired[str | None]
    emoji: NotRequired[str | None]
    description: NotRequired[str | None]
    note: NotRequired[str | None]
    quantity: NotRequired[Number | None]
    rate: NotRequired[Number | None]
    # OAS 3.0.3: an enum without null admits no null, `nullable` or not: a rate without a unit omits it.
    unit: NotRequired[Literal["hour", "day", "week", "month", "year", "each", "sqft", "sqm", "lnft", "lnm"]]
    contact: NotRequired[Contact]


@with_config(OPEN)
class Rates(TypedDict, total=False):
    rates: list[Rate]
