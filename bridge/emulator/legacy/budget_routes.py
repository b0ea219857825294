"""Legacy budget routes: the budget tree, its lines and the account list.

User-mode references (account codes or paths, phase aliases or names, fringe codes, global symbols) are
resolved to ids here, before the store is called (A28); ids are accepted in either mode.
"""

from __future__ import annotations

from collections.abc import Mapping

from fastapi import APIRouter
from starlette.responses import Response

from bridge.emulator.core.errors import InvalidInput, NotFound
from bridge.emulator.core.model import Node, Project
from bridge.emulator.legacy.routing import Ctx, LegacyRoute, no_content, ok
from bridge.emulator.legacy.shapes import LegacyView

router = APIRouter(route_class=LegacyRoute)

LINE_FIELDS = {
    "accountId": "account_code",
    "description": "description",
    "includeAccounts": "include_accounts",
    "color": "color",
    "alias": "alias",
    "tags": "tags",
    "contactId": "contact_id",
    "notes": "notes",
}
PHASE_DATA_FIELDS = {"quantity": "quantity", "rate": "rate", "multiplier": "multiplier", "unit": "unit"}


# -- reference resolution -------------------------------------------------------------------------------


def find_account(ctx: Ctx, project: Project, ref: str) -> Node | None:
    """``root`` (None), an account id, an account code or a slash path of codes."""
    if ref == "root":
        return None
    node = project.nodes.get(ref)
    if node is None and ref.startswith("/"):
        node = next((n for n in ctx.service.walk(project) if ctx.service.node_path(project, n) == ref), None)
    if node is None:
        return ctx.service.account_by_code(project, ref)
    if node.type != "account":
        raise InvalidInput("accountId", f"{ref!r} is a {node.type}, not an account")
    return node


def find_line(ctx: Ctx, project: Project, ref: str) -> Node:
    """A budget node by id, or (user mode) by its slash path."""
    node = project.nodes.get(ref)
    if node is None and ref.startswith("/"):
        node = next((n for n in ctx.service.walk(project) if ctx.service.node_path(project, n) == ref), None)
    if node is None:
        raise NotFound("budget line", ref)
    return node


def phase_data_in(ctx: Ctx, project: Project, raw: object) -> dict[str, dict[str, object]]:
    """Legacy ``phaseData`` keyed by phase key -> store fields keyed by phase id."""
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        raise InvalidInput("phaseData", "must be an object keyed by phase")
    converted: dict[str, dict[str, object]] = {}
    for key, data in raw.items():
        phase = ctx.service.get_phase(project, str(key))
        if not isinstance(data, Mapping):
            raise InvalidInput(f"phaseData.{key}", "must be an object")
        fields: dict[str, object] = {PHASE_DATA_FIELDS[k]: v for k, v in data.items() if k in PHASE_DATA_FIELDS}
        if "fringes" in data:
            refs = data["fringes"] or []
            if not isinstance(refs, list):
                raise InvalidInput(f"phaseData.{key}.fringes", "must be an array of fringe ids or codes")
            fields["fringe_ids"] = [ctx.service.get_fringe(project, str(r)).id for r in refs]
        if "type" in data:
            fields["markup_type"] = data["type"]
        if "amount" in data:
            fields["markup_amount"] = data["amount"]
        if "excludeFringes" in data:
            fields["exclude_fringes"] = data["excludeFringes"]
        date = data.get("date")
        if isinstance(date, Mapping):
            fields["start_date"], fields["end_date"] = date.get("startDate"), date.get("endDate")
        converted[phase.id] = fields
    return converted


def node_fields(ctx: Ctx, project: Project, raw: Mapping[str, object]) -> dict[str, object]:
    """A legacy line body as store fields."""
    fields: dict[str, object] = {LINE_FIELDS[k]: v for k, v in raw.items() if k in LINE_FIELDS}
    if "phaseData" in raw:
        fields["phase_data"] = phase_data_in(ctx, project, raw["phaseData"])
    return fields


# -- budget ---------------------------------------------------------------------------------------------


def _tag_filter(ctx: Ctx) -> tuple[frozenset[str], bool]:
    mode = ctx.param("tagFilterMode") or "contains"
    if mode not in ("contains", "excludes"):
        raise InvalidInput("tagFilterMode", f"{mode!r} is not contains or excludes")
    return frozenset(ctx.multi("tags")), mode == "excludes"


def _filtered(account: dict[str, object], tags: frozenset[str], excludes: bool) -> dict[str, object]:
    """Keep accounts; keep other lines by their tags (any of ``tags``, or none of them with ``excludes``)."""
    if not tags:
        return account
    lines = account.get("lines")
    if isinstance(lines, list):
        account["lines"] = [
            line
            for line in lines
            if isinstance(line, dict)
            and (line.get("type") == "account" or bool(tags & set(line.get("tags") or [])) != excludes)
        ]
    return account


def _library(view: LegacyView, project: Project, expands: frozenset[str]) -> dict[str, object]:
    extra: dict[str, object] = {}
    if "phases" in expands:
        extra["phases"] = [view.phase(project, p) for p in view.visible_phases(project)]
    if "fringes" in expands:
        extra["fringes"] = [view.fringe(f) for f in project.fringes.values()]
    if "globals" in expands:
        extra["globals"] = [view.global_(g) for g in project.globals.values()]
    return extra


