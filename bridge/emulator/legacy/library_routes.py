"""Legacy project library routes: phases, fringes, globals and tags (all project-scoped on this surface)."""

from __future__ import annotations

from collections.abc import Mapping

from fastapi import APIRouter
from starlette.responses import Response

from bridge.emulator.core import validate
from bridge.emulator.core.errors import InvalidInput
from bridge.emulator.core.model import Project
from bridge.emulator.legacy.routing import Ctx, LegacyRoute, no_content, ok, renamed
from bridge.emulator.legacy.shapes import rollup_formula

router = APIRouter(route_class=LegacyRoute)

FRINGE_FIELDS = {"code": "code", "description": "description", "units": "units", "rate": "rate", "cutoff": "cutoff"}
GLOBAL_FIELDS = {"symbol": "symbol", "description": "description", "formula": "formula", "unit": "unit"}
PHASE_BASE = "/projects/{project_id}/budget/phases"
FRINGE_BASE = "/projects/{project_id}/budget/fringes"
GLOBAL_BASE = "/projects/{project_id}/budget/globals"
TAG_BASE = "/projects/{project_id}/tags"


# -- phases ---------------------------------------------------------------------------------------------


def currency_id(ctx: Ctx, project: Project, raw: object) -> str | None:
    """A legacy phase currency {code, symbol, exchangeRate} as a project currency (reused when equal, A09)."""
    if raw is None:
        return None
    if not isinstance(raw, Mapping):
        raise InvalidInput("currency", "must be an object {code, symbol, exchangeRate}")
    code = validate.required_text("currency.code", raw.get("code"), max_len=3).upper()
    rate = validate.number("currency.exchangeRate", raw.get("exchangeRate", 1))
    for existing in project.currencies.values():
        if existing.code == code and existing.rate_to_usd == rate:
            return existing.id
    return ctx.service.add_currency(project, code=code, symbol=raw.get("symbol"), rate_to_usd=rate).id


def rollup_of(ctx: Ctx, project: Project, body: Mapping[str, object]) -> str | None:
    """``operation`` + ``phaseIds`` (phase keys) as the stored rollup formula."""
    refs = body.get("phaseIds")
    if refs is None:
        return None
    if not isinstance(refs, list) or len(refs) < 2:
        raise InvalidInput("phaseIds", "a rollup needs at least two phases")
    operation = body.get("operation", "sum")
    if operation not in ("sum", "difference"):
        raise InvalidInput("operation", f"{operation!r} is not sum or difference")
    return rollup_formula(str(operation), [ctx.service.get_phase(project, str(r)).id for r in refs])


@router.get(PHASE_BASE)
async def list_phases(ctx: Ctx, project_id: str) -> Response:
    project = ctx.project(project_id)
    view = ctx.view()
    return ok({"phases": [view.phase(project, p) for p in ctx.service.list_phases(project)]})


@router.post(PHASE_BASE)
async def create_phase(ctx: Ctx, project_id: str) -> Response:
    project = ctx.project(project_id)
    body = await ctx.body()
    phase = ctx.service.create_phase(
        project,
        name=body.get("name"),
        type=body.get("type"),
        alias=body.get("alias"),
        is_hidden=body.get("isHidden", False),
        color=body.get("color"),
        currency_id=currency_id(ctx, project, body.get("currency")),
        rollup_formula=rollup_of(ctx, project, body),
    )
    return ok({"phase": ctx.view(body).phase(project, phase), "warnings": []}, 201)


@router.get(PHASE_BASE + "/{phase_id}")
async def get_phase(ctx: Ctx, project_id: str, phase_id: str) -> Response:
    project = ctx.project(project_id)
    return ok(ctx.view().phase(project, ctx.service.get_phase(project, phase_id)))


@router.put(PHASE_BASE + "/{phase_id}")
async def update_phase(ctx: Ctx, project_id: str, phase_id: str) -> Response:
    project = ctx.project(project_id)
    body = await ctx.body()
    changes = renamed(body, {"name": "name", "color": "color", "isHidden": "is_hidden", "alias": "alias"})
    if "currency" in body:
        changes["currency_id"] = currency_id(ctx, project, body["currency"])
    formula_text = rollup_of(ctx, project, body)
    if formula_text is not None:
        changes["rollup_formula"] = formula_text
    return ok(ctx.view(body).phase(project, ctx.service.update_phase(project, phase_id, changes)))


@router.delete(PHASE_BASE + "/{phase_id}")
async def delete_phase(ctx: Ctx, project_id: str, phase_id: str) -> Response:
    ctx.service.delete_phase(ctx.project(project_id), phase_id)
    return no_content()


# -- fringes --------------------------------------------------------------------------------------------


@router.get(FRINGE_BASE)
async def list_fringes(ctx: Ctx, project_id: str) -> Response:
    view = ctx.view()
    return ok({"fringes": [view.fringe(f) for f in ctx.project(project_id).fringes.values()]})


