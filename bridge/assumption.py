"""One guess about a part the service's documents do not show (the registry is ``bridge.assumptions``)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Assumption:
    """One guess: a stable id, what we assume, where the documents leave it open, who relies on it."""

    id: str
    topic: str
    text: str
    basis: str
    used_by: tuple[str, ...]
