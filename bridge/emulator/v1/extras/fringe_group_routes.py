"""v1 project fringe groups: a project's copies of workspace fringe groups (the five published routes).

The core model keeps no fringe groups per project, so the copies live with the v1-only library state
(``v1.extras.packs``). Adding a group again returns the existing copy with its project edits; ``reset=true``
restores the workspace values. ``expand=source`` inlines the workspace group, or a tombstone once deleted (A61).
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from bridge.emulator.core.model import FringeGroup, Workspace
from bridge.emulator.v1 import requests
from bridge.emulator.v1.auth import Grant
from bridge.emulator.v1.context import context_of
from bridge.emulator.v1.expand import LIBRARY_COPY, expand_keys
from bridge.emulator.v1.extras.packs import ProjectFringeGroup
from bridge.emulator.v1.library_routes import group_view, live_item
from bridge.emulator.v1.routing import (
    Json,
    V1Router,
    can,
    created,
    domain_errors,
    flag,
    ok,
    page_response,
    parsed_body,
)
from bridge.emulator.v1.routing import project_of as project_in

router = V1Router(prefix="/projects/{project_id}/library/fringe-groups")


def copy_view(workspace: Workspace, copy: ProjectFringeGroup, expand: set[str]) -> Json:
    body = group_view(copy) | {"sourceType": "workspace", "sourceId": copy.source_id}
    if "source" in expand:
        source = workspace.library.fringe_groups.get(copy.source_id)
        live = source is not None and not source.deleted
        body["source"] = group_view(source) if source is not None and live else {"id": copy.source_id, "deleted": True}
    return body


@router.get("")
async def list_groups(request: Request, grant: Grant, project_id: str) -> Response:
    workspace, project = project_in(request, grant, project_id)
    expand = expand_keys(request, LIBRARY_COPY)
    wanted = request.query_params.get("sourceId")
    held = context_of(request).packs.fringe_groups.get(project.id, {}).values()
    rows = [g for g in held if wanted in (None, g.source_id)]
    filters = {"sourceId": wanted, "expand": request.query_params.get("expand")}
    return page_response(request, rows, lambda g: copy_view(workspace, g, expand), filters=filters)


@router.post("", status_code=201)
async def add_group(request: Request, grant: Grant, project_id: str) -> Response:
    """POST {sourceId}: 201 with a new copy, 200 with the existing one (edits kept unless ``reset=true``)."""
    can(grant, "create", "FringeGroup")
    source_id = str((await parsed_body(request, requests.CopyAdd))["sourceId"])
    context = context_of(request)
    workspace, project = project_in(request, grant, project_id)
    source = live_item(workspace, "fringe-groups", source_id)  # unknown: a 404, as for the other copies (A52)
    assert isinstance(source, FringeGroup)
    with domain_errors():
        copy, new = context.packs.add_fringe_group(
            project, source, context.service.ids.new("pfg"), reset=flag(request, "reset")
        )
    return (created if new else ok)(copy_view(workspace, copy, set()))


@router.get("/{group_id}")
async def get_group(request: Request, grant: Grant, project_id: str, group_id: str) -> Response:
    workspace, project = project_in(request, grant, project_id)
    expand = expand_keys(request, LIBRARY_COPY)
    with domain_errors():
        return ok(copy_view(workspace, context_of(request).packs.fringe_group(project, group_id), expand))


@router.patch("/{group_id}")
async def update_group(request: Request, grant: Grant, project_id: str, group_id: str) -> Response:
    """Edit the project copy (name, color); the workspace group is unchanged."""
    can(grant, "update", "FringeGroup")
    body = await parsed_body(request, requests.FringeGroupWrite)
    workspace, project = project_in(request, grant, project_id)
    with domain_errors():
        copy = context_of(request).packs.fringe_group(project, group_id)
    if "name" in body:
        copy.name = str(body["name"])
    if "color" in body:
        copy.color = None if body["color"] is None else str(body["color"])
    return ok(copy_view(workspace, copy, set()))


@router.delete("/{group_id}", status_code=204)
async def remove_group(request: Request, grant: Grant, project_id: str, group_id: str) -> Response:
    can(grant, "delete", "FringeGroup")
    _, project = project_in(request, grant, project_id)
    packs = context_of(request).packs
    with domain_errors():
        packs.fringe_group(project, group_id)
    del packs.fringe_groups[project.id][group_id]
    return Response(status_code=204)
