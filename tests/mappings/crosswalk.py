"""The crosswalk the mappings' tests bind the mappings to: an in-memory table."""

from __future__ import annotations

from collections.abc import Mapping

from mappings.kinds import Kind
from mappings.refs import Lookup


def lookup_from(table: Mapping[tuple[str, str, str], str]) -> Lookup:
    """A lookup answering the v1 id ``table`` holds for (kind, scope, legacy id), None for any other record."""

    def lookup(kind: Kind, scope: str, legacy_id: str) -> str | None:
        return table.get((kind, scope, legacy_id))

    return lookup
