"""v1 rate packs, incentive packs and project incentives: routes the bridge never calls (A37).

Rate packs are the workspace's own; incentive packs are the service's read-only catalogue, enabled per
workspace, whose programs a project adds as incentives. What they hold lives in ``v1.extras.packs``.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from bridge.emulator.core import validate
from bridge.emulator.v1.auth import Grant
from bridge.emulator.v1.context import V1Context, context_of
from bridge.emulator.v1.errors import NotFoundError, ValidationError
from bridge.emulator.v1.extras.packs import (
    CATALOGUE,
    IncentiveProgram,
    PackLibrary,
    ProjectIncentive,
    RatePack,
    RatePackItem,
)
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
    project_of,
)

# Mounted before the generic /library/{kind} routes, whose {kind} would match these paths too.
router = V1Router(prefix="/library")
incentives_router = V1Router(prefix="/projects/{project_id}/library/incentives")


def _pack_view(pack: RatePack) -> Json:
    return {"id": pack.id, "name": pack.name, "description": pack.description, "isEnabled": pack.enabled}


def _rate_item_view(item: RatePackItem) -> Json:
    money = {"amount": item.rate_minor, "currency": item.currency}
    return {"id": item.id, "title": item.title, "rate": money, "unit": item.unit, "quantity": item.quantity}


@router.get("/rate-packs")
async def list_rate_packs(request: Request, grant: Grant) -> Response:
    context = context_of(request)
    packs = list(context.packs.packs_of(grant.workspace).values())
    return page_response(request, packs, _pack_view, filters={})


@router.post("/rate-packs", status_code=201)
async def create_rate_pack(request: Request, grant: Grant) -> Response:
    can(grant, "create", "RatePack")
    body = await json_body(request)
    context = context_of(request)

    async def produce() -> Response:
        with domain_errors():
            name = validate.required_text("name", body.get("name"))
            description = validate.text("description", body.get("description"), max_len=500)
        pack = RatePack(context.service.ids.new("rpk"), name, description)
        context.packs.packs_of(grant.workspace)[pack.id] = pack
        return created(_pack_view(pack))

    return await idempotent(request, grant, produce)


@router.get("/rate-packs/{pack_id}")
async def get_rate_pack(request: Request, grant: Grant, pack_id: str) -> Response:
    with domain_errors():
        return ok(_pack_view(context_of(request).packs.rate_pack(grant.workspace, pack_id)))


@router.patch("/rate-packs/{pack_id}")
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


@router.delete("/rate-packs/{pack_id}", status_code=204)
async def delete_rate_pack(request: Request, grant: Grant, pack_id: str) -> Response:
    can(grant, "delete", "RatePack")
    context = context_of(request)
    with domain_errors():
        context.packs.rate_pack(grant.workspace, pack_id)
    del context.packs.packs_of(grant.workspace)[pack_id]
    return Response(status_code=204)


@router.post("/rate-packs/{pack_id}/enablement")
@router.delete("/rate-packs/{pack_id}/enablement")
async def rate_pack_enablement(request: Request, grant: Grant, pack_id: str) -> Response:
    can(grant, "update", "RatePack")
    context = context_of(request)
    with domain_errors():
        pack = context.packs.rate_pack(grant.workspace, pack_id)
    pack.enabled = request.method == "POST"
    event = "pack.installed" if pack.enabled else "pack.uninstalled"
    context.webhooks.emit(grant.workspace, event, "ratePack", pack.id)
    return ok(_pack_view(pack))


@router.get("/rate-packs/{pack_id}/items")
async def list_rate_items(request: Request, grant: Grant, pack_id: str) -> Response:
    with domain_errors():
        pack = context_of(request).packs.rate_pack(grant.workspace, pack_id)
    return page_response(request, list(pack.items.values()), _rate_item_view, filters={})


@router.post("/rate-packs/{pack_id}/items", status_code=201)
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
        item = RatePackItem(context.service.ids.new("rpi"), title, rate["amount"], str(rate.get("currency")), unit)
        pack.items[item.id] = item
        context.webhooks.emit(grant.workspace, "budget.changed", "ratePack", pack.id)
        return created(_rate_item_view(item))

    return await idempotent(request, grant, produce)


def _rate_item(context: V1Context, grant: Grant, pack_id: str, item_id: str) -> tuple[RatePack, RatePackItem]:
    with domain_errors():
        pack = context.packs.rate_pack(grant.workspace, pack_id)
    item = pack.items.get(item_id)
    if item is None:
        raise NotFoundError(f"Rate pack item {item_id!r} was not found in pack {pack_id!r}.")
    return pack, item


@router.patch("/rate-packs/{pack_id}/items/{item_id}")
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


@router.delete("/rate-packs/{pack_id}/items/{item_id}", status_code=204)
async def delete_rate_item(request: Request, grant: Grant, pack_id: str, item_id: str) -> Response:
    can(grant, "delete", "RatePackItem")
    context = context_of(request)
    pack, _ = _rate_item(context, grant, pack_id, item_id)
    del pack.items[item_id]
    context.webhooks.emit(grant.workspace, "budget.changed", "ratePack", pack.id)
    return Response(status_code=204)


def _program_view(program: IncentiveProgram) -> Json:
    return {"id": program.id, "packId": program.pack_id, "name": program.name, "ratePercent": program.rate_percent}


@router.get("/incentive-packs")
async def list_incentive_packs(request: Request, grant: Grant) -> Response:
    enabled = context_of(request).packs.enabled_incentive_packs.get(grant.workspace, set())
    packs = list(CATALOGUE)
    return page_response(
        request, packs, lambda p: {"id": p.id, "name": p.name, "isEnabled": p.id in enabled}, filters={}
    )


@router.get("/incentive-packs/{pack_id}")
async def get_incentive_pack(request: Request, grant: Grant, pack_id: str) -> Response:
    enabled = context_of(request).packs.enabled_incentive_packs.get(grant.workspace, set())
    with domain_errors():
        pack = PackLibrary.incentive_pack(pack_id)
    return ok({"id": pack.id, "name": pack.name, "isEnabled": pack.id in enabled})


@router.get("/incentive-packs/{pack_id}/programs")
async def list_programs(request: Request, grant: Grant, pack_id: str) -> Response:
    with domain_errors():
        pack = PackLibrary.incentive_pack(pack_id)
    return page_response(request, list(pack.programs), _program_view, filters={})


@router.post("/incentive-packs/{pack_id}/enablement")
@router.delete("/incentive-packs/{pack_id}/enablement")
async def incentive_enablement(request: Request, grant: Grant, pack_id: str) -> Response:
    can(grant, "update", "IncentivePack")
    context = context_of(request)
    with domain_errors():
        pack = PackLibrary.incentive_pack(pack_id)
    enabled = context.packs.enabled_incentive_packs.setdefault(grant.workspace, set())
    if request.method == "POST":
        enabled.add(pack.id)
    else:
        enabled.discard(pack.id)
    return ok({"id": pack.id, "name": pack.name, "isEnabled": pack.id in enabled})


def _incentive_view(incentive: ProjectIncentive, expand: bool) -> Json:
    body: Json = {"id": incentive.id, "programId": incentive.program_id, "name": incentive.name}
    body["ratePercent"] = incentive.rate_percent
    if expand:
        body["source"] = _program_view(PackLibrary.program(incentive.program_id))
    return body


@incentives_router.get("")
async def list_incentives(request: Request, grant: Grant, project_id: str) -> Response:
    context = context_of(request)
    _, project = project_of(request, grant, project_id)
    expand = request.query_params.get("expand") == "source"
    held = list(context.packs.incentives.get(project.id, {}).values())
    return page_response(request, held, lambda i: _incentive_view(i, expand), filters={"expand": str(expand)})


@incentives_router.post("", status_code=201)
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


@incentives_router.delete("/{incentive_id}", status_code=204)
async def remove_incentive(request: Request, grant: Grant, project_id: str, incentive_id: str) -> Response:
    can(grant, "delete", "ProjectIncentive")
    context = context_of(request)
    _, project = project_of(request, grant, project_id)
    if context.packs.incentives.get(project.id, {}).pop(incentive_id, None) is None:
        raise NotFoundError(f"Incentive {incentive_id!r} was not found in this project.")
    return Response(status_code=204)
