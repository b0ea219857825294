"""Legacy actuals routes: list with the date window and filters (``{actuals, totalAmount}``), create, create
with a chosen id, read, update (including writing a split), delete and the batch with ``replace``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime, timedelta

from fastapi import APIRouter
from starlette.responses import Response

from bridge.emulator.core.actuals import parse_date
from bridge.emulator.core.errors import InvalidInput
from bridge.emulator.core.model import Actual, Project
from bridge.emulator.core.totals import sum_amounts
from bridge.emulator.legacy.errors import TooLarge
from bridge.emulator.legacy.file_routes import presence
from bridge.emulator.legacy.routing import Ctx, LegacyRoute, no_content, ok, renamed
from bridge.emulator.wire.formats import DATE

router = APIRouter(route_class=LegacyRoute)

BASE = "/projects/{project_id}/actuals"
BATCH_LIMIT = 5000
ACTUAL_FIELDS = {
    "description": "description",
    "type": "type",
    "contactId": "contact_id",
    "date": "date",
    "amount": "amount",
    "status": "status",
    "notes": "notes",
    "number": "number",
    "tags": "tags",
    "payId": "pay_id",
    "ref": "ref",
}
# The published UnitType of a split part's ``unit`` (AddSubActualInput).
UNIT_TYPES = (
    "Allow", "Day", "HalfDay", "Each", "Episodes", "Fare", "Flat", "Foot", "Hour", "Minute", "Month", "Night",
    "Percent", "Person", "SQFT", "Unit", "Week",
)  # fmt: skip


def line_id(ctx: Ctx, project: Project, ref: object, label: str) -> str | None:
    """An actual's ``accountId``: a line id, or (user mode) an account code naming the first such line."""
    if ref is None:
        return None
    text = str(ref)
    if text in project.nodes:
        return text
    coded = [n for n in ctx.service.walk(project) if n.account_code == text]
    if not coded:
        raise InvalidInput(label, f"no budget line has id or account code {text!r}")
    return next((n.id for n in coded if n.type == "line"), coded[0].id)


def actual_fields(ctx: Ctx, project: Project, body: Mapping[str, object]) -> dict[str, object]:
    """A legacy actual body (create, or update with ``expanded`` + ``subActuals``) as store fields."""
    fields = renamed(body, ACTUAL_FIELDS)
    if "accountId" in body:
        fields["line_id"] = line_id(ctx, project, body["accountId"], "accountId")
    parts = body.get("subActuals")
    if parts is not None:
        if not isinstance(parts, list):
            raise InvalidInput("subActuals", "must be an array")
        fields["subactuals"] = [_part(ctx, project, i, p) for i, p in enumerate(parts)]
        fields["line_id"] = None
        fields["mode"] = "split"
    elif body.get("split") is True or body.get("expanded") is True:
        fields["mode"] = "split"
    return fields


def _part(ctx: Ctx, project: Project, index: int, part: object) -> dict[str, object]:
    if not isinstance(part, Mapping):
        raise InvalidInput(f"subActuals[{index}]", "must be an object")
    ref = part.get("lineItemId", part.get("accountId"))
    unit = part.get("unit")
    if unit is not None and unit not in UNIT_TYPES:
        raise InvalidInput(f"subActuals[{index}].unit", f"must be one of {', '.join(UNIT_TYPES)}")
    return {
        "amount": part.get("amount"),
        "description": part.get("description"),
        "notes": part.get("notes"),
        "line_id": line_id(ctx, project, ref, f"subActuals[{index}].accountId"),
        # AddSubActualInput's ``number`` ("Line reference number") is what the read calls ``lineId``.
        "line_number": part.get("number"),
        "quantity": part.get("quantity"),
        "unit": unit,
        "rate": part.get("rate"),
    }


def window(ctx: Ctx) -> tuple[datetime | None, datetime | None]:
    """The published ``startDate``/``endDate``: date-times or bare dates (legacy_contract refused anything
    else), inclusive instants (A42); a bare date starts at its midnight UTC and ends at its last instant."""
    start, end = ctx.param("startDate"), ctx.param("endDate")
    last = parse_date("endDate", end) if end else None
    if end and last is not None and DATE.match(end):  # a bare end date takes in that whole day
        last += timedelta(days=1, microseconds=-1)
    return (parse_date("startDate", start) if start else None, last)


