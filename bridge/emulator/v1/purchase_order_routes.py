"""v1 purchase orders: list, read, create (a draft, keyed), update, delete, the status moves (submit keyed;
cancel-submission, void and mark-paid not), the links to transactions (PUT, no body, no key), the timeline,
and the items (list, create keyed, update, delete).

Routes parse, call the core's status machine (``core.purchase_order_store``) and shape
(``v1.purchase_order_shapes``); a write the order's status does not allow is ``409 po_invalid_status``, a
transaction linked elsewhere ``409 already_linked``. ``purchaseOrder.<status>`` webhooks fire as the v1 seed
lists them: on creation and on entering pending, void or paid (the approval flow's moves fire from the
control API).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager

from starlette.requests import Request
from starlette.responses import Response

from bridge.emulator.core.model import Workspace
from bridge.emulator.core.purchase_orders import STATUSES, AlreadyLinked, InvalidStatus, PurchaseOrder
from bridge.emulator.core.store import Service
from bridge.emulator.v1 import purchase_order_shapes as shapes
from bridge.emulator.v1.auth import Grant
from bridge.emulator.v1.context import V1Context, context_of
from bridge.emulator.v1.errors import AlreadyLinkedError, PoInvalidStatusError, ValidationError
from bridge.emulator.v1.expand import expand_keys
from bridge.emulator.v1.purchase_order_requests import PurchaseOrderCreate, PurchaseOrderItemWrite, PurchaseOrderUpdate
from bridge.emulator.v1.routing import (
    Json,
    V1Router,
    can,
    created,
    domain_errors,
    flag,
    idempotent,
    ok,
    page_response,
    parsed_body,
    renamed,
    workspace_of,
)

router = V1Router(prefix="/purchase-orders")

RESOURCE = "PurchaseOrder"
ORDER_FIELDS = {
    "projectId": "project_id",
    "number": "number",
    "name": "name",
    "contactId": "contact_id",
    "budgetLineId": "budget_line_id",
    "dueDate": "due_date",
    "serviceStartAt": "service_start_at",
    "serviceEndAt": "service_end_at",
    "notes": "notes",
    "sort": "sort",
}
ITEM_FIELDS = {
    "lineNumber": "line_number",
    "description": "description",
    "budgetLineId": "budget_line_id",
    "qty": "qty",
    "unit": "unit",
    "rate": "rate",
    "sort": "sort",
}
SORTS: dict[str, Callable[[PurchaseOrder], object]] = {
    "number": lambda o: o.number or "",
    "name": lambda o: o.name or "",
    "dueDate": lambda o: o.due_date.isoformat() if o.due_date else "",
    "serviceStartAt": lambda o: o.service_start_at.isoformat() if o.service_start_at else "",
    "serviceEndAt": lambda o: o.service_end_at.isoformat() if o.service_end_at else "",
    "status": lambda o: STATUSES.index(o.status),
    "sort": lambda o: o.sort if o.sort is not None else 0,
    "createdAt": lambda o: o.created_at,
    "updatedAt": lambda o: o.updated_at,
}
FILTERS = ("projectId", "status", "contactId", "budgetLineId", "number", "q", "includeDeleted", "sort", "order")
STATUS_EVENTS = frozenset({"pending", "void", "paid"})


@contextmanager
def order_errors(*, body_refs: bool = False) -> Iterator[None]:
    """The store's refusals as v1 errors, the status machine's as their published 409s."""
    with domain_errors(body_refs=body_refs):
        try:
            yield
        except InvalidStatus as exc:
            raise PoInvalidStatusError(f"{exc.message}.") from exc
        except AlreadyLinked as exc:
            raise AlreadyLinkedError(f"{exc.message}.") from exc


def _choice(request: Request, name: str, allowed: Sequence[str]) -> str | None:
    """A declared enum query parameter, else 400 validation naming it."""
    value = request.query_params.get(name)
    if value is not None and value not in allowed:
        message = f"must be one of {', '.join(allowed)}"
        raise ValidationError(f"Query parameter {name} {message}; got {value!r}.", fieldErrors={name: [message]})
    return value


def _item_fields(currency: str, body: Json) -> dict[str, object]:
    """An item body under the core's names, its minor-unit amount read in the order's currency."""
    fields = renamed(body, ITEM_FIELDS)
    if "amount" in body:
        fields["amount"] = shapes.major(body["amount"], currency)
    return fields


def _order_fields(body: Json) -> dict[str, object]:
    return renamed(body, ORDER_FIELDS)


def _announce(context: V1Context, grant: Grant, order: PurchaseOrder, event: str) -> None:
    context.webhooks.emit(grant.workspace, f"purchaseOrder.{event}", "purchaseOrder", order.id, order.project_id)


def _answer(request: Request, workspace: Workspace, order: PurchaseOrder, *, detail: bool = False) -> Json:
    expand = expand_keys(request, shapes.EXPANDS)
    return shapes.order_view(context_of(request).service, workspace, order, expand, detail=detail)


# -- the collection ---------------------------------------------------------------------------------------------


@router.get("")
async def list_orders(request: Request, grant: Grant) -> Response:
    context = context_of(request)
    workspace = workspace_of(request, grant)
    query = request.query_params
    expand = expand_keys(request, shapes.EXPANDS)
    status = _choice(request, "status", STATUSES)
    sort = _choice(request, "sort", tuple(SORTS))
    descending = _choice(request, "order", ("asc", "desc")) == "desc"
    project_ref = query.get("projectId")
    project_id: str | None = None
    if project_ref not in (None, "none"):
        with order_errors():
            project_id = context.service.get_project(workspace, str(project_ref)).id
    text = (query.get("q") or "").casefold()

    def selected(order: PurchaseOrder) -> bool:
        items_lines = {item.budget_line_id for item in order.items}
        return (
            (project_ref is None or order.project_id == project_id)
            and status in (None, order.status)
            and query.get("contactId") in (None, order.contact_id)
            and query.get("budgetLineId") in (None, order.budget_line_id, *items_lines)
            and query.get("number") in (None, order.number)
            and text in (order.name or "").casefold()
        )

    rows = [
        o
        for o in context.service.list_orders(workspace, include_deleted=flag(request, "includeDeleted"))
        if selected(o)
    ]
    if sort is not None:
        # A non-unique field takes the id as its tiebreaker (published), in the same direction.
        rows.sort(key=lambda o: (SORTS[sort](o), o.id), reverse=descending)
    elif descending:
        rows.reverse()
    filters = {name: query.get(name) for name in (*FILTERS, "expand")}
    return page_response(
        request, rows, lambda order: shapes.order_view(context.service, workspace, order, expand), filters=filters
    )


@router.post("", status_code=201)
async def create_order(request: Request, grant: Grant) -> Response:
    can(grant, "create", RESOURCE)
    body = await parsed_body(request, PurchaseOrderCreate)
    context = context_of(request)
    workspace = workspace_of(request, grant)
    expand_keys(request, shapes.EXPANDS)  # an unknown expand is refused before anything is made

    async def produce() -> Response:
        fields = _order_fields(body)
        items = body.get("items")
        assert isinstance(items, list | None)  # the published shape: at most 100 item objects
        currency = _currency(context, workspace, fields)
        fields["items"] = [_item_fields(currency, item) for item in items or []]
        with order_errors(body_refs=True):
            order = context.service.create_order(workspace, fields, actor=grant.user_id)
        _announce(context, grant, order, "created")
        return created(_answer(request, workspace, order))

    return await idempotent(request, grant, produce)


def _currency(context: V1Context, workspace: Workspace, fields: dict[str, object]) -> str:
    """The currency the new order will have: its items' minor units are read in it."""
    ref = fields.get("project_id")
    if not isinstance(ref, str):
        return workspace.currency
    with order_errors(body_refs=True):
        project = context.service.get_project(workspace, ref)
    return context.service.actual_currency(workspace, project)


