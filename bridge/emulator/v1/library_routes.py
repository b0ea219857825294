"""v1 library routes: workspace items, project copies, rate packs, incentive packs and project incentives (A18)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from bridge.emulator.core import validate
from bridge.emulator.core import workspace_library as library
from bridge.emulator.core.errors import InvalidInput
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
    Unit,
)
from bridge.emulator.v1 import requests
from bridge.emulator.v1.auth import Grant
from bridge.emulator.v1.context import V1Context, context_of
from bridge.emulator.v1.errors import NotFoundError, UnprocessableError, ValidationError
from bridge.emulator.v1.extras.fringe_group_routes import group_view
from bridge.emulator.v1.routing import (
    Json,
    V1Router,
    can,
    created,
    domain_errors,
    idempotent,
    json_body,
    ok,
    page_response,
    parsed_body,
    project_of,
    workspace_of,
)
from bridge.emulator.v1.shapes import cell, timestamp

workspace_router = V1Router(prefix="/library")
packs_router = V1Router(prefix="/library")
project_router = V1Router(prefix="/projects/{project_id}/library")
RESOURCE = {
    "currencies": "Currency",
    "fringes": "Fringe",
    "fringe-groups": "FringeGroup",
    "globals": "Global",
    "tags": "Tag",
    "units": "Unit",
}


def item_view(item: object) -> Json:
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
    elif isinstance(item, Unit):
        body = {"id": item.id, "label": item.label, "pluralLabel": item.plural_label, "category": item.category}
        body |= {"hoursPerUnit": cell(item.hours_per_unit), "color": item.color, "description": item.description}
        body["isCustom"] = item.is_custom
    else:
        raise TypeError(f"no v1 view for {type(item).__name__}")
    if isinstance(item, ProjectCurrency | Fringe | Global):
        body["sourceId"] = item.source_id
        body["sourceType"] = "workspace" if item.source_id else None
    return body


def _kind(kind: str) -> str:
    if kind not in library.KINDS:
        raise NotFoundError(f"There is no library collection {kind!r}; use one of {', '.join(library.KINDS)}.")
    return kind


# -- rate packs and incentive packs (declared before the generic /library/{kind} routes) -------------------------


def _pack_view(pack: library.RatePack) -> Json:
    return {"id": pack.id, "name": pack.name, "description": pack.description, "isEnabled": pack.enabled}


def _rate_item_view(item: library.RatePackItem) -> Json:
    money = {"amount": item.rate_minor, "currency": item.currency}
    return {"id": item.id, "title": item.title, "rate": money, "unit": item.unit, "quantity": item.quantity}


@packs_router.get("/rate-packs")
async def list_rate_packs(request: Request, grant: Grant) -> Response:
    context = context_of(request)
    packs = list(context.packs.packs_of(grant.workspace).values())
    return page_response(request, packs, _pack_view, filters={})


@packs_router.post("/rate-packs", status_code=201)
async def create_rate_pack(request: Request, grant: Grant) -> Response:
    can(grant, "create", "RatePack")
    body = await json_body(request)
    context = context_of(request)

    async def produce() -> Response:
        with domain_errors():
            name = validate.required_text("name", body.get("name"))
            description = validate.text("description", body.get("description"), max_len=500)
        pack = library.RatePack(context.service.ids.new("rpk"), name, description)
        context.packs.packs_of(grant.workspace)[pack.id] = pack
        return created(_pack_view(pack))

    return await idempotent(request, grant, produce)


@packs_router.get("/rate-packs/{pack_id}")
async def get_rate_pack(request: Request, grant: Grant, pack_id: str) -> Response:
    with domain_errors():
        return ok(_pack_view(context_of(request).packs.rate_pack(grant.workspace, pack_id)))


@packs_router.patch("/rate-packs/{pack_id}")
async def update_rate_pack(request: Request, grant: Grant, pack_id: str) -> Response:
    can(grant, "update", "RatePack")
    body = await json_body(request)
    context = context_of(request)
    with domain_errors():
        pack = context.packs.rate_pack(grant.workspace, pack_id)
        if "name" in body:
            pack.name = validate.required_text("name", body["name"])
        if "description" in body:
            pack.description = validate.text("description", body["description"], max_len=500)
    context.webhooks.emit(grant.workspace, "budget.changed", "ratePack", pack.id)
    return ok(_pack_view(pack))


@packs_router.delete("/rate-packs/{pack_id}", status_code=204)
async def delete_rate_pack(request: Request, grant: Grant, pack_id: str) -> Response:
    can(grant, "delete", "RatePack")
    context = context_of(request)
    with domain_errors():
        context.packs.rate_pack(grant.workspace, pack_id)
    del context.packs.packs_of(grant.workspace)[pack_id]
    return Response(status_code=204)


@packs_router.post("/rate-packs/{pack_id}/enablement")
@packs_router.delete("/rate-packs/{pack_id}/enablement")
async def rate_pack_enablement(request: Request, grant: Grant, pack_id: str) -> Response:
    can(grant, "update", "RatePack")
    context = context_of(request)
    with domain_errors():
        pack = context.packs.rate_pack(grant.workspace, pack_id)
    pack.enabled = request.method == "POST"
    event = "pack.installed" if pack.enabled else "pack.uninstalled"
    context.webhooks.emit(grant.workspace, event, "ratePack", pack.id)
    return ok(_pack_view(pack))


@packs_router.get("/rate-packs/{pack_id}/items")
async def list_rate_items(request: Request, grant: Grant, pack_id: str) -> Response:
    with domain_errors():
        pack = context_of(request).packs.rate_pack(grant.workspace, pack_id)
    return page_response(request, list(pack.items.values()), _rate_item_view, filters={})


@packs_router.post("/rate-packs/{pack_id}/items", status_code=201)
async def create_rate_item(request: Request, grant: Grant, pack_id: str) -> Response:
    can(grant, "create", "RatePackItem")
    body = await json_body(request)
    context = context_of(request)
    with domain_errors():
        pack = context.packs.rate_pack(grant.workspace, pack_id)

    async def produce() -> Response:
        rate, title = body.get("rate"), body.get("title")
        if not isinstance(title, str) or not isinstance(rate, dict) or not isinstance(rate.get("amount"), int):
            raise ValidationError("A rate item needs title and rate {amount: integer minor units, currency}.")
        with domain_errors():
            unit = validate.text("unit", body.get("unit"), max_len=64)
        item = library.RatePackItem(
            context.service.ids.new("rpi"), title, rate["amount"], str(rate.get("currency")), unit
        )
        pack.items[item.id] = item
        context.webhooks.emit(grant.workspace, "budget.changed", "ratePack", pack.id)
        return created(_rate_item_view(item))

    return await idempotent(request, grant, produce)


def _rate_item(
    context: V1Context, grant: Grant, pack_id: str, item_id: str
) -> tuple[library.RatePack, library.RatePackItem]:
    with domain_errors():
        pack = context.packs.rate_pack(grant.workspace, pack_id)
    item = pack.items.get(item_id)
    if item is None:
        raise NotFoundError(f"Rate pack item {item_id!r} was not found in pack {pack_id!r}.")
    return pack, item


@packs_router.patch("/rate-packs/{pack_id}/items/{item_id}")
async def update_rate_item(request: Request, grant: Grant, pack_id: str, item_id: str) -> Response:
    can(grant, "update", "RatePackItem")
    body = await json_body(request)
    context = context_of(request)
    pack, item = _rate_item(context, grant, pack_id, item_id)
    if "title" in body:
        if not isinstance(body["title"], str) or not body["title"]:
            raise ValidationError("title must be a non-empty string.")
        item.title = body["title"]
    if "rate" in body:
        rate = body["rate"]
        if not isinstance(rate, dict) or not isinstance(rate.get("amount"), int):
            raise ValidationError("rate must be Money {amount: integer minor units, currency}.")
        item.rate_minor, item.currency = rate["amount"], str(rate.get("currency"))
    context.webhooks.emit(grant.workspace, "budget.changed", "ratePack", pack.id)
    return ok(_rate_item_view(item))


@packs_router.delete("/rate-packs/{pack_id}/items/{item_id}", status_code=204)
async def delete_rate_item(request: Request, grant: Grant, pack_id: str, item_id: str) -> Response:
    can(grant, "delete", "RatePackItem")
    context = context_of(request)
    pack, _ = _rate_item(context, grant, pack_id, item_id)
    del pack.items[item_id]
    context.webhooks.emit(grant.workspace, "budget.changed", "ratePack", pack.id)
    return Response(status_code=204)


def _program_view(program: library.IncentiveProgram) -> Json:
    return {"id": program.id, "packId": program.pack_id, "name": program.name, "ratePercent": program.rate_percent}


@packs_router.get("/incentive-packs")
async def list_incentive_packs(request: Request, grant: Grant) -> Response:
    enabled = context_of(request).packs.enabled_incentive_packs.get(grant.workspace, set())
    packs = list(library.CATALOGUE)
    return page_response(
        request, packs, lambda p: {"id": p.id, "name": p.name, "isEnabled": p.id in enabled}, filters={}
    )


@packs_router.get("/incentive-packs/{pack_id}")
async def get_incentive_pack(request: Request, grant: Grant, pack_id: str) -> Response:
    enabled = context_of(request).packs.enabled_incentive_packs.get(grant.workspace, set())
    with domain_errors():
        pack = library.PackLibrary.incentive_pack(pack_id)
    return ok({"id": pack.id, "name": pack.name, "isEnabled": pack.id in enabled})


@packs_router.get("/incentive-packs/{pack_id}/programs")
async def list_programs(request: Request, grant: Grant, pack_id: str) -> Response:
    with domain_errors():
        pack = library.PackLibrary.incentive_pack(pack_id)
    return page_response(request, list(pack.programs), _program_view, filters={})


@packs_router.post("/incentive-packs/{pack_id}/enablement")
@packs_router.delete("/incentive-packs/{pack_id}/enablement")
async def incentive_enablement(request: Request, grant: Grant, pack_id: str) -> Response:
    can(grant, "update", "IncentivePack")
    context = context_of(request)
    with domain_errors():
        pack = library.PackLibrary.incentive_pack(pack_id)
    enabled = context.packs.enabled_incentive_packs.setdefault(grant.workspace, set())
    if request.method == "POST":
        enabled.add(pack.id)
    else:
        enabled.discard(pack.id)
    return ok({"id": pack.id, "name": pack.name, "isEnabled": pack.id in enabled})


# -- workspace items ------------------------------------------------------------------------------------------


@workspace_router.get("/{kind}")
async def list_items(request: Request, grant: Grant, kind: str) -> Response:
    workspace = workspace_of(request, grant)
    items = [i for i in library.collection(workspace, _kind(kind)).values() if not i.deleted]
    if kind == "units":  # the published UnitCollection is every unit at once: {data} and nothing else
        return ok({"data": [item_view(i) for i in items]})
    return page_response(request, items, item_view, filters={})


@workspace_router.post("/{kind}", status_code=201)
async def create_item(request: Request, grant: Grant, kind: str) -> Response:
    can(grant, "create", RESOURCE[_kind(kind)])
    body = await parsed_body(request, requests.LIBRARY_CREATE[kind])
    context = context_of(request)
    workspace = workspace_of(request, grant)

    async def produce() -> Response:
        with domain_errors():
            item = library.create_item(context.service, workspace, kind, body)
        return created(item_view(item))

    return await idempotent(request, grant, produce)


@workspace_router.get("/{kind}/{item_id}")
async def get_item(request: Request, grant: Grant, kind: str, item_id: str) -> Response:
    workspace = workspace_of(request, grant)
    with domain_errors():
        return ok(item_view(library.live_item(workspace, _kind(kind), item_id)))


@workspace_router.patch("/{kind}/{item_id}")
async def update_item(request: Request, grant: Grant, kind: str, item_id: str) -> Response:
    can(grant, "update", RESOURCE[_kind(kind)])
    body = await parsed_body(request, requests.LIBRARY_UPDATE[kind])
    workspace = workspace_of(request, grant)
    with domain_errors():
        item = library.live_item(workspace, kind, item_id)
        library.apply(workspace, item, body, creating=False)
    return ok(item_view(item))


@workspace_router.delete("/{kind}/{item_id}", status_code=204)
async def delete_item(request: Request, grant: Grant, kind: str, item_id: str) -> Response:
    can(grant, "delete", RESOURCE[_kind(kind)])
    workspace = workspace_of(request, grant)
    with domain_errors():
        library.live_item(workspace, kind, item_id).deleted = True  # project copies stay (V-SPEC)
    return Response(status_code=204)


# -- project copies -------------------------------------------------------------------------------------------


def _copy_kind(kind: str) -> str:
    if kind not in library.COPY_KINDS:
        raise NotFoundError(f"Projects hold copies of {', '.join(library.COPY_KINDS)} and incentives, not {kind!r}.")
    return kind


def _incentive_view(incentive: library.ProjectIncentive, expand: bool) -> Json:
    body: Json = {"id": incentive.id, "programId": incentive.program_id, "name": incentive.name}
    body["ratePercent"] = incentive.rate_percent
    if expand:
        body["source"] = _program_view(library.PackLibrary.program(incentive.program_id))
    return body


@project_router.get("/tags")
async def project_tags(request: Request, grant: Grant, project_id: str) -> Response:
    _, project = project_of(request, grant, project_id)
    used = set(project.tags)
    tags = [t for t in workspace_of(request, grant).library.tags.values() if t.name in used and not t.deleted]
    return page_response(request, tags, item_view, filters={})


@project_router.get("/incentives")
async def list_incentives(request: Request, grant: Grant, project_id: str) -> Response:
    context = context_of(request)
    _, project = project_of(request, grant, project_id)
    expand = request.query_params.get("expand") == "source"
    held = list(context.packs.incentives.get(project.id, {}).values())
    return page_response(request, held, lambda i: _incentive_view(i, expand), filters={"expand": str(expand)})


@project_router.post("/incentives", status_code=201)
async def add_incentive(request: Request, grant: Grant, project_id: str) -> Response:
    can(grant, "create", "ProjectIncentive")
    body = await json_body(request)
    context = context_of(request)
    _, project = project_of(request, grant, project_id)
    with domain_errors(body_refs=True):
        incentive, new = context.packs.add_incentive(
            grant.workspace, project, body.get("programId"), context.service.ids.new("pin")
        )
    if new:
        context.webhooks.emit(grant.workspace, "incentive.added", "incentive", incentive.id, project.id)
    return ok(_incentive_view(incentive, False)) if not new else created(_incentive_view(incentive, False))


@project_router.delete("/incentives/{incentive_id}", status_code=204)
async def remove_incentive(request: Request, grant: Grant, project_id: str, incentive_id: str) -> Response:
    can(grant, "delete", "ProjectIncentive")
    context = context_of(request)
    _, project = project_of(request, grant, project_id)
    if context.packs.incentives.get(project.id, {}).pop(incentive_id, None) is None:
        raise NotFoundError(f"Incentive {incentive_id!r} was not found in this project.")
    return Response(status_code=204)


@project_router.get("/{kind}")
async def list_copies(request: Request, grant: Grant, project_id: str, kind: str) -> Response:
    _, project = project_of(request, grant, project_id)
    return page_response(
        request, list(library.project_copies(project, _copy_kind(kind)).values()), item_view, filters={}
    )


@project_router.post("/{kind}", status_code=201)
async def add_copy(request: Request, grant: Grant, project_id: str, kind: str) -> Response:
    """POST {sourceId}: 201 with a new copy, 200 with the existing one (its project edits kept)."""
    can(grant, "create", RESOURCE[_copy_kind(kind)])
    source = str((await parsed_body(request, requests.CopyAdd))["sourceId"])
    context = context_of(request)
    _, project = project_of(request, grant, project_id)
    with domain_errors():  # the operation lists no 422: an unknown sourceId is a 404 (A52)
        copy, new = library.add_copy(context.service, workspace_of(request, grant), project, kind, source)
    return created(item_view(copy)) if new else ok(item_view(copy))


def _copy(project: Project, kind: str, item_id: str) -> object:
    found = library.project_copies(project, _copy_kind(kind)).get(item_id)
    if found is None:
        raise NotFoundError(f"{RESOURCE[kind]} {item_id!r} was not found in this project.")
    return found


@project_router.get("/{kind}/{item_id}")
async def get_copy(request: Request, grant: Grant, project_id: str, kind: str, item_id: str) -> Response:
    _, project = project_of(request, grant, project_id)
    return ok(item_view(_copy(project, kind, item_id)))


COPY_PATCH = {
    "fringes": {
        "name": "code",
        "calculationType": "units",
        "rate": "rate",
        "cutoff": "cutoff",
        "description": "description",
    },
    "globals": {"formula": "formula", "description": "description", "unit": "unit"},
}


@project_router.patch("/{kind}/{item_id}")
async def update_copy(request: Request, grant: Grant, project_id: str, kind: str, item_id: str) -> Response:
    """Edit a project copy; the workspace item is unchanged (the copy is independent)."""
    can(grant, "update", RESOURCE[_copy_kind(kind)])
    body = await parsed_body(request, requests.LIBRARY_UPDATE[kind])
    context = context_of(request)
    _, project = project_of(request, grant, project_id)
    copy = _copy(project, kind, item_id)
    with domain_errors():
        if isinstance(copy, ProjectCurrency):
            if "rateToUSD" in body:
                copy.rate_to_usd = validate.required_number("rateToUSD", body["rateToUSD"])
            if "symbol" in body:
                copy.symbol = validate.text("symbol", body["symbol"], max_len=8)
            context.service.touch(project)
        else:
            allowed = COPY_PATCH[kind]
            unknown = sorted(set(body) - set(allowed))
            if unknown:  # a published field a project copy cannot change here: well formed, not applicable
                raise UnprocessableError(f"{unknown[0]} is not an editable field of a project {kind.rstrip('s')}.")
            changes = {allowed[k]: v for k, v in body.items()}
            if kind == "fringes":
                context.service.update_fringe(project, item_id, changes)
            else:
                context.service.update_global(project, item_id, changes)
    return ok(item_view(copy))


@project_router.delete("/{kind}/{item_id}", status_code=204)
async def remove_copy(request: Request, grant: Grant, project_id: str, kind: str, item_id: str) -> Response:
    can(grant, "delete", RESOURCE[_copy_kind(kind)])
    context = context_of(request)
    _, project = project_of(request, grant, project_id)
    _copy(project, kind, item_id)
    with domain_errors():
        if kind == "fringes":
            context.service.delete_fringe(project, item_id)
        elif kind == "globals":
            context.service.delete_global(project, item_id)
        else:
            if any(p.currency_id == item_id for p in project.phases.values()):
                raise InvalidInput("currencyId", "a phase uses this currency; change the phase's currency first")
            del project.currencies[item_id]
            context.service.touch(project)
    return Response(status_code=204)
