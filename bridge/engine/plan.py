"""The dry run's result: what a run would write, per kind, and what it would cost.

A ``Plan`` is plain data built by ``bridge.engine.worklist`` from the source, the mappings and the crosswalk;
it makes no request to the v1 surface beyond reads. ``Plan.to_json()`` is the ``plan.json`` schema
(``PLAN_SCHEMA_VERSION``): a versioned object with per-kind counts, quarantine codes, request counts, a time
estimate and the assumptions the run depends on. Rendering for a terminal lives in the CLI.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from bridge import assumptions
from bridge.engine.steps import ORDER
from mappings.kinds import Kind
from mappings.notes import Note, NoteKind

PLAN_SCHEMA_VERSION = 1

# The components whose guesses a migration run depends on: the engine, its mappings and the client wire.
RUN_COMPONENTS = ("engine", "mappings", "clients")


@dataclass(frozen=True, slots=True)
class QuarantinedRecord:
    """One legacy record the run will not write, with the stable code saying why and what to fix."""

    kind: str
    scope: str
    legacy_id: str
    code: str
    field: str | None
    message: str


@dataclass(frozen=True, slots=True)
class NotCarried:
    """One source value v1 publishes no write for (a line's tag, a markup's excludeFringes): listed, not lost."""

    kind: str
    scope: str
    legacy_id: str
    field: str
    value: str | None
    reason: str


def not_carried(notes: Iterable[Note]) -> list[NotCarried]:
    """The "not carried" notes of a mapping, as plan entries (other notes are not the plan's business)."""
    return [
        NotCarried(n.ref.kind, n.ref.scope, n.ref.legacy_id, n.field, n.old, n.detail)
        for n in notes
        if n.kind is NoteKind.NOT_CARRIED
    ]


@dataclass(slots=True)
class KindPlan:
    """Counts for one kind: records to create, to patch, left alone, quarantined; and requests to send."""

    kind: Kind
    to_create: int = 0
    to_update: int = 0
    unchanged: int = 0
    quarantined: Counter[str] = field(default_factory=Counter)
    requests: int = 0

    def as_json(self) -> dict[str, object]:
        return {
            "to_create": self.to_create,
            "to_update": self.to_update,
            "unchanged": self.unchanged,
            "quarantined": sum(self.quarantined.values()),
            "quarantine_codes": dict(sorted(self.quarantined.items())),
            "requests": self.requests,
        }


@dataclass(slots=True)
class Plan:
    """What one run would do, in dependency order, and the facts the estimate rests on."""

    migration: str
    source_workspace: str
    target_workspace: str
    latency_s: float
    concurrency: int
    kinds: dict[Kind, KindPlan] = field(default_factory=dict)
    quarantine: list[QuarantinedRecord] = field(default_factory=list)
    unknown_on_target: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    not_carried: list[NotCarried] = field(default_factory=list)
    # Wall seconds of the workspace stage and of each project's pipeline (a run's critical path is the first
    # plus the slowest of the others: projects run side by side).
    timings: dict[str, float] = field(default_factory=dict)

    @property
    def critical_path_s(self) -> float:
        projects = [v for k, v in self.timings.items() if k.startswith("project:")]
        return round(self.timings.get("workspace", 0.0) + max(projects, default=0.0), 3)

    def of(self, kind: Kind) -> KindPlan:
        """The counts of ``kind``, created empty on first use."""
        if kind not in self.kinds:
            self.kinds[kind] = KindPlan(kind)
        return self.kinds[kind]

    def ordered(self) -> list[KindPlan]:
        """The per-kind counts in the order a run writes them."""
        return [self.kinds[k] for k in ORDER if k in self.kinds]

    @property
    def requests(self) -> int:
        return sum(k.requests for k in self.kinds.values())

    @property
    def estimate_s(self) -> float:
        """Wall time at the measured latency: kinds run one after another, a kind's requests in parallel."""
        per_kind = (math.ceil(k.requests / max(1, self.concurrency)) for k in self.kinds.values())
        return round(sum(per_kind) * self.latency_s, 2)

    @property
    def has_work(self) -> bool:
        return any(k.to_create or k.to_update for k in self.kinds.values())

    def depends_on(self) -> list[assumptions.Assumption]:
        """The registry entries a run of this plan relies on, each once, by id."""
        seen: dict[str, assumptions.Assumption] = {}
        for component in RUN_COMPONENTS:
            for entry in assumptions.used_by(component):
                seen.setdefault(entry.id, entry)
        return [seen[i] for i in sorted(seen)]

    def to_json(self) -> dict[str, object]:
        """The machine-readable plan (``plan.json``), schema ``PLAN_SCHEMA_VERSION``."""
        return {
            "schema_version": PLAN_SCHEMA_VERSION,
            "migration": self.migration,
            "source_workspace": self.source_workspace,
            "target_workspace": self.target_workspace,
            "kinds": {k.kind.value: k.as_json() for k in self.ordered()},
            "requests": self.requests,
            "latency_ms": round(self.latency_s * 1000, 1),
            "concurrency": self.concurrency,
            "estimate_s": self.estimate_s,
            "quarantine": [
                {
                    "kind": q.kind,
                    "scope": q.scope,
                    "legacy_id": q.legacy_id,
                    "code": q.code,
                    "field": q.field,
                    "message": q.message,
                }
                for q in self.quarantine
            ],
            "not_carried": [
                {
                    "kind": n.kind,
                    "scope": n.scope,
                    "legacy_id": n.legacy_id,
                    "field": n.field,
                    "value": n.value,
                    "reason": n.reason,
                }
                for n in self.not_carried
            ],
            "unknown_on_target": dict(sorted(self.unknown_on_target.items())),
            "assumptions": [{"id": a.id, "topic": a.topic, "text": a.text} for a in self.depends_on()],
            "notes": list(self.notes),
        }