def _filter(ctx: Ctx, account: str | None) -> Callable[[Actual], bool]:
    """The request's coding filters, read once (the window is the store's: it reads only the actuals in it)."""
    assigned = ctx.flag("hasAssignedAccount") if ctx.param("hasAssignedAccount") is not None else None
    attached = presence(ctx, "hasAttachments")
    linked = presence(ctx, "hasLinkedTransaction")
    # A-guess: the source ids an actual has are the bank transaction it was made from.
    sources = frozenset(ctx.multi("sourceIds"))
    shelf, bank = ctx.workspace.files, ctx.workspace.bank

    def keep(actual: Actual) -> bool:
        source = bank.source_of(actual.id)
        if linked is not None and linked != (source is not None):
            return False
        if sources and source not in sources:
            return False
        if attached is not None and attached != bool(shelf.files_of("actual", actual.id)):
            return False
        if account is None and assigned is None:  # a window read: every actual in it, whatever its coding
            return True
        lines = {actual.line_id, *(p.line_id for p in actual.subactuals)} - {None}
        if account is not None and account not in lines:
            return False
        return assigned is None or assigned == bool(lines)

    return keep


@router.get(BASE)
async def list_actuals(ctx: Ctx, project_id: str) -> Response:
    project = ctx.project(project_id)
    account_ref = ctx.param("accountId")
    account = line_id(ctx, project, account_ref, "accountId") if account_ref else None
    start, end = window(ctx)
    keep = _filter(ctx, account)
    actuals = [a for a in ctx.service.list_actuals(project, start=start, end=end) if keep(a)]
    view = ctx.view()
    return ok({"actuals": [view.actual(project, a) for a in actuals], "totalAmount": float(sum_amounts(actuals))})


@router.post(BASE)
async def create_actual(ctx: Ctx, project_id: str) -> Response:
    project = ctx.project(project_id)
    body = await ctx.body()
    actual = ctx.service.create_actual(ctx.workspace, project, actual_fields(ctx, project, body))
    return ok(ctx.view(body).actual(project, actual), 201)


@router.post(BASE + "/batch")
async def batch_actuals(ctx: Ctx, project_id: str) -> Response:
    project = ctx.project(project_id)
    body = await ctx.body()
    items = body.get("actuals")
    if not isinstance(items, list):
        raise InvalidInput("actuals", "must be an array of actuals")
    if len(items) > BATCH_LIMIT:
        raise TooLarge(f"a batch holds at most {BATCH_LIMIT} actuals; got {len(items)}; split it")
    replace = body.get("replace", False)
    if not isinstance(replace, bool):
        raise InvalidInput("replace", "must be true or false")
    converted: list[Mapping[str, object]] = []
    unreadable = 0
    for item in items:
        try:
            if not isinstance(item, Mapping):
                raise InvalidInput("actuals[]", "must be an object")
            converted.append(actual_fields(ctx, project, item) | ({"id": item["id"]} if "id" in item else {}))
        except InvalidInput:
            unreadable += 1
    summary = ctx.service.batch_actuals(ctx.workspace, project, converted, replace=replace)
    return ok(
        {
            "summary": {
                "inserted": summary.inserted,
                "deleted": summary.deleted,
                "errors": summary.errors + unreadable,
                "processed": summary.processed + unreadable,
                "received": len(items),
            }
        }
    )


@router.post(BASE + "/{actual_id}")
async def create_actual_with_id(ctx: Ctx, project_id: str, actual_id: str) -> Response:
    project = ctx.project(project_id)
    body = await ctx.body()
    actual = ctx.service.create_actual(ctx.workspace, project, actual_fields(ctx, project, body), actual_id=actual_id)
    return ok(ctx.view(body).actual(project, actual), 201)


@router.get(BASE + "/{actual_id}")
async def get_actual(ctx: Ctx, project_id: str, actual_id: str) -> Response:
    project = ctx.project(project_id)
    return ok(ctx.view().actual(project, ctx.service.get_actual(project, actual_id)))


@router.put(BASE + "/{actual_id}")
async def update_actual(ctx: Ctx, project_id: str, actual_id: str) -> Response:
    project = ctx.project(project_id)
    body = await ctx.body()
    actual = ctx.service.update_actual(ctx.workspace, project, actual_id, actual_fields(ctx, project, body))
    return ok(ctx.view(body).actual(project, actual))


@router.delete(BASE + "/{actual_id}")
async def delete_actual(ctx: Ctx, project_id: str, actual_id: str) -> Response:
    ctx.service.delete_actual(ctx.project(project_id), actual_id)
    return no_content()
