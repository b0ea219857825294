"""Legacy comments: ``GET /projects/{projectId}/comments``, the budget's comments (the only comment operation
the legacy description publishes; it declares no write).

A comment on the project or on a budget line is shown; one on another kind of record (v1 only) is not, the
legacy surface having nowhere to put it. ``accountId`` is the account the comment is on, or the account of
the line it is on; ``lineId`` the line, when it is not an account. Filters take an account id, code or path
and a line id or path.
"""

from __future__ import annotations

from fastapi import APIRouter
from starlette.responses import Response

from bridge.emulator.core.model import Node, Project
from bridge.emulator.core.records import Comment
from bridge.emulator.legacy.budget_routes import find_account, find_line
from bridge.emulator.legacy.routing import Ctx, LegacyRoute, ok
from bridge.emulator.legacy.shapes import Json, LegacyView, stamp

router = APIRouter(route_class=LegacyRoute)


def _account_of(project: Project, node: Node | None) -> Node | None:
    """The node itself when it is an account, else its nearest account above (None above the top)."""
    seen: set[str] = set()
    while node is not None and node.type != "account" and node.id not in seen:
        seen.add(node.id)
        node = project.nodes.get(node.parent_id or "")
    return node


def _placed(project: Project, comment: Comment) -> tuple[Node | None, Node | None] | None:
    """(account, line) of a comment the legacy surface shows; None for a comment it cannot show."""
    if comment.target_kind == "project":
        return None, None
    node = project.nodes.get(comment.target_id) if comment.target_kind == "budgetLine" else None
    if node is None:
        return None
    return _account_of(project, node), (None if node.type == "account" else node)


def shape_comment(view: LegacyView, comment: Comment, account: Node | None, line: Node | None) -> Json:
    author = comment.author
    return {
        "id": comment.id,
        "content": comment.content,
        "accountId": None if account is None else (account.id if view.system else account.account_code),
        "lineId": None if line is None else line.id,
        "author": {"id": author.id, "name": author.name, "email": author.email},
        "createdAt": stamp(comment.created_at),
        "updatedAt": stamp(comment.updated_at),
    }


@router.get("/projects/{project_id}/comments")
async def list_comments(ctx: Ctx, project_id: str) -> Response:
    project = ctx.project(project_id)
    account_ref, line_ref = ctx.param("accountId"), ctx.param("lineId")
    account = find_account(ctx, project, account_ref) if account_ref else None
    line = find_line(ctx, project, line_ref) if line_ref else None
    view = ctx.view()
    shown: list[Json] = []
    for comment in ctx.service.list_comments(project):
        placed = _placed(project, comment)
        if placed is None:
            continue
        if (account_ref and placed[0] is not account) or (line_ref and placed[1] is not line):
            continue
        shown.append(shape_comment(view, comment, *placed))
    return ok({"comments": shown})
