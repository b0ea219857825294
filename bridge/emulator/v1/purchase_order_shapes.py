"""How v1 purchase orders look on the wire: Money in minor units of the order's currency, dates as dates.

Shaping only reads. The relations ``expand`` can ask for are inlined here; payment requests, payments and
documents, which the emulator keeps none of for an order, are empty lists, and ``activity`` is null.
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import date
from decimal import Decimal

from bridge.emulator.core.model import Node, Project, Workspace
from bridge.emulator.core.money import minor_digits, to_minor_units
from bridge.emulator.core.purchase_orders import Event, Item, PurchaseOrder
from bridge.emulator.core.store import Service
from bridge.emulator.v1.shapes import Json, contact_ref, money, timestamp

# The published expand keys (PurchaseOrderExpand).
EXPANDS = frozenset(
    {"items", "contact", "transactions", "documents", "paymentRequests", "payments", "budgetLine", "activity"}
    | {"summary"}
)
NOTHING_KEPT: Json = {"documents": [], "paymentRequests": [], "payments": [], "activity": None}


def day(value: date | None) -> str | None:
    return None if value is None else value.isoformat()


def major(amount: object, currency: str) -> Decimal | None:
    """A checked minor-unit integer (or null) as a major-unit amount of ``currency``."""
    return None if amount is None else Decimal(str(amount)).scaleb(-minor_digits(currency))


def minor(amount: Decimal | None, currency: str) -> int | None:
    return None if amount is None else to_minor_units(amount, currency)


def item(order: PurchaseOrder, entry: Item) -> Json:
    return {
        "id": entry.id,
        "purchaseOrderId": order.id,
        "lineNumber": entry.line_number,
        "description": entry.description,
        "budgetLineId": entry.budget_line_id,
        "qty": entry.qty,
        "unit": entry.unit,
        "rate": entry.rate,
        "amount": minor(entry.amount, order.currency),
        "sort": entry.sort,
    }


def budget_line(node: Node) -> Json:
    return {
        "id": node.id,
        "accountId": node.account_code,
        "type": node.type,
        "description": node.description,
        "parentId": node.parent_id,
        "sort": None,
        "contactId": node.contact_id,
        "lineColor": node.color,
        "emoji": None,
        "notes": node.notes,
    }


def transactions(service: Service, workspace: Workspace, order: PurchaseOrder) -> list[Json]:
    return [
        {
            "id": actual.id,
            "projectId": project.id,
            "purchaseOrderId": order.id,
            "amount": (money(actual.amount, actual.currency) or {}).get("amount"),
            "description": actual.description,
            "timestamp": timestamp(actual.date),
            "status": actual.status or "posted",
            "type": actual.type,
            "contactId": actual.contact_id,
            "budgetLineId": actual.line_id,
        }
        for project, actual in service.order_transactions(workspace, order)
    ]


def summary(service: Service, workspace: Workspace, order: PurchaseOrder) -> Json:
    """The order's totals in its currency: ordered is its amount, actualized its linked transactions in that
    currency; the emulator keeps no payments, so nothing is requested, invoiced or sent (assumption: remaining
    is ordered less actualized, variance actualized less ordered)."""
    currency = order.currency
    ordered = order.total()
    actualized = sum(
        (Decimal(str(a.amount)) for _, a in service.order_transactions(workspace, order) if a.currency == currency),
        Decimal(0),
    )

    def cash(amount: Decimal) -> Json:
        return {"amount": to_minor_units(amount, currency), "currency": currency}

    amounts = {name: cash(Decimal(0)) for name in ("requested", "invoiced", "sent")}
    amounts |= {
        "ordered": cash(ordered),
        "actualized": cash(actualized),
        "remaining": cash(ordered - actualized),
        "variance": cash(actualized - ordered),
    }
    return {"purchaseOrderId": order.id, "currency": currency, "amounts": amounts}


def order_view(
    service: Service, workspace: Workspace, order: PurchaseOrder, expand: Collection[str] = (), *, detail: bool = False
) -> Json:
    """An order; ``expand`` inlines its relations, and a detail answer (one order read) carries its summary."""
    body: Json = {
        "id": order.id,
        "workspaceId": order.workspace_id,
        "projectId": order.project_id,
        "number": order.number,
        "name": order.name,
        "status": order.status,
        "contactId": order.contact_id,
        "budgetLineId": order.budget_line_id,
        "dueDate": day(order.due_date),
        "serviceStartAt": day(order.service_start_at),
        "serviceEndAt": day(order.service_end_at),
        "notes": order.notes,
        "sort": order.sort,
        "currency": order.currency,
        "exchangeRate": None,
        "exchangeRateSource": None,
        "createdById": order.created_by_id,
        "amount": {"amount": to_minor_units(order.total(), order.currency), "currency": order.currency},
        "createdAt": timestamp(order.created_at),
        "updatedAt": timestamp(order.updated_at),
    }
    if "items" in expand:
        body["items"] = [item(order, entry) for entry in order.items]
    if "contact" in expand:
        found = workspace.contacts.get(order.contact_id or "")
        body["contact"] = None if found is None else contact_ref(found)
    if "transactions" in expand:
        body["transactions"] = transactions(service, workspace, order)
    if "budgetLine" in expand:
        body["budgetLine"] = _line_of(workspace, order)
    if detail or "summary" in expand:
        body["summary"] = summary(service, workspace, order)
    body.update((key, value) for key, value in NOTHING_KEPT.items() if key in expand)
    return body


def _line_of(workspace: Workspace, order: PurchaseOrder) -> Json | None:
    projects: list[Project] = [p for p in workspace.projects.values() if not p.deleted]
    node = next((p.nodes[order.budget_line_id] for p in projects if order.budget_line_id in p.nodes), None)
    return None if node is None else budget_line(node)


def event(entry: Event, names: dict[str, str]) -> Json:
    """One timeline entry; ``names`` are the users' names by id (an actor no token names shows its id)."""
    actor = (
        None
        if entry.actor_id is None
        else {
            "id": entry.actor_id,
            "name": names.get(entry.actor_id, entry.actor_id),
            "avatarUrl": None,
        }
    )
    return {
        "id": entry.id,
        "type": entry.type,
        "label": entry.label,
        "occurredAt": timestamp(entry.occurred_at),
        "actor": actor,
        "related": [] if entry.related is None else [{"type": "transaction", "id": entry.related}],
        "superseded": False,
    }
