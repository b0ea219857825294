"""Record references and the crosswalk lookup: how a mapping names a legacy record and finds its v1 id.

A ``RecordRef`` is what every error and note carries so an operator can find the record in the legacy
workspace. The crosswalk is passed in as a plain function, which keeps the mappings pure: the engine binds
it to its SQLite crosswalk, tests bind it to a dict.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from mappings.kinds import Kind
from mappings.printable import escaped

Lookup = Callable[[Kind, str, str], str | None]
"""``(kind, scope, legacy_id) -> v1 id`` or None when the record has not been created on the target yet."""

WORKSPACE: Final = "workspace"
"""Scope of records that live once per workspace (spaces, contacts, library items)."""


@dataclass(frozen=True, slots=True, order=True)
class RecordRef:
    """One legacy record: its kind, its legacy id and the scope it lives in (a project id or 'workspace')."""

    kind: Kind
    legacy_id: str
    scope: str = WORKSPACE

    def __str__(self) -> str:
        where = "the workspace" if self.scope == WORKSPACE else f"project '{escaped(self.scope)}'"
        return f"{self.kind} '{escaped(self.legacy_id)}' in {where}"
