"""The legacy surface's list, create, read, update and delete routes of a record kind, from one declaration.

Spaces, projects and contacts (in the workspace) and phases, fringes, globals and tags (in a project) each have
a list (``{<key>: [...]}``), a create (201), a read, an update (PUT) and, but for contacts, a delete (204). A
``Resource`` says where a kind lives and how it is listed, read, written and shown; ``resource_routes`` adds its
routes to a router. Every route takes the same steps in the same order: the owner (a project: 404), then the
body of a write (400), then the store, then the shape in the request's id mode, so a request wrong in two ways
is refused for the same one whatever the kind.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Generic, TypeVar

from fastapi import APIRouter
from starlette.responses import Response

from bridge.emulator.core.model import Project, Workspace
from bridge.emulator.legacy.routing import Ctx, no_content, ok
from bridge.emulator.legacy.shapes import Json, LegacyView

Owner = TypeVar("Owner", Project, Workspace)
R = TypeVar("R")
Body = dict[str, object]
PROJECT = "/projects/{project_id}"


def in_workspace(ctx: Ctx) -> Workspace:
    """The owner of a workspace-level kind: the workspace the key opens."""
    return ctx.workspace


def in_project(ctx: Ctx) -> Project:
    """The owner of a project-level kind: the project its path names (404 when there is none)."""
    return ctx.project(ctx.request.path_params["project_id"])


def as_shaped(shaped: Json) -> Json:
    """A create answered with the record alone (every kind but phases)."""
    return shaped


@dataclass(frozen=True, slots=True)
class Resource(Generic[Owner, R]):
    """One record kind on the legacy surface, owned by a workspace or a project.

    ``path`` is the collection's (``/spaces``, ``/projects/{project_id}/budget/fringes``), ``key`` the list
    answer's field, ``item`` the path parameter naming one record (kept from the published paths, so the
    request counters name the same route templates). ``listing`` may read the query (filters, sort); ``read``,
    ``update`` and ``delete`` take the record's reference as the path gives it; ``shape`` writes a record in
    the request's id mode; ``created`` wraps the shaped record of a create. No ``delete``, no delete route.
    """

    path: str
    key: str
    item: str
    owner: Callable[[Ctx], Owner]
    listing: Callable[[Ctx, Owner], Iterable[R]]
    read: Callable[[Ctx, Owner, str], R]
    create: Callable[[Ctx, Owner, Body], R]
    update: Callable[[Ctx, Owner, str, Body], R]
    shape: Callable[[LegacyView, Ctx, Owner, R], Json]
    delete: Callable[[Ctx, Owner, str], None] | None = None
    created: Callable[[Json], Json] = as_shaped


def resource_routes(router: APIRouter, resource: Resource[Owner, R]) -> None:
    """Add ``resource``'s list, create, read, update and delete routes to ``router``, in that order."""
    one = f"{resource.path}/{{{resource.item}}}"

    def ref(ctx: Ctx) -> str:
        return str(ctx.request.path_params[resource.item])

    async def list_records(ctx: Ctx) -> Response:
        owner = resource.owner(ctx)
        records = resource.listing(ctx, owner)
        view = ctx.view()
        return ok({resource.key: [resource.shape(view, ctx, owner, r) for r in records]})

    async def create_record(ctx: Ctx) -> Response:
        owner = resource.owner(ctx)
        body = await ctx.body()
        record = resource.create(ctx, owner, body)
        return ok(resource.created(resource.shape(ctx.view(body), ctx, owner, record)), 201)

    async def read_record(ctx: Ctx) -> Response:
        owner = resource.owner(ctx)
        record = resource.read(ctx, owner, ref(ctx))
        return ok(resource.shape(ctx.view(), ctx, owner, record))

    async def update_record(ctx: Ctx) -> Response:
        owner = resource.owner(ctx)
        body = await ctx.body()
        record = resource.update(ctx, owner, ref(ctx), body)
        return ok(resource.shape(ctx.view(body), ctx, owner, record))

    router.add_api_route(resource.path, list_records, methods=["GET"])
    router.add_api_route(resource.path, create_record, methods=["POST"])
    router.add_api_route(one, read_record, methods=["GET"])
    router.add_api_route(one, update_record, methods=["PUT"])
    delete = resource.delete
    if delete is not None:

        async def delete_record(ctx: Ctx) -> Response:
            delete(ctx, resource.owner(ctx), ref(ctx))
            return no_content()

        router.add_api_route(one, delete_record, methods=["DELETE"])
