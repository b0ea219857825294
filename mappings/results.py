"""What every mapper returns: the request body with its record, notes and change hash; batches add quarantine."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, TypeVar

from mappings.errors import MappingError
from mappings.keys import idempotency_key, source_hash
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

    def key(self, namespace: str, kind: str) -> str:
        """The Idempotency-Key of sending this body alone."""
        return idempotency_key(namespace, kind, self.ref.scope, (self.ref.legacy_id,), self.body)


@dataclass(frozen=True, slots=True)
class Outcome(Generic[B]):
    """A batch mapped: the good records in order, and the bad ones with their catalogue error."""

    mapped: tuple[Mapped[B], ...] = ()
    quarantined: tuple[MappingError, ...] = ()

    @property
    def notes(self) -> tuple[Note, ...]:
        return tuple(note for item in self.mapped for note in item.notes)
