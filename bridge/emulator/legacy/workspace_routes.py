"""The legacy surface (``/api/v1``, ``X-API-Key``): spaces, projects and contacts here (each declared once,
``legacy.crud``); the budget in ``budget_routes``, the project library in ``library_routes``, actuals in
``actuals_routes``, purchase orders in ``purchase_order_routes``, bank and card transactions in
``transaction_routes``. Routes only parse, call the store and shape; ``mount_legacy`` mounts them all.
"""

from __future__ import annotations

from collections.abc import Mapping

from fastapi import APIRouter, FastAPI
from starlette.responses import Response

from bridge.emulator.core.errors import NotFound
from bridge.emulator.core.model import Contact, Project, Space, Workspace
from bridge.emulator.legacy import (
    actuals_routes,
    budget_routes,
    comment_routes,
    file_routes,
    library_routes,
    note_routes,
    purchase_order_routes,
    rate_routes,
    transaction_routes,
)
from bridge.emulator.legacy.contract import BASE
from bridge.emulator.legacy.crud import Resource, in_workspace, resource_routes
from bridge.emulator.legacy.file_routes import contact_file_filter
from bridge.emulator.legacy.file_shapes import contact_files
from bridge.emulator.legacy.routing import Ctx, LegacyRoute, renamed

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
SPACE_FIELDS = {"name": "name", "image": "image", "archived": "archived", "alias": "alias"}
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

SPACES: Resource[Workspace, Space] = Resource(
    path="/spaces",
    key="spaces",
    item="space_id",
    owner=in_workspace,
    listing=lambda ctx, workspace: ctx.service.list_spaces(
        workspace, archived=ctx.flag("archived"), search=ctx.param("search")
    ),
    read=lambda ctx, workspace, ref: ctx.service.get_space(workspace, ref),
    create=lambda ctx, workspace, body: ctx.service.create_space(
        workspace, name=body.get("name"), image=body.get("image"), archived=body.get("archived", False)
    ),
    update=lambda ctx, workspace, ref, body: ctx.service.update_space(workspace, ref, renamed(body, SPACE_FIELDS)),
    delete=lambda ctx, workspace, ref: ctx.service.delete_space(workspace, ref),
    shape=lambda view, ctx, workspace, space: view.space(space),
)

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


def create_project(ctx: Ctx, workspace: Workspace, body: Mapping[str, object]) -> Project:
    fields = renamed(body, PROJECT_FIELDS)
    return ctx.service.create_project(
        workspace,
        name=fields.get("name", "Untitled Project"),
        alias=fields.get("alias"),
        status=fields.get("status", "active"),
        labels=fields.get("labels"),
        space_id=fields.get("space_id"),
        emoji=fields.get("emoji"),
        image=fields.get("image"),
    )


PROJECTS: Resource[Workspace, Project] = Resource(
    path="/projects",
    key="projects",
    item="project_id",
    owner=in_workspace,
    listing=lambda ctx, workspace: [p for p in ctx.service.list_projects(workspace) if _matches(ctx, p)],
    read=lambda ctx, workspace, ref: ctx.service.get_project(workspace, ref),
    create=create_project,
    update=lambda ctx, workspace, ref, body: ctx.service.update_project(workspace, ref, renamed(body, PROJECT_FIELDS)),
    delete=lambda ctx, workspace, ref: ctx.service.delete_project(workspace, ref),
    shape=lambda view, ctx, workspace, project: view.project(project),
)

# -- contacts -------------------------------------------------------------------------------------------


def list_contacts(ctx: Ctx, workspace: Workspace) -> list[Contact]:
    """The published filters the emulator can answer: email and title, case-insensitive partial matches, and
    whether a contact has attachments or tax documents."""
    email, title = (ctx.param("email") or "").casefold(), (ctx.param("title") or "").casefold()
    has_files = contact_file_filter(ctx, workspace)
    return [
        c
        for c in ctx.service.list_contacts(workspace)
        if email in (c.email or "").casefold() and title in (c.contact_title or "").casefold() and has_files(c.id)
    ]


# No delete: the legacy document publishes none for contacts.
CONTACTS: Resource[Workspace, Contact] = Resource(
    path="/contacts",
    key="contacts",
    item="contact_id",
    owner=in_workspace,
    listing=list_contacts,
    read=lambda ctx, workspace, ref: ctx.service.get_contact(workspace, ref),
    create=lambda ctx, workspace, body: ctx.service.create_contact(workspace, renamed(body, CONTACT_FIELDS)),
    update=lambda ctx, workspace, ref, body: ctx.service.update_contact(workspace, ref, renamed(body, CONTACT_FIELDS)),
    shape=lambda view, ctx, workspace, contact: (
        view.contact(contact) | contact_files(workspace, contact.id, view.expands)
    ),
)

resource_routes(router, SPACES)
resource_routes(router, PROJECTS)
resource_routes(router, CONTACTS)


# -- assembly -------------------------------------------------------------------------------------------

fallback = APIRouter(route_class=LegacyRoute)


@fallback.api_route("/{rest:path}", methods=["GET", "POST", "PUT", "DELETE", "PATCH"])
async def unknown_route(ctx: Ctx, rest: str) -> Response:
    """Any other path under the legacy base is a 404 in the legacy error body (after the key check)."""
    raise NotFound("route", f"{ctx.request.method} {PREFIX}/{rest}")


def mount_legacy(app: FastAPI) -> None:
    """Mount the legacy surface on ``app``; its routes read the app's state holder as a ``LegacyContext``."""
    routers = (router, budget_routes.router, note_routes.router, comment_routes.router, rate_routes.router)
    tail = (
        library_routes.router,
        actuals_routes.router,
        file_routes.router,
        purchase_order_routes.router,
        transaction_routes.router,
    )
    for module_router in (*routers, *tail, fallback):
        app.include_router(module_router, prefix=PREFIX)
