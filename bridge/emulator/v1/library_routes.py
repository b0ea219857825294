"""v1 library routes: workspace items (``/library/{kind}``), a project's copies of them and its tags (A18).

A body is checked against its published shape, renamed to the core's field names by the collection's table
and handed to the core's workspace library rules (``core.workspace_library``). Rate packs are in
``v1.rate_pack_routes``; incentive packs, project incentives and project fringe groups, which the bridge never
calls, are in ``v1.extras``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from starlette.requests import Request
from starlette.responses import Response

from bridge.emulator.core import workspace_library as library
from bridge.emulator.core.model import (
    Fringe,
    FringeGroup,
    Global,
    LibraryCurrency,
    LibraryFringe,
    LibraryGlobal,
    LibraryTag,
    Project,
    ProjectCurrency,
    Workspace,
)
from bridge.emulator.core.workspace_library import CopyKind, LibraryItem, LibraryKind, ProjectCopy
from bridge.emulator.v1 import requests
from bridge.emulator.v1.auth import Grant
from bridge.emulator.v1.context import context_of
from bridge.emulator.v1.errors import NotFoundError, UnprocessableError
from bridge.emulator.v1.extras.packs import ProjectFringeGroup
from bridge.emulator.v1.routing import (
    Json,
    V1Router,
    can,
    created,
    domain_errors,
    idempotent,
    ok,
    page_response,
    parsed_body,
    project_of,
    renamed,
    workspace_of,
)
from bridge.emulator.v1.shapes import cell, timestamp

workspace_router = V1Router(prefix="/library")
project_router = V1Router(prefix="/projects/{project_id}/library")


@dataclass(frozen=True, slots=True)
class Collection:
    """A workspace library collection as the v1 surface publishes it: the core's kind, the resource type a
    token's role is checked for, and its body fields under the core's names."""

    kind: LibraryKind
    resource: str
    fields: Mapping[str, str]


# By path segment, in the order an unknown one's refusal lists them.
COLLECTIONS: Mapping[str, Collection] = {
    "currencies": Collection(
        "currencies", "Currency", {"code": "code", "name": "name", "symbol": "symbol", "rateToUSD": "rate_to_usd"}
    ),
    "fringes": Collection(
        "fringes",
        "Fringe",
        {
            "name": "name",
            "calculationType": "calculation_type",
            "rate": "rate",
            "cutoff": "cutoff",
            "description": "description",
            "fringeGroupIds": "fringe_group_ids",
        },
    ),
    "fringe-groups": Collection("fringe_groups", "FringeGroup", {"name": "name", "color": "color"}),
    "globals": Collection(
        "globals", "Global", {"symbol": "symbol", "formula": "formula", "description": "description", "unit": "unit"}
    ),
    "tags": Collection("tags", "Tag", {"name": "name", "color": "color", "description": "description"}),
    "units": Collection(
        "units",
        "Unit",
        {
            "label": "label",
            "pluralLabel": "plural_label",
            "category": "category",
            "hoursPerUnit": "hours_per_unit",
            "color": "color",
            "description": "description",
        },
    ),
}
COPY_KINDS: Mapping[str, CopyKind] = {"currencies": "currencies", "fringes": "fringes", "globals": "globals"}
# What a PATCH of a project copy may change, under the core's names. Any other published field of a fringe or
# a global is a 422; a currency copy keeps only these two and leaves the others aside (A53).
COPY_PATCH: Mapping[str, Mapping[str, str]] = {
    "currencies": {"rateToUSD": "rate_to_usd", "symbol": "symbol"},
    "fringes": {
        "name": "code",
        "calculationType": "units",
        "rate": "rate",
        "cutoff": "cutoff",
        "description": "description",
    },
    "globals": {"formula": "formula", "description": "description", "unit": "unit"},
}


def group_view(group: FringeGroup | ProjectFringeGroup) -> Json:
    """A fringe group; its colour is a TagColor, never null, so a group without one leaves it out."""
    body: Json = {"id": group.id, "name": group.name}
    if group.color is not None:
        body["color"] = group.color
    return body


def item_view(item: LibraryItem | ProjectCopy) -> Json:
    """A workspace item or a project copy as the v1 surface shows it."""
    if isinstance(item, LibraryCurrency | ProjectCurrency):
        rate = item.rate_to_usd
        body: Json = {"id": item.id, "code": item.code, "symbol": item.symbol, "rateToUSD": cell(rate)}
        body["name"] = item.name if isinstance(item, LibraryCurrency) else None
    elif isinstance(item, LibraryFringe):
        body = {"id": item.id, "name": item.name, "description": item.description}
        body |= {"calculationType": item.calculation_type, "rate": cell(item.rate), "cutoff": cell(item.cutoff)}
        body |= {"fringeGroupIds": list(item.fringe_group_ids), "color": item.color}
    elif isinstance(item, Fringe):
        body = {"id": item.id, "name": item.code, "description": item.description}
        body |= {"calculationType": item.units, "rate": cell(item.rate), "cutoff": cell(item.cutoff)}
        body |= {"fringeGroupIds": list(item.fringe_group_ids), "color": item.color}
    elif isinstance(item, LibraryGlobal | Global):
        body = {"id": item.id, "symbol": item.symbol, "formula": item.formula, "description": item.description}
        body["unit"] = item.unit
    elif isinstance(item, LibraryTag):
        body = {"id": item.id, "name": item.name, "color": item.color, "description": item.description}
        body |= {"createdAt": timestamp(item.created_at), "updatedAt": timestamp(item.updated_at)}
    elif isinstance(item, FringeGroup):
        body = group_view(item)
    else:
        body = {"id": item.id, "label": item.label, "pluralLabel": item.plural_label, "category": item.category}
        body |= {"hoursPerUnit": cell(item.hours_per_unit), "color": item.color, "description": item.description}
        body["isCustom"] = item.is_custom
    if isinstance(item, ProjectCurrency | Fringe | Global):
        body["sourceId"] = item.source_id
        body["sourceType"] = "workspace" if item.source_id else None
    return body


def collection_of(segment: str) -> Collection:
    """The collection a path names, else 404."""
    found = COLLECTIONS.get(segment)
    if found is None:
        raise NotFoundError(f"There is no library collection {segment!r}; use one of {', '.join(COLLECTIONS)}.")
    return found


def live_item(workspace: Workspace, segment: str, item_id: str) -> LibraryItem:
    """A workspace item that is not deleted, else 404 naming it by its collection (``fringe-groups``: a
    Fringe-group)."""
    item = library.live_item(workspace, collection_of(segment).kind, item_id)
    if item is None:
        raise NotFoundError(f"{segment.rstrip('s').capitalize()} {item_id!r} was not found.")
    return item


# -- workspace items ------------------------------------------------------------------------------------------


@workspace_router.get("/{kind}")
async def list_items(request: Request, grant: Grant, kind: str) -> Response:
    workspace = workspace_of(request, grant)
    items = [i for i in library.collection(workspace, collection_of(kind).kind).values() if not i.deleted]
    if kind == "units":  # the published UnitCollection is every unit at once: {data} and nothing else
        return ok({"data": [item_view(i) for i in items]})
    return page_response(request, items, item_view, filters={})


@workspace_router.post("/{kind}", status_code=201)
async def create_item(request: Request, grant: Grant, kind: str) -> Response:
    found = collection_of(kind)
    can(grant, "create", found.resource)
    fields = renamed(await parsed_body(request, requests.LIBRARY_CREATE[kind]), found.fields)
    context = context_of(request)
    workspace = workspace_of(request, grant)

    async def produce() -> Response:
        with domain_errors():
            item = context.service.create_library_item(workspace, found.kind, fields)
        return created(item_view(item))

    return await idempotent(request, grant, produce)


@workspace_router.get("/{kind}/{item_id}")
async def get_item(request: Request, grant: Grant, kind: str, item_id: str) -> Response:
    return ok(item_view(live_item(workspace_of(request, grant), kind, item_id)))


@workspace_router.patch("/{kind}/{item_id}")
async def update_item(request: Request, grant: Grant, kind: str, item_id: str) -> Response:
    found = collection_of(kind)
    can(grant, "update", found.resource)
    changes = renamed(await parsed_body(request, requests.LIBRARY_UPDATE[kind]), found.fields)
    workspace = workspace_of(request, grant)
    item = live_item(workspace, kind, item_id)
    with domain_errors():
        context_of(request).service.update_library_item(workspace, item, changes)
    return ok(item_view(item))


@workspace_router.delete("/{kind}/{item_id}", status_code=204)
async def delete_item(request: Request, grant: Grant, kind: str, item_id: str) -> Response:
    can(grant, "delete", collection_of(kind).resource)
    item = live_item(workspace_of(request, grant), kind, item_id)
    context_of(request).service.delete_library_item(item)
    return Response(status_code=204)


# -- project copies -------------------------------------------------------------------------------------------


def copy_kind(segment: str) -> CopyKind:
    """The kind of copy a path names, else 404."""
    found = COPY_KINDS.get(segment)
    if found is None:
        raise NotFoundError(f"Projects hold copies of {', '.join(COPY_KINDS)} and incentives, not {segment!r}.")
    return found


def copy_resource(segment: str) -> str:
    """The resource type a token's role is checked for on a project copy the path names, else 404."""
    copy_kind(segment)
    return COLLECTIONS[segment].resource


