"""Legacy bank and card transactions: ``listTransactions`` (every declared filter and expand), ``getTransaction``,
``updateTransaction`` (coding: project, budget line, contact), ``uploadTransactionAttachment`` and
``parseTransactionAttachments``.

The emulator reads no document: a parse answers each attachment with ``documentType`` ``other`` and no field
extracted (``rawText`` null when asked for), as the v1 side leaves its extraction pending.
"""

from __future__ import annotations

from fastapi import APIRouter
from starlette.responses import Response

from bridge.emulator.core import validate
from bridge.emulator.core.actuals import parse_date
from bridge.emulator.core.bank_store import BankQuery
from bridge.emulator.core.errors import InvalidInput
from bridge.emulator.legacy.actuals_routes import line_id
from bridge.emulator.legacy.file_routes import attach_upload, presence
from bridge.emulator.legacy.file_shapes import file_json
from bridge.emulator.legacy.routing import Ctx, LegacyRoute, ok
from bridge.emulator.legacy.transaction_shapes import transaction_json

router = APIRouter(route_class=LegacyRoute)
ONE = "/transactions/{transaction_id}"


def _query(ctx: Ctx) -> BankQuery:
    start, end = ctx.param("startDate"), ctx.param("endDate")

    def several(name: str) -> frozenset[str]:
        return frozenset(ctx.multi(name))

    return BankQuery(
        types=several("type"),
        statuses=several("status"),
        sub_statuses=several("subStatus"),
        project_refs=several("projectId"),
        source_types=several("sourceType"),
        source_names=several("sourceName"),
        source_last4s=several("sourceLast4"),
        description=ctx.param("description") or None,
        merchant=ctx.param("merchant") or None,
        contact_title=ctx.param("contactTitle") or None,
        has_account=presence(ctx, "hasAccount"),
        is_actualized=presence(ctx, "isActualized"),
        has_attachments=presence(ctx, "hasAttachments"),
        has_contact=presence(ctx, "hasContact"),
        start=parse_date("startDate", start) if start else None,
        end=parse_date("endDate", end) if end else None,
    )


@router.get("/transactions")
async def list_transactions(ctx: Ctx) -> Response:
    found = ctx.service.list_bank_transactions(ctx.workspace, _query(ctx))
    view = ctx.view()
    return ok({"transactions": [transaction_json(view, txn) for txn in found]})


@router.get(ONE)
async def get_transaction(ctx: Ctx, transaction_id: str) -> Response:
    return ok(transaction_json(ctx.view(), ctx.service.get_bank_transaction(ctx.workspace, transaction_id)))


@router.put(ONE)
async def update_transaction(ctx: Ctx, transaction_id: str) -> Response:
    body = await ctx.body()
    current = ctx.service.get_bank_transaction(ctx.workspace, transaction_id)
    project = ctx.service.coding_project(ctx.workspace, body.get("projectId", current.project_id))
    changes: dict[str, object] = {}
    if "contactId" in body:
        changes["contact_id"] = body["contactId"]
    if "accountId" in body:
        ref = body["accountId"]
        changes["line_id"] = line_id(ctx, project, ref, "accountId") if project is not None else ref
    coded = ctx.service.code_bank_transaction(ctx.workspace, transaction_id, project, changes)
    return ok(transaction_json(ctx.view(body), coded))


@router.post(ONE + "/attachment")
async def upload_transaction_attachment(ctx: Ctx, transaction_id: str) -> Response:
    transaction = ctx.service.get_bank_transaction(ctx.workspace, transaction_id)
    return await attach_upload(ctx, "transaction", transaction.id)


@router.post(ONE + "/attachments/parse")
async def parse_transaction_attachments(ctx: Ctx, transaction_id: str) -> Response:
    transaction = ctx.service.get_bank_transaction(ctx.workspace, transaction_id)
    if not await ctx.request.body():
        raise InvalidInput("body", "is required; send a JSON object (it may be empty: {})")
    body = await ctx.body()
    wanted = body.get("attachmentIds")
    raw = validate.flag("includeRawText", body.get("includeRawText", False))
    validate.flag("forceReparse", body.get("forceReparse", False))
    files = ctx.workspace.files.files_of("transaction", transaction.id)
    if wanted is not None:
        ids = validate.string_list("attachmentIds", wanted)
        unknown = sorted(set(ids) - {f.id for f in files})
        if unknown:
            raise InvalidInput("attachmentIds", f"{', '.join(unknown)} not attached to transaction {transaction.id!r}")
        files = [f for f in files if f.id in ids]
    unread = {"document": {"documentType": "other"}} | ({"rawText": None} if raw else {})
    return ok({"attachments": [file_json(f) | unread for f in files]})