@router.post(FRINGE_BASE)
async def create_fringe(ctx: Ctx, project_id: str) -> Response:
    body = await ctx.body()
    fringe = ctx.service.create_fringe(ctx.project(project_id), renamed(body, FRINGE_FIELDS))
    return ok(ctx.view(body).fringe(fringe), 201)


@router.get(FRINGE_BASE + "/{fringe_id}")
async def get_fringe(ctx: Ctx, project_id: str, fringe_id: str) -> Response:
    return ok(ctx.view().fringe(ctx.service.get_fringe(ctx.project(project_id), fringe_id)))


@router.put(FRINGE_BASE + "/{fringe_id}")
async def update_fringe(ctx: Ctx, project_id: str, fringe_id: str) -> Response:
    body = await ctx.body()
    fringe = ctx.service.update_fringe(ctx.project(project_id), fringe_id, renamed(body, FRINGE_FIELDS))
    return ok(ctx.view(body).fringe(fringe))


@router.delete(FRINGE_BASE + "/{fringe_id}")
async def delete_fringe(ctx: Ctx, project_id: str, fringe_id: str) -> Response:
    ctx.service.delete_fringe(ctx.project(project_id), fringe_id)
    return no_content()


# -- globals --------------------------------------------------------------------------------------------


@router.get(GLOBAL_BASE)
async def list_globals(ctx: Ctx, project_id: str) -> Response:
    view = ctx.view()
    return ok({"globals": [view.global_(g) for g in ctx.project(project_id).globals.values()]})


@router.post(GLOBAL_BASE)
async def create_global(ctx: Ctx, project_id: str) -> Response:
    body = await ctx.body()
    item = ctx.service.create_global(ctx.project(project_id), renamed(body, GLOBAL_FIELDS))
    return ok(ctx.view(body).global_(item), 201)


@router.get(GLOBAL_BASE + "/{global_id}")
async def get_global(ctx: Ctx, project_id: str, global_id: str) -> Response:
    return ok(ctx.view().global_(ctx.service.get_global(ctx.project(project_id), global_id)))


@router.put(GLOBAL_BASE + "/{global_id}")
async def update_global(ctx: Ctx, project_id: str, global_id: str) -> Response:
    body = await ctx.body()
    item = ctx.service.update_global(ctx.project(project_id), global_id, renamed(body, GLOBAL_FIELDS))
    return ok(ctx.view(body).global_(item))


@router.delete(GLOBAL_BASE + "/{global_id}")
async def delete_global(ctx: Ctx, project_id: str, global_id: str) -> Response:
    ctx.service.delete_global(ctx.project(project_id), global_id)
    return no_content()


# -- tags -----------------------------------------------------------------------------------------------


@router.get(TAG_BASE)
async def list_tags(ctx: Ctx, project_id: str) -> Response:
    project = ctx.project(project_id)
    needle = (ctx.param("name") or "").casefold()
    if (ctx.param("sortBy") or "name") != "name":
        raise InvalidInput("sortBy", "only name is supported")
    order = ctx.param("sortOrder") or "asc"
    if order not in ("asc", "desc"):
        raise InvalidInput("sortOrder", f"{order!r} is not asc or desc")
    tags = sorted(
        (t for t in ctx.service.list_tags(project) if needle in t.name.casefold()),
        key=lambda t: (t.name.casefold(), t.name),
        reverse=order == "desc",
    )
    view = ctx.view()
    totals = ctx.service.totals(ctx.workspace, project)
    return ok({"tags": [view.tag(project, t, totals) for t in tags]})


@router.post(TAG_BASE)
async def create_tag(ctx: Ctx, project_id: str) -> Response:
    project = ctx.project(project_id)
    body = await ctx.body()
    tag = ctx.service.create_tag(
        project, name=body.get("name"), color=body.get("color"), description=body.get("description")
    )
    return ok(ctx.view(body).tag(project, tag, ctx.service.totals(ctx.workspace, project)), 201)


@router.get(TAG_BASE + "/{tag_id}")
async def get_tag(ctx: Ctx, project_id: str, tag_id: str) -> Response:
    project = ctx.project(project_id)
    tag = ctx.service.get_tag(project, tag_id)
    return ok(ctx.view().tag(project, tag, ctx.service.totals(ctx.workspace, project)))


@router.put(TAG_BASE + "/{tag_id}")
async def update_tag(ctx: Ctx, project_id: str, tag_id: str) -> Response:
    project = ctx.project(project_id)
    body = await ctx.body()
    tag = ctx.service.update_tag(
        project, tag_id, renamed(body, {"color": "color", "description": "description", "name": "name"})
    )
    return ok(ctx.view(body).tag(project, tag, ctx.service.totals(ctx.workspace, project)))


@router.delete(TAG_BASE + "/{tag_id}")
async def delete_tag(ctx: Ctx, project_id: str, tag_id: str) -> Response:
    ctx.service.delete_tag(ctx.project(project_id), tag_id)
    return no_content()