def _copy(project: Project, segment: str, item_id: str) -> ProjectCopy:
    found = library.project_copies(project, copy_kind(segment)).get(item_id)
    if found is None:
        raise NotFoundError(f"{COLLECTIONS[segment].resource} {item_id!r} was not found in this project.")
    return found


@project_router.get("/tags")
async def project_tags(request: Request, grant: Grant, project_id: str) -> Response:
    workspace, project = project_of(request, grant, project_id)
    used = set(project.tags)
    tags = [t for t in workspace.library.tags.values() if t.name in used and not t.deleted]
    return page_response(request, tags, item_view, filters={})


@project_router.get("/{kind}")
async def list_copies(request: Request, grant: Grant, project_id: str, kind: str) -> Response:
    _, project = project_of(request, grant, project_id)
    return page_response(
        request, list(library.project_copies(project, copy_kind(kind)).values()), item_view, filters={}
    )


@project_router.post("/{kind}", status_code=201)
async def add_copy(request: Request, grant: Grant, project_id: str, kind: str) -> Response:
    """POST {sourceId}: 201 with a new copy, 200 with the existing one (its project edits kept)."""
    can(grant, "create", copy_resource(kind))
    source_id = str((await parsed_body(request, requests.CopyAdd))["sourceId"])
    workspace, project = project_of(request, grant, project_id)
    # The operation lists no 422: an unknown sourceId is a 404 (A52).
    source = live_item(workspace, kind, source_id)
    assert isinstance(source, LibraryCurrency | LibraryFringe | LibraryGlobal)  # the item of a copy kind
    with domain_errors():
        copy, new = context_of(request).service.add_project_copy(project, source)
    return created(item_view(copy)) if new else ok(item_view(copy))


