"""v1 transactions (A16, A37): the core's actuals seen as manual transactions, with items for splits.

A transaction lives in its project (``projectId`` is required here: the core keeps actuals per project).
Its Money amount is stored in major units of its own currency; the actual phase of the project totals it.
Bulk create is all-or-nothing. ``transaction.created`` fires per created transaction, ``transaction.updated``
when an item is added, changed or removed. A manual transaction takes any published status (the description
narrows none); only manual transactions can be deleted (A58). ``/stats`` totals one currency (A59).
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator, Sequence
from datetime import datetime
from decimal import Decimal

from starlette.requests import Request
from starlette.responses import Response

from bridge.emulator.core.actuals import parse_date
from bridge.emulator.core.ledger import Sliced, order_key
from bridge.emulator.core.model import Actual, Cell, Project, SubActual, Workspace
from bridge.emulator.core.money import minor_digits
from bridge.emulator.v1 import requests, shapes
from bridge.emulator.v1.auth import Grant
from bridge.emulator.v1.context import V1Context, context_of
from bridge.emulator.v1.cursors import Pulled
from bridge.emulator.v1.document_shapes import transaction_ref
from bridge.emulator.v1.errors import NotFoundError, SourceNotManualError, UnprocessableError, ValidationError
from bridge.emulator.v1.expand import TRANSACTION, expand_keys
from bridge.emulator.v1.routing import (
    Json,
    V1Router,
    can,
    created,
    domain_errors,
    idempotent,
    listed,
    ok,
    page_response,
    parsed_body,
    renamed,
    workspace_of,
)

router = V1Router(prefix="/transactions")

MANUAL_TYPES = ("Invoice", "Projection", "Cash", "Check", "Wire", "ACH", "CreditCard", "TimeCard", "ETransfer")
CREATE_FIELDS = {
    "type": "type",
    "amount": "amount",
    "timestamp": "date",
    "status": "status",
    "description": "description",
    "projectId": "project",
    "contactId": "contact_id",
    "budgetLineId": "line_id",
    "number": "number",
    "ref": "ref",
    "notes": "notes",
    "actualized": "actualized",
}
ITEM_FIELDS = {
    "lineNumber": "line_number",
    "description": "description",
    "budgetLineId": "line_id",
    "qty": "quantity",
    "unit": "unit",
    "rate": "rate",
    "amount": "amount",
    "tagIds": "tags",
}


def money_in(value: object, field: str) -> tuple[Decimal, str]:
    """A Money body field (its published shape already checked) as (major-unit Decimal, currency)."""
    assert isinstance(value, dict)  # Money is {amount: integer, currency: 3 characters}
    amount, currency = value["amount"], value["currency"]
    if not currency.isalpha() or not currency.isupper():
        raise ValidationError(
            f"{field}.currency must be an ISO 4217 code like USD; got {currency!r}.",
            fieldErrors={f"{field}.currency": ["must be an ISO 4217 code like USD"]},
        )
    return Decimal(amount).scaleb(-minor_digits(currency)), currency


def account_ref(project: Project, line_id: str | None) -> Json | None:
    """The budget account a line id codes to (``expand=account``), or None when uncoded."""
    node = project.nodes.get(line_id or "")
    return None if node is None else {"id": node.id, "name": node.description, "code": node.account_code}


def item_view(
    workspace: Workspace, project: Project, actual: Actual, part: SubActual, expand: frozenset[str] = frozenset()
) -> Json:
    body: Json = {
        "id": part.id,
        "lineNumber": part.line_number,
        "description": part.description,
        "budgetLineId": part.line_id,
        "qty": _text(part.quantity),
        "unit": part.unit,
        "rate": _text(part.rate),
        "amount": shapes.money(part.amount, actual.currency),
        "tagIds": shapes.tag_ids(workspace, part.tags),
        "tags": shapes.item_tags(workspace, part.tags),
    }
    if "items.account" in expand:
        body["account"] = account_ref(project, part.line_id)
    return body


def _text(value: Cell) -> str | None:
    """A stored quantity or rate as v1 publishes it, a string ("Quantity or formula"): a number in plain
    notation (no exponent), a formula as it was written."""
    if value is None or isinstance(value, str):
        return value
    return format(Decimal(str(value)), "f")


def view(workspace: Workspace, project: Project, actual: Actual, expand: frozenset[str] = frozenset()) -> Json:
    """A transaction; its items are always inlined (the bridge reads them), ``expand`` adds the other relations."""
    body: Json = {
        "id": actual.id,
        "source": actual.source,
        "type": actual.type,
        "status": actual.status,
        "isReversal": False,
        "amount": shapes.money(actual.amount, actual.currency),
        "timestamp": shapes.timestamp(actual.date),
        "description": actual.description,
        "number": actual.number,
        "ref": actual.ref,
        "notes": actual.notes,
        "contactId": actual.contact_id,
        "projectId": project.id,
        "budgetLineId": actual.line_id,
        "isItemized": bool(actual.subactuals),
        "actualized": actual.actualized,
        "purchaseOrderId": actual.purchase_order_id,
        "items": [item_view(workspace, project, actual, part, expand) for part in actual.subactuals],
        "createdAt": shapes.timestamp(actual.created_at),
        "updatedAt": shapes.timestamp(actual.updated_at),
    }
    if expand:  # looked up only when asked for: a bulk create's 500 views ask for none
        contact = workspace.contacts.get(actual.contact_id or "")
        expanded: Json = {
            "contact": None if contact is None else {"id": contact.id, "name": contact.name},
            "documents": [transaction_ref(d) for d in workspace.files.linked_documents("transaction", actual.id)],
            "account": account_ref(project, actual.line_id),
            "purchaseOrder": _order_ref(workspace, actual.purchase_order_id),
        }
        body.update((key, value) for key, value in expanded.items() if key in expand)
    return body


def _order_ref(workspace: Workspace, order_id: str | None) -> Json | None:
    """The purchase order a transaction is linked to, as ``expand=purchaseOrder`` shows it."""
    order = workspace.purchase_orders.get(order_id or "")
    return None if order is None else {"id": order.id, "number": order.number}


def _create(context: V1Context, workspace: Workspace, body: Json, label: str) -> tuple[Project, Actual]:
    """One checked TransactionManualCreate body; the core keeps actuals per project, so projectId is needed."""
    fields = renamed(body, CREATE_FIELDS)
    fields.setdefault("status", "posted")
    # V-SPEC makes description optional; the core's actual needs one, so it falls back to the type.
    fields.setdefault("description", fields["type"])
    fields["amount"], fields["currency"] = money_in(fields["amount"], f"{label}.amount")
    project_ref = fields.pop("project", None)
    if not isinstance(project_ref, str):  # optional in the shape; the core keeps actuals per project (A53)
        raise UnprocessableError(f"{label}.projectId is needed here: the project whose actuals it joins.")
    with domain_errors(body_refs=True):
        project = context.service.get_project(workspace, project_ref)
        return project, context.service.create_actual(workspace, project, fields)


def find(context: V1Context, workspace: Workspace, transaction_id: str) -> tuple[Project, Actual]:
    """A transaction by id in any live project of the workspace, else 404."""
    for project in context.service.list_projects(workspace):
        actual = project.actuals.get(transaction_id)
        if actual is not None:
            return project, actual
    raise NotFoundError(f"Transaction {transaction_id!r} was not found.")


def _announce(context: V1Context, grant: Grant, event: str, project: Project, actual: Actual) -> None:
    context.webhooks.emit(grant.workspace, event, "transaction", actual.id, project.id)


# The item routes come first: FastAPI tries a router's routes one by one, twice per request, and adding an
# item is most of what a migration sends (one request per split item). No other route of this router matches
# a path ending in /items, so the order changes which route answers no request.
@router.post("/{transaction_id}/items", status_code=201)
async def add_item(request: Request, grant: Grant, transaction_id: str) -> Response:
    can(grant, "update", "Transaction")
    body = await parsed_body(request, requests.TransactionItemCreate)
    context = context_of(request)
    workspace = workspace_of(request, grant)
    project, actual = find(context, workspace, transaction_id)
    fields = _item_fields(workspace, actual, body)

    async def produce() -> Response:
        with domain_errors(body_refs=True):
            updated = context.service.add_part(project, actual.id, fields)
        _announce(context, grant, "transaction.updated", project, updated)
        return created(item_view(workspace, project, updated, updated.subactuals[-1]))

    return await idempotent(request, grant, produce)


def _item_fields(workspace: Workspace, actual: Actual, body: Json) -> dict[str, object]:
    """An item body under the core's names; its amount must be in the transaction's currency."""
    fields = renamed(body, ITEM_FIELDS)
    if fields.get("amount") is not None:
        fields["amount"], currency = money_in(fields["amount"], "amount")
        if currency != actual.currency:
            raise UnprocessableError(f"amount.currency {currency} differs from the transaction's {actual.currency}.")
    if "tags" in fields:
        fields["tags"] = shapes.tag_names(workspace, fields["tags"])
    return fields


@router.get("/{transaction_id}/items")
async def list_items(request: Request, grant: Grant, transaction_id: str) -> Response:
    context = context_of(request)
    workspace = workspace_of(request, grant)
    project, actual = find(context, workspace, transaction_id)
    return page_response(
        request, actual.subactuals, lambda part: item_view(workspace, project, actual, part), filters={}
    )


@router.post("", status_code=201)
async def create_transaction(request: Request, grant: Grant) -> Response:
    can(grant, "create", "Transaction")
    body = await parsed_body(request, requests.TransactionCreate)
    context = context_of(request)
    workspace = workspace_of(request, grant)

    async def produce() -> Response:
        project, actual = _create(context, workspace, body, "transaction")
        _announce(context, grant, "transaction.created", project, actual)
        return created(view(workspace, project, actual))

    return await idempotent(request, grant, produce)


@router.post("/bulk", status_code=201)
async def create_transactions(request: Request, grant: Grant) -> Response:
    can(grant, "create", "Transaction")
    items = (await parsed_body(request, requests.TransactionBulkCreate))["transactions"]
    assert isinstance(items, list)  # the published shape holds 1 to 500 transactions
    context = context_of(request)
    workspace = workspace_of(request, grant)

    async def produce() -> Response:
        made: list[tuple[Project, Actual]] = []
        try:
            for index, item in enumerate(items):
                made.append(_create(context, workspace, item, f"transactions[{index}]"))
        except Exception:
            for project, actual in made:
                context.service.delete_actual(project, actual.id)
            raise
        for project, actual in made:
            _announce(context, grant, "transaction.created", project, actual)
        return created({"data": [view(workspace, p, a) for p, a in made]})

    return await idempotent(request, grant, produce)


class _InProject(Sliced[tuple[Project, Actual]]):
    """One project's actuals newest first as the list's (project, transaction) rows, read by position."""

    def __init__(self, project: Project, actuals: Sequence[Actual]) -> None:
        self._project = project
        self._actuals = actuals

    def __len__(self) -> int:
        return len(self._actuals)

    def _slice(self, start: int, stop: int | None) -> list[tuple[Project, Actual]]:
        return [(self._project, actual) for actual in self._actuals[start:stop]]


def _matching(request: Request, workspace: Workspace, context: V1Context) -> Sequence[tuple[Project, Actual]]:
    """The transactions the published list filters select (comma lists match any of their values), newest first
    (equal moments by id, then in project order).

    Each project's ledger keeps its actuals in that order (``core.ledger``): one project's unfiltered list (what
    the bridge reads) is sliced a page at a time, and a filtered or many-project list is merged and filtered
    only as far as the page asked for."""
    query = request.query_params
    wanted = query.get("projectId")
    projects = context.service.list_projects(workspace)
    if wanted is not None:
        projects = [p for p in projects if wanted in (p.id, p.alias)]
    lists = {name: set(listed(query.get(name))) for name in ("source", "type", "status")}
    single = {"contactId": query.get("contactId"), "budgetLineId": query.get("budgetLineId")}
    start, end = (parse_moment(query.get(name), name) for name in ("dateFrom", "dateTo"))
    text = (query.get("q") or "").lower()
    unfiltered = not text and start is None and end is None and not any(lists.values())
    if len(projects) == 1 and unfiltered and all(value is None for value in single.values()):
        return _InProject(projects[0], context.service.actuals_newest_first(projects[0]))

    def selected(a: Actual) -> bool:
        return (
            all(not values or getattr(a, name) in values for name, values in lists.items())
            and single["contactId"] in (None, a.contact_id)
            and single["budgetLineId"] in (None, a.line_id, *(part.line_id for part in a.subactuals))
            and (start is None or a.date >= start)
            and (end is None or a.date <= end)
            and text in (a.description or "").lower()
        )

    def rows_of(project: Project) -> Iterator[tuple[Project, Actual]]:
        # A function, not a nested generator expression: that one read the loop's last project for every row.
        return ((project, actual) for actual in context.service.actuals_newest_first(project))

    # heapq.merge keeps equal keys in the order of its inputs: the projects' order, as a stable sort did.
    merged = heapq.merge(*(rows_of(p) for p in projects), key=lambda row: order_key(row[1]))
    return Pulled(row for row in merged if selected(row[1]))


def parse_moment(value: str | None, name: str) -> datetime | None:
    """A date-time query parameter, else 400 validation."""
    if value is None:
        return None
    with domain_errors():
        return parse_date(name, value)


FILTERS = ("projectId", "source", "type", "status", "contactId", "budgetLineId", "dateFrom", "dateTo", "q", "expand")


@router.get("")
async def list_transactions(request: Request, grant: Grant) -> Response:
    context = context_of(request)
    workspace = workspace_of(request, grant)
    expand = frozenset(expand_keys(request, TRANSACTION))
    rows = _matching(request, workspace, context)
    filters = {name: request.query_params.get(name) for name in FILTERS}
    return page_response(request, rows, lambda row: view(workspace, *row, expand), filters=filters)


@router.get("/stats")
async def transaction_stats(request: Request, grant: Grant) -> Response:
    """How many transactions match and their total in ``currency``; only that currency's are counted (A59)."""
    context = context_of(request)
    currency = request.query_params.get("currency")
    if currency is None or len(currency) != 3 or not currency.isalpha():
        raise ValidationError(
            "Query parameter currency is required: a three-letter code like USD.",
            fieldErrors={"currency": ["is required: a three-letter currency code"]},
        )
    currency = currency.upper()
    rows = [a for _, a in _matching(request, workspace_of(request, grant), context) if a.currency == currency]
    total = sum((Decimal(str(a.amount)) for a in rows), Decimal(0))
    return ok({"total": len(rows), "amount": shapes.money(total, currency)})


