"""The v1 document write shapes, as closed models (our own encoding of the published ones): the link request,
the update, and the upload's ``metadata`` part.

``DocumentCreateMetadata`` is named by the description but defined nowhere; its one example is
``{"name": ..., "links": {"kind": ..., "id": ...}}``. We take it as closed (A-guess) with ``name``,
``description`` and ``links``, where ``links`` is one target reference (as the example) or a list of them (as
"each target must have a different kind" implies).
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from bridge.emulator.v1.requests import Closed, Patch

WritableKind = Literal["project", "contact", "transaction", "payment", "purchaseOrder", "budgetLine"]


class DocumentLinkRequest(Closed):
    target_id: str
    phase_id: str | None = None
    replace: bool = False


class DocumentUpdate(Patch):
    name: str = ""
    description: str | None = None
    folder_id: str | None = None


class TargetRef(Closed):
    kind: WritableKind
    id: str = Field(min_length=1)
    phase_id: str | None = None


class DocumentCreateMetadata(Closed):
    name: str = Field(default="", min_length=1, max_length=255)
    description: str | None = None
    links: TargetRef | list[TargetRef] = Field(default_factory=list)
