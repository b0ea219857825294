"""Legacy budget notes: ``GET /projects/{p}/budget/note`` (the root note) and ``.../note/{lineId}``.

A line is found as the budget line read finds it (id or slash path), or by account code or subtotal alias.
Notes exist only on account-type lines (the model's accounts and lines, both ``account`` here); a subtotal
or a markup answers 200 with a null note, as the description says.
"""

from __future__ import annotations

from fastapi import APIRouter
from starlette.responses import Response

from bridge.emulator.core.errors import NotFound
from bridge.emulator.core.model import Node, Project
from bridge.emulator.legacy.budget_routes import find_line
from bridge.emulator.legacy.note_shapes import note_data
from bridge.emulator.legacy.routing import Ctx, LegacyRoute, ok

router = APIRouter(route_class=LegacyRoute)
NOTE_LINE_TYPES = {"account": "account", "line": "account", "subtotal": "subtotal", "markup": "markup"}


def _find(ctx: Ctx, project: Project, ref: str) -> Node:
    try:
        return find_line(ctx, project, ref)
    except NotFound:
        found = next((n for n in ctx.service.walk(project) if ref in (n.account_code, n.alias)), None)
        if found is None:
            raise
        return found


@router.get("/projects/{project_id}/budget/note")
async def root_note(ctx: Ctx, project_id: str) -> Response:
    project = ctx.project(project_id)
    return ok({"note": note_data(ctx.service.root_note(project), ctx.param("format") or "all")})


@router.get("/projects/{project_id}/budget/note/{line_id:path}")
async def line_note(ctx: Ctx, project_id: str, line_id: str) -> Response:
    project = ctx.project(project_id)
    node = _find(ctx, project, line_id)
    line = {
        "id": node.id,
        "accountId": node.account_code,
        "type": NOTE_LINE_TYPES[node.type],
        "path": ctx.service.node_path(project, node),
    }
    note = note_data(ctx.service.line_note(project, node), ctx.param("format") or "all")
    return ok({"note": note, "line": line})
