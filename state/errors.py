"""Errors raised by the state store, each with a message that says what happened and what to do next.

::

    StateError                      (exit 4 unless a subclass says otherwise; a BridgeError, so one root)
    ├── StateLocationError          the path or URL cannot hold a state file, or the server refuses the
    │                               user, password or database (2: fix --state / BRIDGE_STATE)
    │   └── SchemaTooOldError       a reading command met a file an older bridge wrote (2: `bridge plan` upgrades it)
    ├── SchemaTooNewError           the file was written by a newer bridge (2: upgrade the bridge)
    ├── StateBindingError           the file belongs to another source/target pair (2: use another --state)
    ├── SecretInStateError          a caller tried to store something that looks like a secret (4: a bug)
    ├── StateStorageError           the disk refused a write (disk full, I/O error), or the database server
    │                               cannot be reached; nothing half-written (3)
    ├── StateLockedError            another process holds the write lock past the busy timeout (3)
    │   └── StateInUseError         another live process has the state open for writing (3; on PostgreSQL:
    │                               holds the migration's advisory lock)
    ├── StateCorruptError           PRAGMA integrity_check failed, or on PostgreSQL the schema's invariants
    │                               (state.postgres) do not hold (4: restore the backup, report it)
    ├── IntentConflictError         the same step key recorded with a different request (4: a bug)
    ├── IntentTransitionError       a journal transition the state machine does not allow (4: a bug)
    ├── UnknownIntentError          no intent under that step key (4: a bug)
    └── CrosswalkConflictError      a legacy record would map to a second v1 object (4: a duplicate)

The exit codes in brackets are the CLI's (``bridge.cli`` decides them): 2 usage/config, 3 stopped and
resumable, 4 fatal/bug.
"""

from __future__ import annotations

from bridge.errors import BridgeError


class StateError(BridgeError):
    """Base of every state-store error; its message already says what to do."""

    remedy = ""


class StateLocationError(StateError):
    pass


class SchemaTooOldError(StateLocationError):
    """A command that only reads (status, crosswalk, verify) met an older schema: it never upgrades a file.

    Exit 2 like its parent: nothing is wrong with the file, the command was pointed at it too early; the message
    names the command that upgrades it (a writer: ``bridge plan`` or ``bridge run``).
    """


class SchemaTooNewError(StateError):
    pass


class StateBindingError(StateError):
    pass


class SecretInStateError(StateError):
    pass


class StateStorageError(StateError):
    pass


class StateLockedError(StateError):
    pass


class StateInUseError(StateLockedError):
    pass


class StateCorruptError(StateError):
    pass


class IntentConflictError(StateError):
    pass


class IntentTransitionError(StateError):
    pass


class UnknownIntentError(StateError):
    pass


class CrosswalkConflictError(StateError):
    pass
