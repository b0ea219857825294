"""Legacy project library routes: phases, fringes, globals and tags, each declared once (``legacy.crud``).

All four are project-scoped on this surface. A phase's currency and rollup are parsed here into the store's
terms (a project currency, a rollup formula); tags are listed filtered and sorted by name, with their totals.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TypeVar

from fastapi import APIRouter

from bridge.emulator.core import validate
from bridge.emulator.core.errors import InvalidInput
from bridge.emulator.core.model import Phase, Project, ProjectTag
from bridge.emulator.core.store import Service
from bridge.emulator.legacy.crud import PROJECT, Resource, in_project, resource_routes
from bridge.emulator.legacy.routing import Ctx, LegacyRoute, renamed
from bridge.emulator.legacy.shapes import Json, LegacyView, rollup_formula

router = APIRouter(route_class=LegacyRoute)
R = TypeVar("R")

PHASE_FIELDS = {"name": "name", "color": "color", "isHidden": "is_hidden", "alias": "alias"}
FRINGE_FIELDS = {"code": "code", "description": "description", "units": "units", "rate": "rate", "cutoff": "cutoff"}
GLOBAL_FIELDS = {"symbol": "symbol", "description": "description", "formula": "formula", "unit": "unit"}
TAG_FIELDS = {"color": "color", "description": "description", "name": "name"}


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


def create_phase(ctx: Ctx, project: Project, body: Mapping[str, object]) -> Phase:
    return ctx.service.create_phase(
        project,
        name=body.get("name"),
        type=body.get("type"),
        alias=body.get("alias"),
        is_hidden=body.get("isHidden", False),
        color=body.get("color"),
        currency_id=currency_id(ctx, project, body.get("currency")),
        rollup_formula=rollup_of(ctx, project, body),
    )


def update_phase(ctx: Ctx, project: Project, ref: str, body: Mapping[str, object]) -> Phase:
    changes = renamed(body, PHASE_FIELDS)
    if "currency" in body:
        changes["currency_id"] = currency_id(ctx, project, body["currency"])
    formula_text = rollup_of(ctx, project, body)
    if formula_text is not None:
        changes["rollup_formula"] = formula_text
    return ctx.service.update_phase(project, ref, changes)


PHASES: Resource[Project, Phase] = Resource(
    path=PROJECT + "/budget/phases",
    key="phases",
    item="phase_id",
    owner=in_project,
    listing=lambda ctx, project: ctx.service.list_phases(project),
    read=lambda ctx, project, ref: ctx.service.get_phase(project, ref),
    create=create_phase,
    update=update_phase,
    delete=lambda ctx, project, ref: ctx.service.delete_phase(project, ref),
    shape=lambda view, ctx, project, phase: view.phase(project, phase),
    created=lambda shaped: {"phase": shaped, "warnings": []},
)

# -- fringes and globals --------------------------------------------------------------------------------


def kept_by_code(
    path: str,
    item: str,
    *,
    records: Callable[[Project], Iterable[R]],
    store: tuple[
        Callable[[Service, Project, str], R],
        Callable[[Service, Project, Mapping[str, object]], R],
        Callable[[Service, Project, str, Mapping[str, object]], R],
        Callable[[Service, Project, str], None],
    ],
    fields: Mapping[str, str],
    shape: Callable[[LegacyView, R], Json],
) -> Resource[Project, R]:
    """A budget library kind the store keeps by id or code, written with ``fields`` renamed to the model's:
    ``store`` is its get, create, update and delete."""
    get, create, update, delete = store
    return Resource(
        path=PROJECT + path,
        key=path.rpartition("/")[2],
        item=item,
        owner=in_project,
        listing=lambda ctx, project: records(project),
        read=lambda ctx, project, ref: get(ctx.service, project, ref),
        create=lambda ctx, project, body: create(ctx.service, project, renamed(body, fields)),
        update=lambda ctx, project, ref, body: update(ctx.service, project, ref, renamed(body, fields)),
        delete=lambda ctx, project, ref: delete(ctx.service, project, ref),
        shape=lambda view, ctx, project, record: shape(view, record),
    )


FRINGES = kept_by_code(
    "/budget/fringes",
    "fringe_id",
    records=lambda project: project.fringes.values(),
    store=(Service.get_fringe, Service.create_fringe, Service.update_fringe, Service.delete_fringe),
    fields=FRINGE_FIELDS,
    shape=LegacyView.fringe,
)
GLOBALS = kept_by_code(
    "/budget/globals",
    "global_id",
    records=lambda project: project.globals.values(),
    store=(Service.get_global, Service.create_global, Service.update_global, Service.delete_global),
    fields=GLOBAL_FIELDS,
    shape=LegacyView.global_,
)

# -- tags -----------------------------------------------------------------------------------------------


def list_tags(ctx: Ctx, project: Project) -> list[ProjectTag]:
    """The published filter (``name``, any case) and sort (by name, ``sortOrder`` asc or desc)."""
    needle = (ctx.param("name") or "").casefold()
    if (ctx.param("sortBy") or "name") != "name":
        raise InvalidInput("sortBy", "only name is supported")
    order = ctx.param("sortOrder") or "asc"
    if order not in ("asc", "desc"):
        raise InvalidInput("sortOrder", f"{order!r} is not asc or desc")
    return sorted(
        (t for t in ctx.service.list_tags(project) if needle in t.name.casefold()),
        key=lambda t: (t.name.casefold(), t.name),
        reverse=order == "desc",
    )


def tag_view(view: LegacyView, ctx: Ctx, project: Project, tag: ProjectTag) -> Json:
    """A tag with its totals (worked out once per project version, so a list pays for them once)."""
    return view.tag(project, tag, ctx.service.totals(ctx.workspace, project))


TAGS: Resource[Project, ProjectTag] = Resource(
    path=PROJECT + "/tags",
    key="tags",
    item="tag_id",
    owner=in_project,
    listing=list_tags,
    read=lambda ctx, project, name: ctx.service.get_tag(project, name),
    create=lambda ctx, project, body: ctx.service.create_tag(
        project, name=body.get("name"), color=body.get("color"), description=body.get("description")
    ),
    update=lambda ctx, project, name, body: ctx.service.update_tag(project, name, renamed(body, TAG_FIELDS)),
    delete=lambda ctx, project, name: ctx.service.delete_tag(project, name),
    shape=tag_view,
)

# In this order: routes are tried one by one, and no path of one kind matches another's.
resource_routes(router, PHASES)
resource_routes(router, FRINGES)
resource_routes(router, GLOBALS)
resource_routes(router, TAGS)
