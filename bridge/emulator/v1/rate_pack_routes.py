"""v1 rate packs the bridge calls to carry the legacy workspace rates (A.5): ``library_listRatePacks``,
``createRatePack``, ``getRatePack``, ``updateRatePack``, ``deleteRatePack``, ``enableRatePack``,
``disableRatePack``, ``listRatePackItems``, ``createRatePackItem``, ``updateRatePackItem``,
``deleteRatePackItem``.

Every one of them answers 402 ``feature_not_available`` when the workspace's plan has no rate packs
(``core.rates.PLANS``; the control API switches plans). Creates need an Idempotency-Key. Only the workspace's
own packs are held (the emulator publishes no public catalogue), so every pack here is private and owned.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from bridge.emulator.core.ids import slugify, unique_alias
from bridge.emulator.core.rates import has_feature
from bridge.emulator.v1.auth import Grant
from bridge.emulator.v1.context import context_of
from bridge.emulator.v1.errors import FeatureNotAvailableError, NotFoundError
from bridge.emulator.v1.expand import expand_keys
from bridge.emulator.v1.rate_packs import (
    RatePack,
    RatePackCreate,
    RatePackItem,
    RatePackItemCreate,
    RatePackItemUpdate,
    RatePackUpdate,
)
from bridge.emulator.v1.routing import (
    Json,
    V1Router,
    can,
    created,
    flag,
    idempotent,
    ok,
    page_response,
    parsed_body,
    workspace_of,
)
from bridge.emulator.wire.formats import wire_moment

# Mounted before the generic /library/{kind} routes, whose {kind} would match these paths too.
router = V1Router(prefix="/library/rate-packs")
PACK_EXPAND = frozenset({"items"})
ITEM_DETAILS = (
    "description",
    "quantity",
    "multiplier",
    "group",
    "agreement",
    "local",
    "effectiveDate",
    "labels",
    "displayTags",
)


def _packs(request: Request, grant: Grant) -> dict[str, RatePack]:
    """The workspace's packs, after the plan check every rate-pack operation makes first."""
    if not has_feature(workspace_of(request, grant), "ratePacks"):
        raise FeatureNotAvailableError("Rate packs are not available on this workspace's plan; upgrade the plan.")
    return context_of(request).packs.packs_of(grant.workspace)


def _pack(request: Request, grant: Grant, pack_id: str) -> RatePack:
    pack = _packs(request, grant).get(pack_id)
    if pack is None:
        raise NotFoundError(f"Rate pack {pack_id!r} was not found.")
    return pack


def _item(pack: RatePack, item_id: str) -> RatePackItem:
    item = pack.items.get(item_id)
    if item is None:
        raise NotFoundError(f"Rate pack item {item_id!r} was not found in pack {pack.id!r}.")
    return item


def item_view(item: RatePackItem) -> Json:
    money = {"amount": item.rate_minor, "currency": item.currency}
    return {"id": item.id, "title": item.title, "rate": money, "unit": item.unit, **item.details}


def pack_view(pack: RatePack, expand: set[str] | frozenset[str] = frozenset()) -> Json:
    body: Json = {
        "id": pack.id,
        "slug": pack.slug,
        "name": pack.name,
        "description": pack.description,
        "category": pack.category,
        "tags": list(pack.tags),
        "visibility": "private",
        "isOwned": True,
        "deprecated": False,
        "enabled": pack.enabled,
        "enabledAt": None if pack.enabled_at is None else wire_moment(pack.enabled_at),
        "latestVersion": {"itemCount": len(pack.items)},
    }
    if "items" in expand:
        body["items"] = [item_view(item) for item in pack.items.values()]
    return body


@router.get("")
async def list_rate_packs(request: Request, grant: Grant) -> Response:
    packs = _packs(request, grant)
    expand = expand_keys(request, PACK_EXPAND)
    query = request.query_params
    needle = (query.get("q") or "").casefold()
    category = query.get("category")
    # Owned packs are never deprecated: deprecated=true finds none.
    deprecated = flag(request, "deprecated") if query.get("deprecated") is not None else None
    found = [
        p
        for p in packs.values()
        if needle in " ".join([p.name, *p.tags]).casefold()
        and (category is None or p.category == category)
        and deprecated is not True
    ]
    filters = {"q": query.get("q"), "category": category, "deprecated": query.get("deprecated")}
    return page_response(request, found, lambda p: pack_view(p, expand), filters=filters)


@router.post("", status_code=201)
async def create_rate_pack(request: Request, grant: Grant) -> Response:
    packs = _packs(request, grant)
    can(grant, "create", "RatePack")
    body = await parsed_body(request, RatePackCreate)
    context = context_of(request)

    async def produce() -> Response:
        name = str(body["name"])
        now = context.service.clock()
        pack = RatePack(
            id=context.service.ids.new("rpk"),
            slug=unique_alias(slugify(name), {p.slug for p in packs.values()}),
            name=name,
            created_at=now,
            description=body.get("description"),  # type: ignore[arg-type]  # checked against RatePackCreate
            category=str(body.get("category", "custom")),
            tags=list(body.get("tags", [])),  # type: ignore[call-overload]  # checked against RatePackCreate
            enabled_at=now,
        )
        packs[pack.id] = pack
        context.webhooks.emit(grant.workspace, "pack.installed", "ratePack", pack.id)
        return created(pack_view(pack))

    return await idempotent(request, grant, produce)