@router.get("/{transaction_id}")
async def get_transaction(request: Request, grant: Grant, transaction_id: str) -> Response:
    context = context_of(request)
    workspace = workspace_of(request, grant)
    expand = frozenset(expand_keys(request, TRANSACTION))
    return ok(view(workspace, *find(context, workspace, transaction_id), expand))


@router.delete("/{transaction_id}", status_code=204)
async def delete_transaction(request: Request, grant: Grant, transaction_id: str) -> Response:
    can(grant, "delete", "Transaction")
    context = context_of(request)
    project, actual = find(context, workspace_of(request, grant), transaction_id)
    if actual.source != "manual":
        raise SourceNotManualError(f"Transaction {actual.id!r} came from {actual.source}; only manual ones delete.")
    context.service.delete_actual(project, actual.id)
    return Response(status_code=204)


@router.patch("/{transaction_id}")
async def update_transaction(request: Request, grant: Grant, transaction_id: str) -> Response:
    """Partial update of a manual transaction (A40); omitted fields stay, the project cannot change."""
    can(grant, "update", "Transaction")
    body = await parsed_body(request, requests.TransactionPatch)
    context = context_of(request)
    workspace = workspace_of(request, grant)
    project, actual = find(context, workspace, transaction_id)
    fields = renamed(body, CREATE_FIELDS)
    project_ref = fields.pop("project", None)
    if project_ref is not None and project_ref not in (project.id, project.alias):
        raise UnprocessableError("transaction.projectId cannot change; create the transaction in the other project.")
    if "type" in fields and fields["type"] not in MANUAL_TYPES:
        raise UnprocessableError(f"transaction.type of a manual transaction is one of {', '.join(MANUAL_TYPES)}.")
    if "amount" in fields:
        fields["amount"], fields["currency"] = money_in(fields["amount"], "transaction.amount")
    with domain_errors(body_refs=True):
        updated = context.service.update_actual(workspace, project, actual.id, fields)
    _announce(context, grant, "transaction.updated", project, updated)
    return ok(view(workspace, project, updated))


