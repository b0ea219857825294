"""What a mapper returns for one record: the request body with its record reference, notes and change hash."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, TypeVar

from mappings.keys import source_hash
from mappings.notes import Note
from mappings.refs import RecordRef

B = TypeVar("B")


@dataclass(frozen=True, slots=True)
class Mapped(Generic[B]):
    """One legacy record as one v1 request body (``body`` is the exact wire JSON), with its notes."""

    ref: RecordRef
    body: B
    notes: tuple[Note, ...] = ()

    @property
    def source_hash(self) -> str:
        """Stable hash of the body as mapped: equal hashes mean nothing to patch on a re-run."""
        return source_hash(self.body)
