"""The `bridge` subcommands. Each returns how it ended (an ``Ending``) or raises a ``BridgeError``; only
``bridge.cli`` turns either into an exit code."""

from __future__ import annotations

from enum import StrEnum


class Ending(StrEnum):
    """How a command that finished its work ended, for ``bridge.cli`` to turn into an exit code."""

    DONE = "done"
    """Everything asked was done: migrated, planned, reconciled, printed."""
    QUARANTINED = "quarantined"
    """`run` finished, but some records are quarantined (listed)."""
    DIFFERENCES = "differences"
    """`verify` finished and found differences (the reports say where)."""
    NOT_FOUND = "not_found"
    """`crosswalk` was asked for a record or kind the state file does not hold."""
    MISMATCH = "mismatch"
    """`cutover verify` found a subject or a signature that does not match (each is named)."""
