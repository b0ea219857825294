"""v1 comments: ``comments_list``, ``comments_create``, ``comments_update``, ``comments_delete``.

A comment is made by the token's user at server time on a target that exists in the project (else 422, like
every reference named in a body, A33); a create needs an Idempotency-Key. The list filters by target (kind and
id together), thread and resolution, and pages. Only the author may change the content (403 ``forbidden``);
anyone who may write may resolve, tag or delete. The description publishes no single-comment read.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from bridge.emulator.core.comments import NotTheAuthor
from bridge.emulator.core.model import Project
from bridge.emulator.core.records import Author, Comment, CommentTag
from bridge.emulator.v1.auth import Grant
from bridge.emulator.v1.comment_requests import CommentCreate, CommentUpdate
from bridge.emulator.v1.context import context_of
from bridge.emulator.v1.errors import ForbiddenError, ValidationError
from bridge.emulator.v1.routing import (
    Json,
    V1Router,
    can,
    created,
    domain_errors,
    flag,
    idempotent,
    ok,
    page_response,
    parsed_body,
    project_of,
)
from bridge.emulator.wire.formats import wire_moment

router = V1Router(prefix="/projects/{project_id}/comments")


def _tags(request: Request, raw: object) -> list[CommentTag]:
    service = context_of(request).service
    tags = raw if isinstance(raw, list) else []
    return [
        CommentTag(service.ids.new("ctg"), t["targetType"], t["targetId"], t["label"], t.get("kind", "mention"))
        for t in tags
    ]


def shape_comment(project: Project, comment: Comment, replies: int) -> Json:
    return {
        "id": comment.id,
        "projectId": project.id,
        "threadId": comment.thread_id,
        "target": {"kind": comment.target_kind, "id": comment.target_id},
        "author": {"id": comment.author.id, "name": comment.author.name, "avatar": None},
        "content": comment.content,
        "resolved": comment.resolved,
        "tags": [
            {"id": t.id, "targetType": t.target_type, "targetId": t.target_id, "label": t.label, "kind": t.kind}
            for t in comment.tags
        ],
        "reactions": [],
        "replyCount": replies,
        "readByCurrentUser": True,
        "edited": comment.edited,
        "createdAt": wire_moment(comment.created_at),
        "updatedAt": wire_moment(comment.updated_at),
    }


@router.get("")
async def list_comments(request: Request, grant: Grant, project_id: str) -> Response:
    _, project = project_of(request, grant, project_id)
    query = request.query_params
    kind, target = query.get("targetKind"), query.get("targetId")
    if (kind is None) != (target is None):
        raise ValidationError("Send targetKind and targetId together.", fieldErrors={"targetKind": ["needs targetId"]})
    thread, resolved = query.get("threadId"), query.get("resolved")
    wanted = flag(request, "resolved") if resolved is not None else None
    service = context_of(request).service
    found = [
        c
        for c in service.list_comments(project, target_kind=kind, target_id=target)
        if (thread is None or c.thread_id == thread) and (wanted is None or c.resolved == wanted)
    ]
    filters = {"targetKind": kind, "targetId": target, "threadId": thread, "resolved": resolved}
    return page_response(
        request, found, lambda c: shape_comment(project, c, service.reply_count(project, c)), filters=filters
    )


@router.post("", status_code=201)
async def create_comment(request: Request, grant: Grant, project_id: str) -> Response:
    can(grant, "create", "Comment")
    workspace, project = project_of(request, grant, project_id)
    body = await parsed_body(request, CommentCreate)
    service = context_of(request).service

    async def produce() -> Response:
        target = body["target"]
        assert isinstance(target, dict)  # checked against CommentCreate
        with domain_errors(body_refs=True):
            comment = service.create_comment(
                workspace,
                project,
                content=body["content"],
                target_kind=target["kind"],
                target_id=target["id"],
                author=Author(grant.user_id, grant.name, grant.email),
                thread_id=body.get("threadId"),
                tags=_tags(request, body.get("tags")),
            )
        return created(shape_comment(project, comment, 0))

    return await idempotent(request, grant, produce)


@router.patch("/{comment_id}")
async def update_comment(request: Request, grant: Grant, project_id: str, comment_id: str) -> Response:
    can(grant, "update", "Comment")
    _, project = project_of(request, grant, project_id)
    body = await parsed_body(request, CommentUpdate)
    service = context_of(request).service
    tags = _tags(request, body["tags"]) if "tags" in body else None
    with domain_errors():
        try:
            comment = service.update_comment(
                project,
                comment_id,
                editor=grant.user_id,
                content=body.get("content"),
                resolved=body.get("resolved"),
                tags=tags,
            )
        except NotTheAuthor as exc:
            raise ForbiddenError(f"{exc.message}; the token's user may resolve it, not edit it.") from exc
    return ok(shape_comment(project, comment, service.reply_count(project, comment)))


@router.delete("/{comment_id}", status_code=204)
async def delete_comment(request: Request, grant: Grant, project_id: str, comment_id: str) -> Response:
    can(grant, "delete", "Comment")
    _, project = project_of(request, grant, project_id)
    # A repeat finds nothing to delete: 404, as a repeated contact delete is (no further effect either way).
    with domain_errors():
        context_of(request).service.delete_comment(project, comment_id)
    return Response(status_code=204)