# -- one order --------------------------------------------------------------------------------------------------


def _order(request: Request, grant: Grant, order_id: str) -> tuple[Workspace, PurchaseOrder]:
    workspace = workspace_of(request, grant)
    with order_errors():
        return workspace, context_of(request).service.get_order(workspace, order_id)


@router.get("/{order_id}")
async def get_order(request: Request, grant: Grant, order_id: str) -> Response:
    workspace, order = _order(request, grant, order_id)
    return ok(_answer(request, workspace, order, detail=True))


@router.patch("/{order_id}")
async def update_order(request: Request, grant: Grant, order_id: str) -> Response:
    can(grant, "update", RESOURCE)
    body = await parsed_body(request, PurchaseOrderUpdate)
    workspace, order = _order(request, grant, order_id)
    with order_errors(body_refs=True):
        context_of(request).service.update_order(workspace, order.id, _order_fields(body), actor=grant.user_id)
    return ok(_answer(request, workspace, order))


@router.delete("/{order_id}", status_code=204)
async def delete_order(request: Request, grant: Grant, order_id: str) -> Response:
    can(grant, "delete", RESOURCE)
    workspace, order = _order(request, grant, order_id)
    with order_errors():
        context_of(request).service.delete_order(workspace, order.id)
    return Response(status_code=204)


