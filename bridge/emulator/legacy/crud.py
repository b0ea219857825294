"""The legacy surface's five routes of a project-scoped record kind, built from one declaration.

Phases, fringes, globals and tags each have a list (``{<key>: [...]}``), a create (201), a read, an update
(PUT) and a delete (204) under ``/projects/{project_id}/<path>``. A ``ProjectResource`` says how one kind is
listed, read, written and shown; ``project_routes`` adds its routes to a router. Every route takes the same
steps in the same order: the project first (404), then the body of a write (400), then the store, then the
shape in the request's id mode, so a request wrong in two ways is refused for the same one whatever the kind.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Generic, TypeVar

from fastapi import APIRouter
from starlette.responses import Response

from bridge.emulator.core.model import Project
from bridge.emulator.legacy.routing import Ctx, no_content, ok
from bridge.emulator.legacy.shapes import Json, LegacyView

R = TypeVar("R")
Body = dict[str, object]


def as_shaped(shaped: Json) -> Json:
    """A create answered with the record alone (every kind but phases)."""
    return shaped


@dataclass(frozen=True, slots=True)
class ProjectResource(Generic[R]):
    """One record kind of a project on the legacy surface.

    ``path`` is under the project (``/budget/fringes``), ``key`` the list answer's field, ``item`` the path
    parameter naming one record (kept from the published paths, so the request counters name the same route
    templates). ``listing`` may read the query (filters, sort); ``read``, ``update`` and ``delete`` take the
    record's reference as the path gives it; ``shape`` writes a record in the request's id mode; ``created``
    wraps the shaped record of a create.
    """

    path: str
    key: str
    item: str
    listing: Callable[[Ctx, Project], Iterable[R]]
    read: Callable[[Ctx, Project, str], R]
    create: Callable[[Ctx, Project, Body], R]
    update: Callable[[Ctx, Project, str, Body], R]
    delete: Callable[[Ctx, Project, str], None]
    shape: Callable[[LegacyView, Ctx, Project, R], Json]
    created: Callable[[Json], Json] = as_shaped


def project_routes(router: APIRouter, resource: ProjectResource[R]) -> None:
    """Add ``resource``'s list, create, read, update and delete routes to ``router``, in that order."""
    collection = "/projects/{project_id}" + resource.path
    one = f"{collection}/{{{resource.item}}}"

    async def list_records(ctx: Ctx, project_id: str) -> Response:
        project = ctx.project(project_id)
        records = resource.listing(ctx, project)
        view = ctx.view()
        return ok({resource.key: [resource.shape(view, ctx, project, r) for r in records]})

    async def create_record(ctx: Ctx, project_id: str) -> Response:
        project = ctx.project(project_id)
        body = await ctx.body()
        record = resource.create(ctx, project, body)
        return ok(resource.created(resource.shape(ctx.view(body), ctx, project, record)), 201)

    async def read_record(ctx: Ctx, project_id: str) -> Response:
        project = ctx.project(project_id)
        record = resource.read(ctx, project, ctx.request.path_params[resource.item])
        return ok(resource.shape(ctx.view(), ctx, project, record))

    async def update_record(ctx: Ctx, project_id: str) -> Response:
        project = ctx.project(project_id)
        body = await ctx.body()
        record = resource.update(ctx, project, ctx.request.path_params[resource.item], body)
        return ok(resource.shape(ctx.view(body), ctx, project, record))

    async def delete_record(ctx: Ctx, project_id: str) -> Response:
        resource.delete(ctx, ctx.project(project_id), ctx.request.path_params[resource.item])
        return no_content()

    router.add_api_route(collection, list_records, methods=["GET"])
    router.add_api_route(collection, create_record, methods=["POST"])
    router.add_api_route(one, read_record, methods=["GET"])
    router.add_api_route(one, update_record, methods=["PUT"])
    router.add_api_route(one, delete_record, methods=["DELETE"])
