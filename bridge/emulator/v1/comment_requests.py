"""The published v1 comment write shapes, closed (``CommentCreate``, ``CommentUpdate``), in our own encoding."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from bridge.emulator.v1.requests import Closed, NonEmpty, Patch

TargetKind = Literal["project", "budgetLine", "transaction", "purchaseOrder", "contact", "document"]


class CommentTarget(Closed):
    kind: TargetKind
    id: str


class CommentTagWrite(Closed):
    target_type: NonEmpty
    target_id: str
    label: NonEmpty
    kind: Literal["mention", "anchor"] = "mention"


class CommentCreate(Closed):
    content: NonEmpty
    target: CommentTarget
    thread_id: str | None = None
    tags: list[CommentTagWrite] = Field(default_factory=list)


class CommentUpdate(Patch):
    content: NonEmpty = "-"
    resolved: bool = False
    tags: list[CommentTagWrite] = Field(default_factory=list)
    reaction_emojis: list[Annotated[str, Field(min_length=1)]] = Field(default_factory=list)
