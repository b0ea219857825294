"""The published v1 comment response shapes, in our own words (strict and closed, as ``v1.contract_shapes``)."""

from __future__ import annotations

from typing import Annotated, Literal, NotRequired

from pydantic import Field, with_config
from typing_extensions import TypedDict  # pydantic needs this one before Python 3.12

from bridge.emulator.v1.comment_requests import TargetKind
from bridge.emulator.v1.contract_shapes import CLOSED, Id
from bridge.emulator.wire.formats import DateTime


@with_config(CLOSED)
class CommentTarget(TypedDict):
    kind: TargetKind
    id: Id


@with_config(CLOSED)
class CommentAuthor(TypedDict):
    id: Id
    name: str
    avatar: str | None


@with_config(CLOSED)
class CommentTag(TypedDict):
    id: Id
    targetType: str
    targetId: Id
    label: str
    kind: Literal["mention", "anchor"]


@with_config(CLOSED)
class ReactionUser(TypedDict):
    id: Id
    name: str


@with_config(CLOSED)
class CommentReaction(TypedDict):
    emoji: str
    count: Annotated[int, Field(ge=0)]
    users: list[ReactionUser]


@with_config(CLOSED)
class Comment(TypedDict):
    id: Id
    projectId: Id
    threadId: NotRequired[Id | None]
    target: NotRequired[CommentTarget | None]
    author: CommentAuthor
    content: str
    resolved: bool
    tags: list[CommentTag]
    reactions: list[CommentReaction]
    replyCount: Annotated[int, Field(ge=0)]
    readByCurrentUser: bool
    edited: bool
    createdAt: DateTime
    updatedAt: DateTime
