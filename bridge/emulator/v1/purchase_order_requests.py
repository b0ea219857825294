"""The published v1 purchase-order write shapes as closed models (``v1.requests`` has the rules they follow).

``PurchaseOrderCreate`` requires nothing and is not nullable; ``PurchaseOrderUpdate`` takes null for every
field (``null`` clears it) and, publishing no ``minProperties``, an empty object too; ``PurchaseOrderItemWrite``
serves the item create and the item update alike, every field nullable, ``qty`` and ``rate`` as text and
``amount`` an integer in minor units.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from bridge.emulator.v1.requests import Closed, DateText, Int64, Number

MAX_ITEMS = 100


class PurchaseOrderItemWrite(Closed):
    line_number: str | None = None
    description: str | None = None
    budget_line_id: str | None = None
    qty: str | None = None
    unit: str | None = None
    rate: str | None = None
    amount: Int64 | None = None
    sort: str | None = None


class PurchaseOrderCreate(Closed):
    project_id: str = ""
    number: str = ""
    name: str = ""
    contact_id: str = ""
    budget_line_id: str = ""
    due_date: DateText = ""
    service_start_at: DateText = ""
    service_end_at: DateText = ""
    notes: str = ""
    sort: Number = 0
    items: Annotated[list[PurchaseOrderItemWrite], Field(max_length=MAX_ITEMS)] = Field(default_factory=list)


class PurchaseOrderUpdate(Closed):
    project_id: str | None = None
    number: str | None = None
    name: str | None = None
    contact_id: str | None = None
    budget_line_id: str | None = None
    due_date: DateText | None = None
    service_start_at: DateText | None = None
    service_end_at: DateText | None = None
    notes: str | None = None
    sort: Number | None = None
