"""What a run did, or (dry run) would do: per kind, what became of each source record, and what it cost.

Every step of a run returns a ``Tally`` (frozen: the records of each kind by ``Fate``, the requests sent, the
records quarantined and the values not carried); ``run`` folds each one into the run's one ``Plan``, the
only place counts accumulate, which the progress bars, the summary tables, ``plan.json``, the log and the
benchmarks all read. A dry run makes the same decisions without sending, so its ``Plan`` is the run's.

``Plan.to_json()`` is the ``plan.json`` schema (``PLAN_SCHEMA_VERSION``): a versioned object with per-kind
counts, quarantine codes, request counts, a time estimate and the assumptions the run depends on. Version 2
added per kind ``replayed`` (in flight when a run stopped, finished by this one), ``held_back`` (inside a
quarantined parent, never attempted) and ``removed_at_source`` (crosswalked by an earlier run, gone from the
source since: reported, left on the target, never deleted). Version 3 added ``inventory``: each kind the source
holds that the run does not write (``engine.inventory``), counted, with money per currency, bytes and why, and
``unlisted``: what the legacy surface holds but publishes no way to list. Version 4 added per kind ``left_out``
(records of a kind the operator left behind with ``--without``), ``choices`` (the kinds left out and the
extras asked for with ``--with``) and ``carried_with_losses`` (each kind carried with what its records lose on
the way: a comment's author and time). Version 5 added per kind ``adopted`` (records the target already held
that the state did not know, found by their natural fields and booked, not sent: ``engine.adopt``) and
``unmatched_on_target`` (per kind, v1 records those lookups listed that no source record matched). Version 6
added bridge mode's per kind ``conflicted`` (changed on legacy while changed on v1 too: queued, not written,
``engine.guard``) and ``deleted_on_target`` (gone from the source, deleted from v1 by a sync). Rendering
for a terminal lives in the CLI.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum

from bridge import assumptions
from bridge.engine.choices import Choices
from bridge.engine.inventory import HELD, UNAVAILABLE, UNLISTED, Held
from bridge.engine.kinds import KINDS, KindSpec, order, stages
from mappings.documents import UPLOADS
from mappings.inventory import Stock
from mappings.kinds import Kind
from mappings.notes import Note, NoteKind
from mappings.purchase_orders import OrderLine, orders_json

PLAN_SCHEMA_VERSION = 6

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


@dataclass(frozen=True, slots=True)
class Refusal:
    """A quarantined record, counted under the kind of the step that refused it; ``filed`` when the state
    file already holds it (a target refusal is filed with its journal transition, a mapping's by the run)."""

    kind: Kind
    record: QuarantinedRecord
    filed: bool = False


class Fate(StrEnum):
    """What a run did with one source record (each record of a run has exactly one)."""

    CREATED = "to_create"
    REPLAYED = "replayed"
    # Found on the target by its natural fields and booked, not sent (``engine.adopt``).
    ADOPTED = "adopted"
    UPDATED = "to_update"
    UNCHANGED = "unchanged"
    HELD_BACK = "held_back"
    # Of a kind the operator left behind (``--without``): counted, never sent.
    LEFT_OUT = "left_out"
    # Not a source record: one the crosswalk knows that the source no longer holds (left on the target).
    REMOVED = "removed_at_source"
    # Bridge mode (``engine.guard``): changed on legacy while someone changed it on v1 too; queued, not written.
    CONFLICTED = "conflicted"
    # Bridge mode: not a source record; one gone from the source that a sync deleted from v1.
    DELETED = "deleted_on_target"


@dataclass(frozen=True, slots=True)
class Tally:
    """What one step did: records per kind and fate, requests per kind, quarantine and values not carried.

    Tallies add up (``a + b``). A quarantined record is counted by its entry in ``quarantine``, under the kind
    of the step that refused it (a split part refused with its actual counts as an actual).
    """

    records: Counter[tuple[Kind, Fate]] = field(default_factory=Counter)
    requests: Counter[Kind] = field(default_factory=Counter)
    quarantine: tuple[Refusal, ...] = ()
    not_carried: tuple[NotCarried, ...] = ()
    timings: tuple[tuple[str, float], ...] = ()
    stock: tuple[Stock, ...] = ()
    # The purchase orders carried, with the status each had on legacy and has on v1 (``engine.purchase_orders``).
    orders: tuple[OrderLine, ...] = ()

    @classmethod
    def of(cls, kind: Kind, fate: Fate, records: int = 1, *, requests: int = 0) -> Tally:
        return cls(Counter({(kind, fate): records}), Counter({kind: requests}))

    def __add__(self, other: Tally) -> Tally:
        return Tally(
            self.records + other.records,
            self.requests + other.requests,
            self.quarantine + other.quarantine,
            self.not_carried + other.not_carried,
            self.timings + other.timings,
            self.stock + other.stock,
            self.orders + other.orders,
        )


def total(tallies: Iterable[Tally]) -> Tally:
    """The sum of several steps' tallies."""
    summed = Tally()
    for tally in tallies:
        summed += tally
    return summed


@dataclass(slots=True)
class KindPlan:
    """Counts for one kind: records per fate, quarantined by code, and requests sent."""

    kind: Kind
    to_create: int = 0
    replayed: int = 0
    adopted: int = 0
    to_update: int = 0
    unchanged: int = 0
    held_back: int = 0
    left_out: int = 0
    removed_at_source: int = 0
    conflicted: int = 0
    deleted_on_target: int = 0
    quarantined: Counter[str] = field(default_factory=Counter)
    requests: int = 0

    @property
    def records(self) -> int:
        """The source records of this kind the run dealt with, one fate each (what the source holds)."""
        return (
            self.to_create
            + self.replayed
            + self.adopted
            + self.to_update
            + self.unchanged
            + self.held_back
            + self.left_out
            + self.conflicted
            + sum(self.quarantined.values())
        )

    def as_json(self) -> dict[str, object]:
        return {
            "to_create": self.to_create,
            "replayed": self.replayed,
            "adopted": self.adopted,
            "to_update": self.to_update,
            "unchanged": self.unchanged,
            "held_back": self.held_back,
            "left_out": self.left_out,
            "quarantined": sum(self.quarantined.values()),
            "quarantine_codes": dict(sorted(self.quarantined.items())),
            "removed_at_source": self.removed_at_source,
            "conflicted": self.conflicted,
            "deleted_on_target": self.deleted_on_target,
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
    # Per kind, v1 records the run's adoption lookups listed that no source record matched (``engine.adopt``).
    unmatched_on_target: dict[Kind, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    not_carried: list[NotCarried] = field(default_factory=list)
    # What the source holds of each kind the run does not write (``engine.inventory``), by kind.
    inventory: dict[str, Stock] = field(default_factory=dict)
    # The kinds left behind and the extras asked for (``engine.choices``).
    choices: Choices = field(default_factory=Choices)
    # Wall seconds of the workspace stage and of each project's pipeline (projects run side by side).
    timings: dict[str, float] = field(default_factory=dict)
    orders: list[OrderLine] = field(default_factory=list)

    def of(self, kind: Kind) -> KindPlan:
        """The counts of ``kind`` (empty when the run met none)."""
        return self.kinds.get(kind, KindPlan(kind))

    def fold(self, tally: Tally) -> None:
        """Add one step's result: the one place a run's counts change."""
        for (kind, fate), records in tally.records.items():
            row = self.kinds.setdefault(kind, KindPlan(kind))
            setattr(row, fate.value, getattr(row, fate.value) + records)
        for kind, requests in tally.requests.items():
            self.kinds.setdefault(kind, KindPlan(kind)).requests += requests
        for refusal in tally.quarantine:
            self.kinds.setdefault(refusal.kind, KindPlan(refusal.kind)).quarantined[refusal.record.code] += 1
            self.quarantine.append(refusal.record)
        self.not_carried.extend(tally.not_carried)
        self.timings.update(tally.timings)
        self.orders.extend(tally.orders)
        for stock in tally.stock:
            self.inventory[stock.kind] = self.inventory.get(stock.kind, Stock(stock.kind)) + stock

    def ordered(self) -> list[KindPlan]:
        """The per-kind counts in the order a run writes them."""
        return [self.kinds[k] for k in order() if k in self.kinds]

    @property
    def requests(self) -> int:
        return sum(k.requests for k in self.kinds.values())

    @property
    def estimate_s(self) -> float:
        """Wall time at the measured latency: waves one after another, the requests of a wave's kinds sharing
        the concurrency (a lower bound where one project's pipeline is the long pole)."""
        rounds = (math.ceil(sum(self.of(k).requests for k in wave) / max(1, self.concurrency)) for wave in stages())
        return round(sum(rounds) * self.latency_s, 2)

    @property
    def removed_at_source(self) -> dict[Kind, int]:
        """Per kind, records an earlier run wrote that the source no longer holds (left on the target)."""
        return {k.kind: k.removed_at_source for k in self.ordered() if k.removed_at_source}

    def depends_on(self) -> list[assumptions.Assumption]:
        """The registry entries a run of this plan relies on, each once, by id."""
        seen: dict[str, assumptions.Assumption] = {}
        for component in RUN_COMPONENTS:
            for entry in assumptions.used_by(component):
                seen.setdefault(entry.id, entry)
        return [seen[i] for i in sorted(seen)]

    def held(self) -> list[tuple[Held, Stock]]:
        """Each kind the run does not write that it counted, in declaration order, with what the source holds of
        it (a kind counted empty is listed with 0; the workspace's kinds are counted on whole-workspace runs)."""
        return [(held, self.inventory[held.kind]) for held in (*HELD, *UNAVAILABLE) if held.kind in self.inventory]

    def lossy(self) -> list[tuple[KindSpec, int]]:
        """Each kind the run carries with losses (``KindSpec.losses``) that it met, with its record count."""
        return [(kind, self.of(kind.kind).records) for kind in KINDS if kind.losses and kind.kind in self.kinds]

    @property
    def uploads(self) -> Stock:
        """The documents the run uploads (``engine.documents``): their count and bytes; v1 bills each upload."""
        return self.inventory.get(UPLOADS, Stock(UPLOADS))

    def counts(self) -> dict[str, object]:
        """Per kind what the run did, and its requests: what the state file keeps with the run for `status`."""
        return {"kinds": {k.kind.value: k.as_json() for k in self.ordered()}, "requests": self.requests}

    def to_json(self) -> dict[str, object]:
        """The machine-readable plan (``plan.json``), schema ``PLAN_SCHEMA_VERSION``."""
        return {
            "schema_version": PLAN_SCHEMA_VERSION,
            "migration": self.migration,
            "source_workspace": self.source_workspace,
            "target_workspace": self.target_workspace,
            **self.counts(),
            "latency_ms": round(self.latency_s * 1000, 1),
            "concurrency": self.concurrency,
            "estimate_s": self.estimate_s,
            "choices": {
                "without": sorted(kind.value for kind in self.choices.without),
                "asked_without": sorted(kind.value for kind in self.choices.asked),
                "with": sorted(extra.value for extra in self.choices.extras),
            },
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
            "inventory": [
                {
                    "kind": held.kind,
                    "label": held.label,
                    "scope": held.scope.value,
                    "listed_by": held.listed_by,
                    "carried": False,
                    "why": held.why,
                    "count": stock.count,
                    "money": {currency: str(value) for currency, value in sorted(stock.money.items())},
                    "bytes": stock.bytes,
                    "unreadable": stock.unreadable,
                }
                for held, stock in self.held()
            ],
            "carried_with_losses": [
                {"kind": kind.kind.value, "label": kind.label, "records": records, "lost": kind.losses}
                for kind, records in self.lossy()
            ],
            "unlisted": UNLISTED,
            "purchase_orders": orders_json(self.orders),
            "uploads": {"count": self.uploads.count, "bytes": self.uploads.bytes, "billable": True},
            "unknown_on_target": dict(sorted(self.unknown_on_target.items())),
            "unmatched_on_target": {kind.value: n for kind, n in sorted(self.unmatched_on_target.items())},
            "assumptions": [{"id": a.id, "topic": a.topic, "text": a.text} for a in self.depends_on()],
            "notes": list(self.notes),
        }
