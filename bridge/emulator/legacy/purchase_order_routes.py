"""Legacy purchase orders: the project's list with its published filters and expands, one order's read, and
the writes the legacy description lists (create under a chosen id, update, delete).

``expands`` takes ``contact``, ``actuals``, ``items`` and ``items.account``; the description's own example
spells the items ``purchaseOrderItems``, so that spelling is taken too (assumption). Items are shown only
when expanded, as every other expandable relation; ``attachments`` is always shown (it is not an expand).
The create body takes the description's fields and the legacy seed's example spellings (``number``,
``vendor``, an item's ``amount`` and ``lineItemId``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from fastapi import APIRouter
from starlette.responses import Response

from bridge.emulator.core.errors import InvalidInput
from bridge.emulator.core.model import Project
from bridge.emulator.core.purchase_orders import LegacyItem, LegacyPurchaseOrder
from bridge.emulator.legacy.actuals_routes import line_id, window
from bridge.emulator.legacy.file_shapes import files_json
from bridge.emulator.legacy.routing import Ctx, LegacyRoute, no_content, ok, renamed
from bridge.emulator.legacy.shapes import Json, LegacyView, num, stamp

router = APIRouter(route_class=LegacyRoute)

BASE = "/projects/{project_id}/purchaseOrders"
ONE = BASE + "/{order_id}"
ORDER_FIELDS = {
    "purchaseOrderId": "number",
    "number": "number",
    "title": "title",
    "date": "date",
    "amount": "amount",
    "status": "status",
    "notes": "notes",
    "contactId": "contact_id",
    "vendor": "contact_id",
}
ITEM_FIELDS = {"description": "description", "quantity": "quantity", "unitPrice": "unit_price"}
EXPAND_SPELLINGS = {"purchaseOrderItems": "items", "purchaseOrderItems.account": "items.account"}


def _expands(ctx: Ctx) -> frozenset[str]:
    return frozenset(EXPAND_SPELLINGS.get(name, name) for name in ctx.multi("expands"))


def _item(view: LegacyView, project: Project, item: LegacyItem) -> Json:
    line = project.nodes.get(item.line_id or "")
    shaped: Json = {
        "id": item.id,
        "description": item.description,
        "quantity": num(item.quantity),
        "unitPrice": num(item.unit_price),
        "totalPrice": num(item.total_price),
        "accountId": view.line_ref(line),
        "lastModified": stamp(item.last_modified),
    }
    if "items.account" in view.expands and line is not None:
        shaped["account"] = view.line(project, line, view.service.totals(view.workspace, project))
    return shaped


def order_view(view: LegacyView, project: Project, order: LegacyPurchaseOrder) -> Json:
    """A legacy order with what the request's expands ask for."""
    shaped: Json = {
        "id": order.id,
        "purchaseOrderId": order.number,
        "title": order.title,
        "date": stamp(order.date),
        "amount": num(order.amount),
        "paidAmount": num(order.paid_amount),
        "status": order.status,
        "attachments": files_json(view.workspace.files, "purchaseOrder", order.id),
        "notes": order.notes,
        "lastModified": stamp(order.last_modified),
    }
    if view.expands & {"items", "items.account"}:
        shaped["items"] = [_item(view, project, item) for item in order.items]
    if "contact" in view.expands and order.contact_id in view.workspace.contacts:
        shaped["contact"] = view.contact_of(order.contact_id or "")
    if "actuals" in view.expands:
        shaped["actuals"] = [view.actual(project, a) for a in view.service.legacy_order_actuals(project, order)]
    return shaped


def _under(project: Project, refs: list[str]) -> set[str]:
    """The lines the ``accountId`` filter names (by id or account code) and every line beneath them."""
    found = {n.id for n in project.nodes.values() if n.id in refs or n.account_code in refs}
    pending = list(found)
    while pending:
        children = project.nodes[pending.pop()].children
        found.update(children)
        pending.extend(children)
    return found


def _filter(ctx: Ctx, project: Project) -> Callable[[LegacyPurchaseOrder], bool]:
    """The published filters, read once: an item coded under an account, the order's date in the window (an
    undated order is outside any window), attachments, one of the statuses."""
    accounts = ctx.multi("accountId")
    lines = _under(project, accounts)
    start, end = window(ctx)
    attached = ctx.flag("hasAttachments") if ctx.param("hasAttachments") is not None else None
    statuses = set(ctx.multi("status"))
    shelf = ctx.workspace.files

    def keep(order: LegacyPurchaseOrder) -> bool:
        if accounts and not any(item.line_id in lines for item in order.items):
            return False
        if (start or end) and (
            order.date is None or (start is not None and order.date < start) or (end is not None and order.date > end)
        ):
            return False
        if attached is not None and attached != bool(shelf.files_of("purchaseOrder", order.id)):
            return False
        return not statuses or order.status in statuses

    return keep


def _fields(ctx: Ctx, project: Project, body: Mapping[str, object]) -> dict[str, object]:
    fields = renamed(body, ORDER_FIELDS)
    items = body.get("items")
    if items is not None:
        if not isinstance(items, list):
            raise InvalidInput("items", "must be an array")
        fields["items"] = [_item_fields(ctx, project, index, item) for index, item in enumerate(items)]
    return fields


def _item_fields(ctx: Ctx, project: Project, index: int, item: object) -> dict[str, object]:
    if not isinstance(item, Mapping):
        raise InvalidInput(f"items[{index}]", "must be an object")
    fields = renamed(item, ITEM_FIELDS)
    fields["total_price"] = item.get("totalPrice", item.get("amount"))
    coded = item.get("accountId", item.get("lineItemId"))
    fields["line_id"] = line_id(ctx, project, coded, f"items[{index}].accountId")
    return fields


def _view(ctx: Ctx, body: Mapping[str, object] | None = None) -> LegacyView:
    view = ctx.view(body)
    view.expands = _expands(ctx)
    return view


@router.get(BASE)
async def list_purchase_orders(ctx: Ctx, project_id: str) -> Response:
    project = ctx.project(project_id)
    keep = _filter(ctx, project)
    view = _view(ctx)
    orders = [order_view(view, project, o) for o in project.purchase_orders.values() if keep(o)]
    return ok({"purchaseOrders": orders})


@router.get(ONE)
async def get_purchase_order(ctx: Ctx, project_id: str, order_id: str) -> Response:
    project = ctx.project(project_id)
    return ok(order_view(_view(ctx), project, ctx.service.get_legacy_order(project, order_id)))


@router.post(ONE)
async def create_purchase_order(ctx: Ctx, project_id: str, order_id: str) -> Response:
    project = ctx.project(project_id)
    body = await ctx.body()
    fields = _fields(ctx, project, body)
    order = ctx.service.create_legacy_order(ctx.workspace, project, fields, order_id=order_id)
    return ok(order_view(_view(ctx, body), project, order), 201)


@router.put(ONE)
async def update_purchase_order(ctx: Ctx, project_id: str, order_id: str) -> Response:
    project = ctx.project(project_id)
    body = await ctx.body()
    order = ctx.service.update_legacy_order(ctx.workspace, project, order_id, renamed(body, ORDER_FIELDS))
    return ok(order_view(_view(ctx, body), project, order))


@router.delete(ONE)
async def delete_purchase_order(ctx: Ctx, project_id: str, order_id: str) -> Response:
    ctx.service.delete_legacy_order(ctx.project(project_id), order_id)
    return no_content()