@router.post("/{order_id}/submit")
async def submit_order(request: Request, grant: Grant, order_id: str) -> Response:
    can(grant, "update", RESOURCE)
    context = context_of(request)
    workspace, order = _order(request, grant, order_id)

    async def produce() -> Response:
        with order_errors():
            context.service.submit_order(workspace, order.id, actor=grant.user_id)
        _announce(context, grant, order, order.status)
        return ok(_answer(request, workspace, order))

    return await idempotent(request, grant, produce)


Change = Callable[[Service, Workspace, str, str], object]


async def _changed(request: Request, grant: Grant, order_id: str, change: Change) -> Response:
    """A write without a key or a body (a status move, a link): a retry of a move that happened is 409, of a
    link a no-op. The webhook of a status fires on entering it."""
    can(grant, "update", RESOURCE)
    context = context_of(request)
    workspace, order = _order(request, grant, order_id)
    before = order.status
    with order_errors():
        change(context.service, workspace, order.id, grant.user_id)
    if order.status != before and order.status in STATUS_EVENTS:
        _announce(context, grant, order, order.status)
    return ok(_answer(request, workspace, order))


@router.post("/{order_id}/cancel-submission")
async def cancel_submission(request: Request, grant: Grant, order_id: str) -> Response:
    return await _changed(request, grant, order_id, lambda s, w, ref, by: s.cancel_submission(w, ref, actor=by))


@router.post("/{order_id}/void")
async def void_order(request: Request, grant: Grant, order_id: str) -> Response:
    return await _changed(request, grant, order_id, lambda s, w, ref, by: s.void_order(w, ref, actor=by))


@router.post("/{order_id}/mark-paid")
async def mark_paid(request: Request, grant: Grant, order_id: str) -> Response:
    return await _changed(request, grant, order_id, lambda s, w, ref, by: s.mark_order_paid(w, ref, actor=by))


@router.put("/{order_id}/transactions/{transaction_id}")
async def link_transaction(request: Request, grant: Grant, order_id: str, transaction_id: str) -> Response:
    return await _changed(
        request, grant, order_id, lambda s, w, ref, by: s.link_transaction(w, ref, transaction_id, actor=by)
    )


@router.delete("/{order_id}/transactions/{transaction_id}")
async def unlink_transaction(request: Request, grant: Grant, order_id: str, transaction_id: str) -> Response:
    return await _changed(
        request, grant, order_id, lambda s, w, ref, by: s.unlink_transaction(w, ref, transaction_id, actor=by)
    )


@router.get("/{order_id}/timeline")
async def timeline(request: Request, grant: Grant, order_id: str) -> Response:
    """The order's history newest first, paged like every list (the page publishes no count)."""
    _, order = _order(request, grant, order_id)
    names = {g.user_id: g.name for g in context_of(request).tokens.grants.values()}
    events = list(reversed(order.history))
    return page_response(request, events, lambda entry: shapes.event(entry, names), filters={})


# -- items ------------------------------------------------------------------------------------------------------


@router.get("/{order_id}/items")
async def list_items(request: Request, grant: Grant, order_id: str) -> Response:
    _, order = _order(request, grant, order_id)
    return page_response(request, order.items, lambda entry: shapes.item(order, entry), filters={})


@router.post("/{order_id}/items", status_code=201)
async def create_item(request: Request, grant: Grant, order_id: str) -> Response:
    can(grant, "update", RESOURCE)
    body = await parsed_body(request, PurchaseOrderItemWrite)
    context = context_of(request)
    workspace, order = _order(request, grant, order_id)

    async def produce() -> Response:
        with order_errors(body_refs=True):
            entry = context.service.add_order_item(
                workspace, order.id, _item_fields(order.currency, body), actor=grant.user_id
            )
        return created(shapes.item(order, entry))

    return await idempotent(request, grant, produce)


@router.patch("/{order_id}/items/{item_id}")
async def update_item(request: Request, grant: Grant, order_id: str, item_id: str) -> Response:
    can(grant, "update", RESOURCE)
    body = await parsed_body(request, PurchaseOrderItemWrite)
    workspace, order = _order(request, grant, order_id)
    with order_errors(body_refs=True):
        entry = context_of(request).service.update_order_item(
            workspace, order.id, item_id, _item_fields(order.currency, body), actor=grant.user_id
        )
    return ok(shapes.item(order, entry))


@router.delete("/{order_id}/items/{item_id}", status_code=204)
async def delete_item(request: Request, grant: Grant, order_id: str, item_id: str) -> Response:
    can(grant, "update", RESOURCE)
    workspace, order = _order(request, grant, order_id)
    with order_errors():
        context_of(request).service.delete_order_item(workspace, order.id, item_id, actor=grant.user_id)
    return Response(status_code=204)
