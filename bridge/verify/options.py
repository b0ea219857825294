"""What a verification is asked to prove: which projects and phases, to what tolerance, and what the runs chose."""

from __future__ import annotations

from dataclasses import dataclass

from bridge.verify.compare import FailOn
from bridge.verify.documents import ProvenDocuments
from mappings.kinds import Kind


@dataclass(frozen=True, slots=True)
class VerifyOptions:
    """The operator's choices for one verification (`bridge verify`, or a sync cycle's)."""

    projects: tuple[str, ...] = ()
    phases: tuple[str, ...] = ()
    fail_on: FailOn = FailOn.MISMATCH
    # The kinds the operator left behind (``--without``, as the run was given it): counted as not carried.
    left_out: frozenset[Kind] = frozenset()
    # Set from the settings' ``--with contact-private``: the run carried contacts' phone and address (A101).
    contact_private: bool = False
    # Bridge mode: the documents the watch proved already (``ProvenDocuments``, filled as it goes).
    proven: ProvenDocuments | None = None