def orphan_accounts(ctx: Ctx, project: Project) -> list[Node]:
    """Accounts not reachable from the top level (a missing parent or a parent cycle), in storage order."""
    reachable = {n.id for n in ctx.service.walk(project)}
    return [n for n in project.nodes.values() if n.type == "account" and n.id not in reachable]


@router.get("/projects/{project_id}/budget")
async def get_budget(ctx: Ctx, project_id: str) -> Response:
    project = ctx.project(project_id)
    view = ctx.view()
    totals = ctx.service.totals(ctx.workspace, project)
    account = find_account(ctx, project, ctx.param("accountId") or "root")
    tags, excludes = _tag_filter(ctx)
    sub_accounts: dict[str, object] = {}
    if not ctx.flag("excludeSubAccounts"):
        start = project.roots if account is None else account.children
        nested = [n for n in ctx.service.walk(project, start) if n.type == "account"]
        if account is None:
            nested += orphan_accounts(ctx, project)
        for node in nested:
            key = node.id if view.system else ctx.service.node_path(project, node)
            sub_accounts[key] = _filtered(view.account(project, node, totals), tags, excludes)
    return ok(
        {
            "account": _filtered(view.account(project, account, totals), tags, excludes),
            "subAccounts": sub_accounts,
            **_library(view, project, view.expands),
        }
    )


@router.post("/projects/{project_id}/budget")
async def add_lines(ctx: Ctx, project_id: str) -> Response:
    project = ctx.project(project_id)
    body = await ctx.body()
    parent = find_account(ctx, project, str(body.get("accountId") or "root"))
    lines = body.get("lines")
    if not isinstance(lines, list) or not lines:
        raise InvalidInput("lines", "must be a non-empty array of lines")
    specs = [
        node_fields(ctx, project, line) | {"type": line.get("type", "line")} for line in lines if isinstance(line, dict)
    ]
    if len(specs) != len(lines):
        raise InvalidInput("lines", "every line must be an object")
    created = ctx.service.create_nodes(
        project, parent.id if parent else None, specs, position=_position(project, parent, body)
    )
    view = ctx.view(body)
    view.expands = view.expands | {"lines.phaseData"}
    totals = ctx.service.totals(ctx.workspace, project)
    shaped = view.account(project, parent, totals)
    shaped["lines"] = [view.line(project, n, totals) for n in created]
    return ok({"account": shaped, "subAccounts": {}}, 201)


def _position(project: Project, parent: Node | None, body: Mapping[str, object]) -> int | None:
    """Where ``insert {mode: append|prepend|after|before, lineId}`` puts new lines among the siblings."""
    insert = body.get("insert")
    if not isinstance(insert, Mapping):
        return None
    siblings = project.roots if parent is None else parent.children
    mode = insert.get("mode", "append")
    if mode == "prepend":
        return 0
    if mode in ("after", "before"):
        anchor = str(insert.get("lineId"))
        if anchor not in siblings:
            raise InvalidInput("insert.lineId", f"{anchor!r} is not a line of this account")
        return siblings.index(anchor) + (1 if mode == "after" else 0)
    if mode != "append":
        raise InvalidInput("insert.mode", f"{mode!r} is not append, prepend, after or before")
    return None


@router.get("/projects/{project_id}/budget/line/{line_id:path}")
async def get_line(ctx: Ctx, project_id: str, line_id: str) -> Response:
    project = ctx.project(project_id)
    view = ctx.view()
    if "contact,phaseData" in ctx.multi("expands") or "phaseData" in view.expands:
        view.expands = view.expands | {"lines.phaseData"}
    contact = "contact" in view.expands or "contact" in ctx.multi("expand")
    if contact:
        view.expands = view.expands | {"lines.contact"}
    shaped = view.line(project, find_line(ctx, project, line_id), ctx.service.totals(ctx.workspace, project))
    if contact:  # the official SDKs read an expanded contact that is not there as null, not as absent
        shaped.setdefault("contact", None)
    return ok(shaped)


@router.put("/projects/{project_id}/budget/line/{line_id:path}")
async def update_line(ctx: Ctx, project_id: str, line_id: str) -> Response:
    project = ctx.project(project_id)
    body = await ctx.body()
    node = ctx.service.update_node(project, find_line(ctx, project, line_id).id, node_fields(ctx, project, body))
    view = ctx.view(body)
    view.expands = view.expands | {"lines.phaseData"}
    return ok(view.line(project, node, ctx.service.totals(ctx.workspace, project)))


@router.delete("/projects/{project_id}/budget/line/{line_id:path}")
async def delete_line(ctx: Ctx, project_id: str, line_id: str) -> Response:
    project = ctx.project(project_id)
    ctx.service.delete_node(project, find_line(ctx, project, line_id).id)
    return no_content()


@router.get("/projects/{project_id}/budget/accounts")
async def list_accounts(ctx: Ctx, project_id: str) -> Response:
    project = ctx.project(project_id)
    view = ctx.view()
    accounts = [n for n in ctx.service.walk(project) if n.type == "account"] + orphan_accounts(ctx, project)
    return ok(
        {
            "accounts": [
                {
                    "id": n.id if view.system else n.account_code,
                    "accountId": n.account_code,
                    "path": ctx.service.node_path(project, n),
                    "description": n.description,
                    "parentId": view.parent_ref(project, n),
                }
                for n in accounts
            ]
        }
    )
