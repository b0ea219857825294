"""How core records look on the v1 surface (A04-A08, A13, A14, A19): camelCase, Money in minor units.

Shaping only reads; nothing here changes the store. Money fields are ``{amount: int minor units, currency}``.
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal, InvalidOperation

from bridge.emulator.model import Contact, Node, Phase, PhaseData, Project, Space, Workspace
from bridge.emulator.money import to_minor_units
from bridge.emulator.store import Service
from bridge.emulator.v1_errors import UnprocessableError, ValidationError

Json = dict[str, object]


def timestamp(moment: datetime | None) -> str | None:
    return None if moment is None else moment.isoformat().replace("+00:00", "Z")


def money(amount: object, currency: str) -> Json | None:
    """A major-unit amount as Money; None when the stored value is not a finite number."""
    try:
        value = Decimal(str(amount))
    except InvalidOperation:
        return None
    if amount is None or not value.is_finite():
        return None
    return {"amount": to_minor_units(value, currency), "currency": currency}


def cell(value: object) -> object:
    """A phase-data number as sent (A10): numbers stay numbers, formulas stay strings."""
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    return value


def space(item: Space) -> Json:
    return {
        "id": item.id,
        "slug": item.alias,
        "name": item.name,
        "image": item.image,
        "parentId": item.parent_id,
        "archived": item.archived,
        "createdAt": timestamp(item.created_at),
        "updatedAt": timestamp(item.updated_at),
    }


def project(item: Project, workspace: Workspace) -> Json:
    tags = [workspace.library.tags[t] for t in item.tag_ids if t in workspace.library.tags]
    return {
        "id": item.id,
        "slug": item.alias,
        "name": item.name,
        "emoji": item.emoji,
        "image": item.image,
        "status": item.status,
        "summary": item.summary,
        "spaceId": item.space_id,
        "projectType": item.project_type,
        "tags": [{"id": t.id, "name": t.name, "color": t.color} for t in tags],
        "createdAt": timestamp(item.created_at),
        "updatedAt": timestamp(item.updated_at),
    }


CONTACT_TYPES = ("contractor", "employee", "company", "vendor")


def contact(item: Contact, currency: str) -> Json:
    return {
        "id": item.id,
        "name": item.name,
        "displayName": item.contact_title or item.name or item.company,
        "company": item.company,
        "title": item.job_title,
        "email": item.email,
        "type": item.type.lower() if item.type else None,
        "rate": money(item.rate, currency),
    }


def phase(item: Phase) -> Json:
    return {
        "id": item.id,
        "type": item.type,
        "name": item.name,
        "alias": item.alias,
        "color": item.color,
        "sort": item.sort,
        "isHidden": item.is_hidden,
        "baseCurrencyId": item.currency_id,
        "rollupFormula": item.rollup_formula,
    }


def phase_data(node: Node, data: PhaseData) -> Json:
    """Phase data as read; a markup's value reads as ``{rate: amount, unit: percent|flat, excludeFringes}`` (A13)."""
    if node.type == "markup":
        return {"rate": cell(data.markup_amount), "unit": data.markup_type, "excludeFringes": data.exclude_fringes}
    return {
        "rate": cell(data.rate),
        "quantity": cell(data.quantity),
        "multiplier": cell(data.multiplier),
        "unit": data.unit,
        "fringeIds": list(data.fringe_ids),
        "startDate": data.start_date,
        "endDate": data.end_date,
    }


def tag_names(workspace: Workspace, ids: object) -> list[str]:
    """A body's ``tagIds`` as the core's tag names (A14); not a list is 400, an unknown or deleted tag 422."""
    if not isinstance(ids, list):
        raise ValidationError("tagIds must be a list of workspace tag ids.")
    library = workspace.library.tags
    unknown = [t for t in ids if t not in library or library[t].deleted]
    if unknown:
        raise UnprocessableError(f"tag {unknown[0]!r} in tagIds is not a workspace tag; create it in /library/tags.")
    return [library[t].name for t in ids]


def tag_ids(workspace: Workspace, names: list[str]) -> list[str]:
    """A node's tag names as workspace tag ids (A14); names with no workspace tag are left out."""
    by_name = {t.name: t.id for t in workspace.library.tags.values() if not t.deleted}
    return [by_name[n] for n in names if n in by_name]


def line(service: Service, workspace: Workspace, item_project: Project, node: Node, expand: set[str]) -> Json:
    """A budget line; ``expand`` adds phaseData, phaseTotals and contact."""
    path = service.node_path(item_project, node).lstrip("/")
    parent = item_project.nodes.get(node.parent_id) if node.parent_id else None
    siblings = item_project.roots if parent is None else parent.children
    body: Json = {
        "id": node.id,
        "accountId": node.account_code,
        "path": path,
        "type": node.type,
        "description": node.description,
        "parentId": node.parent_id,
        "depth": path.count("/"),
        "sort": siblings.index(node.id) if node.id in siblings else 0,
        "contactId": node.contact_id,
        "lineColor": node.color,
        "notes": node.notes,
        "tagIds": tag_ids(workspace, node.tags),
        "subtotalSumAllAbove": node.subtotal_sum_all_above,
        "markupAccountFilter": None if node.include_accounts is None else ",".join(node.include_accounts),
    }
    if "phaseData" in expand:
        body["phaseData"] = {pid: phase_data(node, data) for pid, data in node.phase_data.items()}
    if "contact" in expand and node.contact_id in workspace.contacts:
        body["contact"] = contact(workspace.contacts[node.contact_id], workspace.currency)
    return body
