"""The v1 ``expand`` query parameter: a comma list of published keys, anything else ``400 expand_invalid``;
and the related records an expansion inlines that belong to no one resource's module (A60)."""

from __future__ import annotations

from collections.abc import Collection

from starlette.requests import Request

from bridge.emulator.core.model import Workspace
from bridge.emulator.v1.errors import ExpandInvalidError
from bridge.emulator.v1.shapes import Json, money, timestamp

# The published expand keys per resource (TransactionExpandKey, ProjectExpand, ContactExpand, LibraryExpand).
TRANSACTION = frozenset({"contact", "documents", "items", "account", "purchaseOrder", "items.account"})
PROJECT = frozenset({"assumptions"})
CONTACT = frozenset({"documents", "transactions"})
LIBRARY_COPY = frozenset({"source"})


def expand_keys(request: Request, allowed: Collection[str]) -> set[str]:
    """The expand keys asked for; an unknown or too-deep one is refused as the description publishes."""
    raw = request.query_params.get("expand") or ""
    wanted = {part.strip() for part in raw.split(",") if part.strip()}
    unknown = sorted(wanted - set(allowed))
    if unknown:
        raise ExpandInvalidError(f"expand {unknown[0]!r} is not available here; use {', '.join(sorted(allowed))}.")
    return wanted


def contact_transactions(workspace: Workspace, contact_id: str) -> list[Json]:
    """The transactions assigned to a contact, as a contact's ``expand=transactions`` lists them (newest first)."""
    rows = [(p, a) for p in workspace.projects.values() if not p.deleted for a in p.actuals.values()]
    mine = sorted((row for row in rows if row[1].contact_id == contact_id), key=lambda row: row[1].date, reverse=True)
    return [
        {
            "id": actual.id,
            "description": actual.description,
            "amount": _minor(actual.amount, actual.currency),
            "timestamp": timestamp(actual.date),
            "status": actual.status or "posted",
            "merchant": None,
            "logoUrl": None,
            "category": None,
            "projectId": project.id,
            "budgetLineId": actual.line_id,
        }
        for project, actual in mine
    ]


def _minor(amount: object, currency: str) -> object:
    shown = money(amount, currency)
    return None if shown is None else shown["amount"]
