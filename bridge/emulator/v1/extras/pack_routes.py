"""v1 incentive packs and project incentives: routes the bridge never calls (A37).

Incentive packs are the service's read-only catalogue, enabled per workspace, whose programs a project adds as
incentives. What they hold lives in ``v1.extras.packs``. Rate packs, which the bridge calls, are
``v1.rate_pack_routes``.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from bridge.emulator.v1.auth import Grant
from bridge.emulator.v1.context import context_of
from bridge.emulator.v1.errors import NotFoundError
from bridge.emulator.v1.extras.packs import CATALOGUE, IncentiveProgram, PackLibrary, ProjectIncentive
from bridge.emulator.v1.routing import (
    Json,
    V1Router,
    can,
    created,
    domain_errors,
    json_body,
    ok,
    page_response,
    project_of,
)

# Mounted before the generic /library/{kind} routes, whose {kind} would match these paths too.
router = V1Router(prefix="/library")
incentives_router = V1Router(prefix="/projects/{project_id}/library/incentives")


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
