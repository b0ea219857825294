"""Comments on a project's records: the rules both surfaces share.

A comment targets the project itself or one of its records (a budget line, a transaction, a contact; purchase
orders and documents once the store holds them); the target must exist when the comment is made. A reply
names its thread's root comment, which must be a root comment of the same project. Only the author may change
the content (``NotTheAuthor``); anyone may resolve. Deleting a comment deletes its replies.
"""

from __future__ import annotations

from collections.abc import Sequence

from bridge.emulator.core import validate
from bridge.emulator.core.errors import EmulatorError, InvalidInput, NotFound
from bridge.emulator.core.model import Project, Workspace
from bridge.emulator.core.records import COMMENT_TARGET_KINDS, Author, Comment, CommentTag
from bridge.emulator.core.workspaces import StoreCore

CONTENT_LIMIT = 20_000


class NotTheAuthor(EmulatorError):  # noqa: N818 - named for the outcome, as the surfaces' codes are
    code = "not_the_author"


class CommentsStore(StoreCore):
    """Create, list, change and delete a project's comments."""

    def list_comments(
        self, project: Project, *, target_kind: str | None = None, target_id: str | None = None
    ) -> list[Comment]:
        """The project's comments in creation order, optionally only those on one target."""
        return [
            c
            for c in project.comments.values()
            if (target_kind is None or c.target_kind == target_kind) and (target_id is None or c.target_id == target_id)
        ]

    def get_comment(self, project: Project, comment_id: str) -> Comment:
        found = project.comments.get(comment_id)
        if found is None:
            raise NotFound("comment", comment_id)
        return found

    def create_comment(
        self,
        workspace: Workspace,
        project: Project,
        *,
        content: object,
        target_kind: object,
        target_id: object,
        author: Author,
        thread_id: object = None,
        tags: Sequence[CommentTag] = (),
    ) -> Comment:
        """A new comment by ``author``, stamped now, on a target that exists in this project."""
        kind = validate.choice("target.kind", target_kind, COMMENT_TARGET_KINDS)
        ref = validate.required_text("target.id", target_id)
        self._require_target(workspace, project, kind, ref)
        thread = None
        if thread_id is not None:
            root = self.get_comment(project, validate.required_text("threadId", thread_id))
            if root.thread_id is not None:
                raise InvalidInput("threadId", f"{root.id!r} is a reply; reply to its thread's root comment")
            thread = root.id
        now = self.clock()
        comment = Comment(
            id=self.ids.new("cmt"),
            content=validate.required_text("content", content, max_len=CONTENT_LIMIT),
            target_kind=kind,
            target_id=ref,
            author=author,
            created_at=now,
            updated_at=now,
            thread_id=thread,
            tags=list(tags),
        )
        project.comments[comment.id] = comment
        return comment

    def update_comment(
        self,
        project: Project,
        comment_id: str,
        *,
        editor: str,
        content: object = None,
        resolved: object = None,
        tags: Sequence[CommentTag] | None = None,
    ) -> Comment:
        """Change a comment; a new ``content`` only from its author (NotTheAuthor otherwise)."""
        comment = self.get_comment(project, comment_id)
        if content is not None:
            if editor != comment.author.id:
                raise NotTheAuthor(f"only the author ({comment.author.name}) can change comment {comment.id!r}")
            comment.content = validate.required_text("content", content, max_len=CONTENT_LIMIT)
            comment.edited = True
        if resolved is not None:
            comment.resolved = validate.flag("resolved", resolved)
        if tags is not None:
            comment.tags = list(tags)
        comment.updated_at = self.clock()
        return comment

    def delete_comment(self, project: Project, comment_id: str) -> None:
        """Remove a comment and its replies."""
        comment = self.get_comment(project, comment_id)
        for reply in [c.id for c in project.comments.values() if c.thread_id == comment.id]:
            del project.comments[reply]
        del project.comments[comment.id]

    def reply_count(self, project: Project, comment: Comment) -> int:
        return sum(1 for c in project.comments.values() if c.thread_id == comment.id)

    def _require_target(self, workspace: Workspace, project: Project, kind: str, ref: str) -> None:
        present = {
            "project": lambda: ref in (project.id, project.alias),
            "budgetLine": lambda: ref in project.nodes,
            "transaction": lambda: ref in project.actuals,
            "contact": lambda: ref in workspace.contacts,
        }.get(kind)
        # Purchase orders and documents are not held by this store: a comment cannot name one.
        if present is None or not present():
            raise NotFound(kind, ref)