@router.get("/{pack_id}")
async def get_rate_pack(request: Request, grant: Grant, pack_id: str) -> Response:
    pack = _pack(request, grant, pack_id)
    return ok(pack_view(pack, expand_keys(request, PACK_EXPAND)))


@router.patch("/{pack_id}")
async def update_rate_pack(request: Request, grant: Grant, pack_id: str) -> Response:
    pack = _pack(request, grant, pack_id)
    can(grant, "update", "RatePack")
    body = await parsed_body(request, RatePackUpdate)
    for wire, value in body.items():
        setattr(pack, wire, list(value) if wire == "tags" else value)  # type: ignore[call-overload]  # checked body
    context_of(request).webhooks.emit(grant.workspace, "budget.changed", "ratePack", pack.id)
    return ok(pack_view(pack))


@router.delete("/{pack_id}", status_code=204)
async def delete_rate_pack(request: Request, grant: Grant, pack_id: str) -> Response:
    pack = _pack(request, grant, pack_id)
    can(grant, "delete", "RatePack")
    del _packs(request, grant)[pack.id]
    return Response(status_code=204)


@router.post("/{pack_id}/enablement")
async def enable_rate_pack(request: Request, grant: Grant, pack_id: str) -> Response:
    pack = _pack(request, grant, pack_id)
    can(grant, "update", "RatePack")
    context = context_of(request)
    if not pack.enabled or pack.enabled_at is None:
        pack.enabled, pack.enabled_at = True, context.service.clock()
        context.webhooks.emit(grant.workspace, "pack.installed", "ratePack", pack.id)
    assert pack.enabled_at is not None  # set just above when it was not
    return ok(
        {"id": f"wrp_{pack.id.partition('_')[2]}", "ratePackId": pack.id, "enabledAt": wire_moment(pack.enabled_at)}
    )


@router.delete("/{pack_id}/enablement", status_code=204)
async def disable_rate_pack(request: Request, grant: Grant, pack_id: str) -> Response:
    pack = _pack(request, grant, pack_id)
    can(grant, "update", "RatePack")
    if pack.enabled:
        pack.enabled, pack.enabled_at = False, None
        context_of(request).webhooks.emit(grant.workspace, "pack.uninstalled", "ratePack", pack.id)
    return Response(status_code=204)


@router.get("/{pack_id}/items")
async def list_rate_items(request: Request, grant: Grant, pack_id: str) -> Response:
    pack = _pack(request, grant, pack_id)
    query = request.query_params
    needle = (query.get("q") or "").casefold()
    exact = {name: query.get(name) for name in ("group", "agreement", "local")}
    unit = query.get("unit")
    found = [
        i
        for i in pack.items.values()
        if needle in i.title.casefold()
        and (unit is None or i.unit == unit)
        and all(want is None or i.details.get(name) == want for name, want in exact.items())
    ]
    return page_response(request, found, item_view, filters={"q": query.get("q"), "unit": unit, **exact})


@router.post("/{pack_id}/items", status_code=201)
async def create_rate_item(request: Request, grant: Grant, pack_id: str) -> Response:
    pack = _pack(request, grant, pack_id)
    can(grant, "create", "RatePackItem")
    body = await parsed_body(request, RatePackItemCreate)
    context = context_of(request)

    async def produce() -> Response:
        rate = body["rate"]
        assert isinstance(rate, dict)  # checked against RatePackItemCreate
        item = RatePackItem(
            id=context.service.ids.new("rpi"),
            title=str(body["title"]),
            rate_minor=rate["amount"],
            currency=rate["currency"],
            unit=str(body["unit"]),
            details={name: body[name] for name in ITEM_DETAILS if name in body},
        )
        pack.items[item.id] = item
        context.webhooks.emit(grant.workspace, "budget.changed", "ratePack", pack.id)
        return created(item_view(item))

    return await idempotent(request, grant, produce)


@router.patch("/{pack_id}/items/{item_id}")
async def update_rate_item(request: Request, grant: Grant, pack_id: str, item_id: str) -> Response:
    pack = _pack(request, grant, pack_id)
    item = _item(pack, item_id)
    can(grant, "update", "RatePackItem")
    body = await parsed_body(request, RatePackItemUpdate)
    for name, value in body.items():
        if name == "rate":
            assert isinstance(value, dict)  # checked against RatePackItemUpdate
            item.rate_minor, item.currency = value["amount"], value["currency"]
        elif name in ("title", "unit"):
            setattr(item, name, value)
        elif value is None:
            item.details.pop(name, None)
        else:
            item.details[name] = value
    context_of(request).webhooks.emit(grant.workspace, "budget.changed", "ratePack", pack.id)
    return ok(item_view(item))


@router.delete("/{pack_id}/items/{item_id}", status_code=204)
async def delete_rate_item(request: Request, grant: Grant, pack_id: str, item_id: str) -> Response:
    pack = _pack(request, grant, pack_id)
    can(grant, "delete", "RatePackItem")
    del pack.items[_item(pack, item_id).id]
    context_of(request).webhooks.emit(grant.workspace, "budget.changed", "ratePack", pack.id)
    return Response(status_code=204)
