"""Orders edited on legacy after v1 moved them past draft (A107): the run leaves them as v1 holds them, since v1
takes edits of draft or rejected orders only (``409 po_invalid_status``), so verify explains their items'
difference by that, never as an unexplained mismatch.

An order v1 holds as a draft or rejected is the run's to keep up to date (``engine.order_updates``): a
difference there stays a difference.
"""

from __future__ import annotations

from collections.abc import Mapping

from bridge.verify.order_models import OrderLeft
from mappings.purchase_orders import EDITABLE
from mappings.records import PurchaseOrder

Items = tuple[int, int, str]
"""(count, sum in minor units, currency) of an order's items."""


def left_on_v1(order: PurchaseOrder, row: Mapping[str, object], legacy: Items, v1: Items) -> OrderLeft | None:
    """The explanation of an order whose v1 copy (``row``) differs from what the run sends for it, when v1 holds
    it past draft or rejected; None when it is the same or v1 would take the edit."""
    status = str(row.get("status"))
    if legacy == v1 or status in EDITABLE:
        return None
    return OrderLeft(
        legacy_id=order.id,
        number=order.number,
        v1_id=str(row.get("id")),
        v1_status=status,
        legacy=_said(legacy),
        v1=_said(v1),
    )


def _said(items: Items) -> str:
    count, minor, currency = items
    return f"{count} items, {minor} {currency} minor"
