"""How core records look on the v1 surface (A04-A08, A13, A14, A19): camelCase, Money in minor units.

Shaping only reads; nothing here changes the store. Money fields are ``{amount: int minor units, currency}``.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from decimal import Decimal, InvalidOperation

from bridge.emulator.core.model import (
    CONTACT_DETAILS,
    Contact,
    LibraryTag,
    Node,
    Phase,
    PhaseData,
    Project,
    Space,
    Workspace,
)
from bridge.emulator.core.money import to_minor_units
from bridge.emulator.core.store import Service
from bridge.emulator.v1.errors import UnprocessableError, ValidationError
from bridge.emulator.wire.formats import wire_moment

Json = dict[str, object]


def timestamp(moment: datetime | None) -> str | None:
    return None if moment is None else wire_moment(moment)


def present(query: Mapping[str, str], names: tuple[str, ...]) -> dict[str, str]:
    """The named query parameters that were given (a published selection or filter holds no nulls)."""
    return {name: query[name] for name in names if name in query}


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
        "tags": [project_tag(t) for t in tags],
        "createdAt": timestamp(item.created_at),
        "updatedAt": timestamp(item.updated_at),
    }


# A tag with no colour shows the default colour, which a project's tag list must name (A54).
DEFAULT_TAG_COLOR = "gray"


def project_tag(tag: LibraryTag) -> Json:
    return {"id": tag.id, "name": tag.name, "color": tag.color or DEFAULT_TAG_COLOR}


CONTACT_TYPES = ("contractor", "employee", "company", "vendor")


def contact_type(item: Contact) -> str | None:
    """The published contact type, or None for a stored type outside the published four."""
    kind = item.type.lower() if item.type else None
    return kind if kind in CONTACT_TYPES else None


def contact_ref(item: Contact) -> Json:
    """The short contact a line's ``expand=contact`` carries."""
    return {
        "id": item.id,
        "displayName": item.contact_title or item.name or item.company or "",
        "name": item.name,
        "company": item.company,
        "email": item.email,
        "type": contact_type(item),
    }


def contact(item: Contact, currency: str) -> Json:
    """A contact; the store keeps one modification time, read as both createdAt and updatedAt (A55)."""
    stamp = timestamp(item.last_modified)
    return {
        **contact_ref(item),
        "title": item.job_title,
        "rate": money(item.rate, currency),
        **{name: getattr(item, name) for name in CONTACT_DETAILS},
        "track1099": item.track1099,
        "createdAt": stamp,
        "updatedAt": stamp,
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
    """Phase data as read, every published field present. A markup reads as rate = its amount and unit =
    percent|flat (A13); the published read shape has no place for excludeFringes, so it is not shown (A56).
    What the store does not keep (custom units, fringe groups, per-cell currency, overtime) reads empty."""
    markup = node.type == "markup"
    return {
        "rate": cell(data.markup_amount if markup else data.rate),
        "quantity": None if markup else cell(data.quantity),
        "multiplier": None if markup else cell(data.multiplier),
        "qtyAutoDerived": False,
        "unit": data.markup_type if markup else data.unit,
        "customUnitId": None,
        "unitLabel": None,
        "startDate": data.start_date,
        "endDate": data.end_date,
        "fringeIds": [] if markup else list(data.fringe_ids),
        "fringeGroupIds": [],
        "currencyId": None,
        "overtime": None,
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


def _tags_named(workspace: Workspace, names: list[str]) -> list[LibraryTag]:
    """The live workspace tags with these names (A14), in the order named; names with no tag are left out."""
    if not names:  # most lines and items carry none: no need to index the library for them
        return []
    by_name = {t.name: t for t in workspace.library.tags.values() if not t.deleted}
    return [by_name[n] for n in names if n in by_name]


def tag_ids(workspace: Workspace, names: list[str]) -> list[str]:
    """A node's tag names as workspace tag ids (A14); names with no workspace tag are left out."""
    return [t.id for t in _tags_named(workspace, names)]


def item_tags(workspace: Workspace, names: list[str]) -> list[Json]:
    """A transaction item's tags as ``{id, name, color}`` (a null colour is the default one)."""
    return [{"id": t.id, "name": t.name, "color": t.color} for t in _tags_named(workspace, names)]


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
        body["contact"] = contact_ref(workspace.contacts[node.contact_id])
    return body
