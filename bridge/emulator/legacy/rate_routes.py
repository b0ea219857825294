"""Legacy workspace rates: ``GET/POST /rates``, ``PUT/DELETE /rates/{rateId}``.

The list pages by ``limit`` (1 to 1000, default 100) and ``offset`` (from 0), searches identifier, description
and note, and with ``expands[]=contact`` carries a rate's contact. There is no single-rate read.
"""

from __future__ import annotations

from fastapi import APIRouter
from starlette.responses import Response

from bridge.emulator.core.errors import InvalidInput
from bridge.emulator.core.records import Rate
from bridge.emulator.legacy.routing import Ctx, LegacyRoute, no_content, ok, renamed
from bridge.emulator.legacy.shapes import Json, LegacyView, num

router = APIRouter(route_class=LegacyRoute)
RATE_FIELDS = {
    "identifier": "identifier",
    "emoji": "emoji",
    "description": "description",
    "note": "note",
    "quantity": "quantity",
    "rate": "rate",
    "unit": "unit",
}


def _bounded(ctx: Ctx, name: str, default: int, low: int, high: int | None) -> int:
    raw = ctx.param(name)
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise InvalidInput(name, f"{raw!r} is not an integer") from None
    if value < low or (high is not None and value > high):
        bounds = f"from {low} to {high}" if high is not None else f"{low} or more"
        raise InvalidInput(name, f"{value} is out of range; send an integer {bounds}")
    return value


def shape_rate(view: LegacyView, rate: Rate) -> Json:
    shaped: Json = {
        "id": rate.id,
        "identifier": rate.identifier,
        "emoji": rate.emoji,
        "description": rate.description,
        "note": rate.note,
        "quantity": num(rate.quantity),
        "rate": num(rate.rate),
    }
    if rate.unit is not None:  # the published unit enum holds no null
        shaped["unit"] = rate.unit
    if "contact" in view.expands and rate.contact_id in view.workspace.contacts:
        shaped["contact"] = view.contact_of(rate.contact_id or "")
    return shaped


@router.get("/rates")
async def list_rates(ctx: Ctx) -> Response:
    limit = _bounded(ctx, "limit", 100, 1, 1000)
    offset = _bounded(ctx, "offset", 0, 0, None)
    rates = ctx.service.list_rates(ctx.workspace, search=ctx.param("search"))
    view = ctx.view()
    return ok({"rates": [shape_rate(view, r) for r in rates[offset : offset + limit]]})


@router.post("/rates")
async def create_rate(ctx: Ctx) -> Response:
    body = await ctx.body()
    rate = ctx.service.create_rate(ctx.workspace, renamed(body, RATE_FIELDS))
    return ok(shape_rate(ctx.view(body), rate), 201)


@router.put("/rates/{rate_id}")
async def update_rate(ctx: Ctx, rate_id: str) -> Response:
    body = await ctx.body()
    rate = ctx.service.update_rate(ctx.workspace, rate_id, renamed(body, RATE_FIELDS))
    return ok(shape_rate(ctx.view(body), rate))


@router.delete("/rates/{rate_id}")
async def delete_rate(ctx: Ctx, rate_id: str) -> Response:
    ctx.service.delete_rate(ctx.workspace, rate_id)
    return no_content()