@project_router.get("/{kind}/{item_id}")
async def get_copy(request: Request, grant: Grant, project_id: str, kind: str, item_id: str) -> Response:
    _, project = project_of(request, grant, project_id)
    return ok(item_view(_copy(project, kind, item_id)))


@project_router.patch("/{kind}/{item_id}")
async def update_copy(request: Request, grant: Grant, project_id: str, kind: str, item_id: str) -> Response:
    """Edit a project copy; the workspace item is unchanged (the copy is independent)."""
    can(grant, "update", copy_resource(kind))
    body = await parsed_body(request, requests.LIBRARY_UPDATE[kind])
    service = context_of(request).service
    _, project = project_of(request, grant, project_id)
    copy = _copy(project, kind, item_id)
    allowed = COPY_PATCH[kind]
    unknown = sorted(set(body) - set(allowed))
    if unknown and kind != "currencies":  # a published field a copy cannot change here: well formed, not applicable
        raise UnprocessableError(f"{unknown[0]} is not an editable field of a project {kind.rstrip('s')}.")
    changes = renamed(body, allowed)
    with domain_errors():
        if kind == "currencies":
            service.update_currency(project, item_id, changes)
        elif kind == "fringes":
            service.update_fringe(project, item_id, changes)
        else:
            service.update_global(project, item_id, changes)
    return ok(item_view(copy))


@project_router.delete("/{kind}/{item_id}", status_code=204)
async def remove_copy(request: Request, grant: Grant, project_id: str, kind: str, item_id: str) -> Response:
    can(grant, "delete", copy_resource(kind))
    service = context_of(request).service
    _, project = project_of(request, grant, project_id)
    _copy(project, kind, item_id)
    with domain_errors():
        if kind == "fringes":
            service.delete_fringe(project, item_id)
        elif kind == "globals":
            service.delete_global(project, item_id)
        else:
            service.delete_currency(project, item_id)
    return Response(status_code=204)