@router.patch("/{transaction_id}/items/{item_id}")
async def update_item(request: Request, grant: Grant, transaction_id: str, item_id: str) -> Response:
    can(grant, "update", "Transaction")
    body = await parsed_body(request, requests.TransactionItemPatch)
    context = context_of(request)
    workspace = workspace_of(request, grant)
    project, actual = find(context, workspace, transaction_id)
    fields = _item_fields(workspace, actual, body)
    with domain_errors(body_refs=True):
        actual = context.service.get_actual(project, actual.id)
        if not any(part.id == item_id for part in actual.subactuals):
            raise NotFoundError(f"Item {item_id!r} of transaction {transaction_id!r} was not found.")
        updated = context.service.update_part(workspace, project, actual.id, item_id, fields)
    _announce(context, grant, "transaction.updated", project, updated)
    part = next(p for p in updated.subactuals if p.id == item_id)
    return ok(item_view(workspace, project, updated, part))


@router.delete("/{transaction_id}/items/{item_id}", status_code=204)
async def delete_item(request: Request, grant: Grant, transaction_id: str, item_id: str) -> Response:
    can(grant, "update", "Transaction")
    context = context_of(request)
    workspace = workspace_of(request, grant)
    project, actual = find(context, workspace, transaction_id)
    with domain_errors():
        updated = context.service.delete_part(workspace, project, actual.id, item_id)
    _announce(context, grant, "transaction.updated", project, updated)
    return Response(status_code=204)
