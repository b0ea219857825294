"""The legacy surface (``/api/v1``, ``X-API-Key``): spaces, projects and contacts here; the budget family
in ``legacy_budget``, actuals in ``legacy_actuals``. Routes only parse, call the store and shape.
"""

from __future__ import annotations

from fastapi import APIRouter, FastAPI
from starlette.responses import Response

from bridge.emulator.core.errors import NotFound
from bridge.emulator.core.model import Project
from bridge.emulator.legacy import actuals_routes, budget_routes, library_routes
from bridge.emulator.legacy.contract import BASE
from bridge.emulator.legacy.routing import Ctx, LegacyRoute, no_content, ok, renamed

PREFIX = BASE
router = APIRouter(route_class=LegacyRoute)

CONTACT_FIELDS = {
    "name": "name",
    "contactTitle": "contact_title",
    "email": "email",
    "company": "company",
    "type": "type",
    "jobTitle": "job_title",
    "rate": "rate",
}
PROJECT_FIELDS = {
    "name": "name",
    "alias": "alias",
    "status": "status",
    "labels": "labels",
    "spaceId": "space_id",
    "icon": "emoji",
    "imageUrl": "image",
}


# -- spaces ---------------------------------------------------------------------------------------------


@router.get("/spaces")
async def list_spaces(ctx: Ctx) -> Response:
    spaces = ctx.service.list_spaces(ctx.workspace, archived=ctx.flag("archived"), search=ctx.param("search"))
    view = ctx.view()
    return ok({"spaces": [view.space(s) for s in spaces]})


@router.post("/spaces")
async def create_space(ctx: Ctx) -> Response:
    body = await ctx.body()
    space = ctx.service.create_space(
        ctx.workspace, name=body.get("name"), image=body.get("image"), archived=body.get("archived", False)
    )
    return ok(ctx.view(body).space(space), 201)


@router.get("/spaces/{space_id}")
async def get_space(ctx: Ctx, space_id: str) -> Response:
    return ok(ctx.view().space(ctx.service.get_space(ctx.workspace, space_id)))


@router.put("/spaces/{space_id}")
async def update_space(ctx: Ctx, space_id: str) -> Response:
    body = await ctx.body()
    changes = renamed(body, {"name": "name", "image": "image", "archived": "archived", "alias": "alias"})
    return ok(ctx.view(body).space(ctx.service.update_space(ctx.workspace, space_id, changes)))


@router.delete("/spaces/{space_id}")
async def delete_space(ctx: Ctx, space_id: str) -> Response:
    ctx.service.delete_space(ctx.workspace, space_id)
    return no_content()


# -- projects -------------------------------------------------------------------------------------------


def _matches(ctx: Ctx, project: Project) -> bool:
    """The documented list filters: id, space, status, name, space name, labels."""
    space = ctx.workspace.spaces.get(project.space_id or "")
    ids = ctx.multi("id")
    checks = (
        not ids or project.id in ids or project.alias in ids,
        not ctx.param("spaceId") or (space is not None and ctx.param("spaceId") in (space.id, space.alias, space.uuid)),
        not ctx.param("status") or project.status == ctx.param("status"),
        not ctx.param("name") or (ctx.param("name") or "").casefold() in project.name.casefold(),
        not ctx.param("spaceName")
        or (space is not None and (ctx.param("spaceName") or "").casefold() in space.name.casefold()),
        not ctx.multi("labels") or bool(set(ctx.multi("labels")) & set(project.labels)),
    )
    return all(checks)


@router.get("/projects")
async def list_projects(ctx: Ctx) -> Response:
    view = ctx.view()
    return ok({"projects": [view.project(p) for p in ctx.service.list_projects(ctx.workspace) if _matches(ctx, p)]})


@router.post("/projects")
async def create_project(ctx: Ctx) -> Response:
    body = await ctx.body()
    fields = renamed(body, PROJECT_FIELDS)
    project = ctx.service.create_project(
        ctx.workspace,
        name=fields.get("name", "Untitled Project"),
        alias=fields.get("alias"),
        status=fields.get("status", "active"),
        labels=fields.get("labels"),
        space_id=fields.get("space_id"),
        emoji=fields.get("emoji"),
        image=fields.get("image"),
    )
    return ok(ctx.view(body).project(project), 201)


@router.get("/projects/{project_id}")
async def get_project(ctx: Ctx, project_id: str) -> Response:
    return ok(ctx.view().project(ctx.project(project_id)))


@router.put("/projects/{project_id}")
async def update_project(ctx: Ctx, project_id: str) -> Response:
    body = await ctx.body()
    project = ctx.service.update_project(ctx.workspace, project_id, renamed(body, PROJECT_FIELDS))
    return ok(ctx.view(body).project(project))


@router.delete("/projects/{project_id}")
async def delete_project(ctx: Ctx, project_id: str) -> Response:
    ctx.service.delete_project(ctx.workspace, project_id)
    return no_content()


# -- contacts -------------------------------------------------------------------------------------------


@router.get("/contacts")
async def list_contacts(ctx: Ctx) -> Response:
    # The published filters the emulator can answer: email and title, case-insensitive partial matches.
    email, title = (ctx.param("email") or "").casefold(), (ctx.param("title") or "").casefold()
    contacts = [
        c
        for c in ctx.service.list_contacts(ctx.workspace)
        if email in (c.email or "").casefold() and title in (c.contact_title or "").casefold()
    ]
    view = ctx.view()
    return ok({"contacts": [view.contact(c) for c in contacts]})


@router.post("/contacts")
async def create_contact(ctx: Ctx) -> Response:
    body = await ctx.body()
    contact = ctx.service.create_contact(ctx.workspace, renamed(body, CONTACT_FIELDS))
    return ok(ctx.view(body).contact(contact), 201)


@router.get("/contacts/{contact_id}")
async def get_contact(ctx: Ctx, contact_id: str) -> Response:
    return ok(ctx.view().contact(ctx.service.get_contact(ctx.workspace, contact_id)))


@router.put("/contacts/{contact_id}")
async def update_contact(ctx: Ctx, contact_id: str) -> Response:
    body = await ctx.body()
    contact = ctx.service.update_contact(ctx.workspace, contact_id, renamed(body, CONTACT_FIELDS))
    return ok(ctx.view(body).contact(contact))


# -- assembly -------------------------------------------------------------------------------------------

fallback = APIRouter(route_class=LegacyRoute)


@fallback.api_route("/{rest:path}", methods=["GET", "POST", "PUT", "DELETE", "PATCH"])
async def unknown_route(ctx: Ctx, rest: str) -> Response:
    """Any other path under the legacy base is a 404 in the legacy error body (after the key check)."""
    raise NotFound("route", f"{ctx.request.method} {PREFIX}/{rest}")


def mount_legacy(app: FastAPI) -> None:
    """Mount the legacy surface on ``app``; its routes read the app's state holder as a ``LegacyContext``."""
    for module_router in (router, budget_routes.router, library_routes.router, actuals_routes.router, fallback):
        app.include_router(module_router, prefix=PREFIX)
