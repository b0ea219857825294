"""Durable state of a migration: runs, the legacy -> v1 crosswalk, the journal of intents, quarantine.

Start at ``state.store`` (the overview); ``state.db`` explains durability and schema versioning.
"""

from state.crosswalk import CrosswalkEntry
from state.errors import (
    CrosswalkConflictError,
    IntentConflictError,
    IntentTransitionError,
    SchemaTooNewError,
    SchemaTooOldError,
    SecretInStateError,
    StateBindingError,
    StateCorruptError,
    StateError,
    StateLocationError,
    StateLockedError,
    StateStorageError,
    UnknownIntentError,
)
from state.journal import IntentSpec, members_of
from state.models import CrosswalkRow, IntentRow, QuarantineRow, RunRow
from state.postgres import schema_for
from state.quarantine import QuarantineEntry
from state.runs import options_of
from state.source import SourceRecord
from state.store import StateStore, open_state

__all__ = [
    "CrosswalkConflictError",
    "CrosswalkEntry",
    "CrosswalkRow",
    "IntentConflictError",
    "IntentRow",
    "IntentSpec",
    "IntentTransitionError",
    "QuarantineEntry",
    "QuarantineRow",
    "RunRow",
    "SchemaTooNewError",
    "SchemaTooOldError",
    "SecretInStateError",
    "SourceRecord",
    "StateBindingError",
    "StateCorruptError",
    "StateError",
    "StateLocationError",
    "StateLockedError",
    "StateStorageError",
    "StateStore",
    "UnknownIntentError",
    "members_of",
    "open_state",
    "options_of",
    "schema_for",
]
