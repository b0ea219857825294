"""The closed ledger: every source record of a kind in exactly one bucket, and a set check on the target.

Buckets come from independent records: the crosswalk (migrated by the latest run, or unchanged since an
earlier one), the quarantine (refused, with its codes), the records a refused record above holds back
(``heldback.py``, from the source's own parent links and the quarantine) and the source itself (pending =
none of these). Each count is taken from its own record, so ``unaccounted`` is non-zero exactly when they
disagree: a crosswalk or quarantine entry for a record the source no longer holds, or a record both migrated
and quarantined. The source is always the whole selected source, migrated or not.

The set check is Jepsen's set test for one kind, on the target as it is now: ``ok`` (the crosswalked v1
object exists), ``missing`` (a source record that is not quarantined but has no live v1 object),
``unexpected`` (a v1 object the crosswalk does not know) and ``duplicated`` (an unexpected v1 object with
the same natural key as a crosswalked one: two target objects for one source record).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace

from bridge.engine.choices import LEFT_OUT
from bridge.verify.schema import Duplicate, KindLedger

SourceKey = tuple[str, str]
"""(scope, legacy id) of one source record; scope is a legacy project id or the workspace scope."""


@dataclass(frozen=True, slots=True)
class CrosswalkEntry:
    v1_id: str
    run_id: str


@dataclass(frozen=True, slots=True)
class TargetObject:
    """One object listed on the target, with a natural key that a duplicate of it would share."""

    v1_id: str
    scope: str
    natural_key: str


@dataclass(frozen=True, slots=True)
class KindInput:
    """Everything the ledger of one kind is computed from (plain data, read by ``totals.py``)."""

    kind: str
    source: frozenset[SourceKey]
    crosswalk: Mapping[SourceKey, CrosswalkEntry]
    quarantine: Mapping[SourceKey, str]
    target: tuple[TargetObject, ...] | None
    """None when the target could not be listed for this kind: the set check is then skipped, not passed."""
    held_back: Mapping[SourceKey, str] = field(default_factory=dict)
    """Source records a refused record above holds back, by that record's label (never also in ``quarantine``)."""


@dataclass(frozen=True, slots=True)
class KindTally:
    """What one scope (a project, or the workspace) holds of one kind's ledger; tallies of a kind add up.

    ``checked`` says the target was listed in this scope; the set check counts only when some scope was.
    """

    source: int = 0
    migrated: int = 0
    unchanged: int = 0
    quarantined: Counter[str] = field(default_factory=Counter)
    held_back: Counter[str] = field(default_factory=Counter)
    pending: int = 0
    ok: int = 0
    missing: tuple[str, ...] = ()
    unexpected: tuple[str, ...] = ()
    duplicated: tuple[Duplicate, ...] = ()
    checked: bool = False
    not_carried: Counter[str] = field(default_factory=Counter)

    def __add__(self, other: KindTally) -> KindTally:
        return KindTally(
            self.source + other.source,
            self.migrated + other.migrated,
            self.unchanged + other.unchanged,
            self.quarantined + other.quarantined,
            self.held_back + other.held_back,
            self.pending + other.pending,
            self.ok + other.ok,
            self.missing + other.missing,
            self.unexpected + other.unexpected,
            self.duplicated + other.duplicated,
            self.checked or other.checked,
            self.not_carried + other.not_carried,
        )


def ledger(data: KindInput, latest_run: str | None) -> KindLedger:
    """The ledger of one kind; ``latest_run`` decides migrated (written by it) versus unchanged."""
    return kind_ledger(data.kind, tally(data, latest_run))


def tally(data: KindInput, latest_run: str | None) -> KindTally:
    """The buckets and the set check of one kind's records as listed (``data``)."""
    migrated = sum(1 for entry in data.crosswalk.values() if entry.run_id == latest_run)
    accounted = (data.crosswalk, data.quarantine, data.held_back)
    ok, missing, unexpected, duplicated = _set_check(data)
    return KindTally(
        source=len(data.source),
        migrated=migrated,
        unchanged=len(data.crosswalk) - migrated,
        quarantined=Counter(data.quarantine.values()),
        held_back=Counter(data.held_back.values()),
        pending=sum(1 for key in data.source if not any(key in bucket for bucket in accounted)),
        ok=ok,
        missing=tuple(missing),
        unexpected=tuple(unexpected),
        duplicated=tuple(duplicated),
        checked=data.target is not None,
    )


def left_behind(found: KindTally) -> KindTally:
    """A kind the operator left out (``--without``): what no run carried is not carried rather than pending,
    and the kind is not looked for on the target (what an earlier run wrote of it still counts as migrated or
    unchanged, and a v1 object no record claims is still unexpected)."""
    reason = Counter({LEFT_OUT: found.pending}) if found.pending else Counter[str]()
    return replace(found, pending=0, not_carried=found.not_carried + reason, missing=())


def kind_ledger(kind: str, found: KindTally) -> KindLedger:
    """The closed ledger of one kind from what every scope found of it."""
    unaccounted = found.source - (
        found.migrated
        + found.unchanged
        + found.quarantined.total()
        + found.held_back.total()
        + found.not_carried.total()
        + found.pending
    )
    # A scope not listed on the target has nothing to check against: its records count as missing only when
    # some other scope was listed (the target was then read, and they are not on it).
    checked = found if found.checked else KindTally()
    return KindLedger(
        kind=kind,
        source=found.source,
        migrated=found.migrated,
        unchanged=found.unchanged,
        quarantined=dict(sorted(found.quarantined.items())),
        held_back=dict(sorted(found.held_back.items())),
        not_carried=dict(sorted(found.not_carried.items())),
        pending=found.pending,
        unaccounted=unaccounted,
        closed=unaccounted == 0,
        ok=checked.ok,
        missing=sorted(checked.missing),
        unexpected=sorted(checked.unexpected),
        duplicated=sorted(checked.duplicated, key=lambda d: (d.scope, d.legacy_id)),
        checked_on_target=found.checked,
    )


def _set_check(data: KindInput) -> tuple[int, list[str], list[str], list[Duplicate]]:
    expected = sorted(key for key in data.source if key not in data.quarantine and key not in data.held_back)
    if data.target is None:
        return 0, [source_label(key) for key in expected], [], []
    live = {obj.v1_id: obj for obj in data.target}
    ok = 0
    missing: list[str] = []
    for key in expected:
        entry = data.crosswalk.get(key)
        if entry is not None and entry.v1_id in live:
            ok += 1
        else:
            missing.append(source_label(key))
    known = {entry.v1_id: key for key, entry in data.crosswalk.items()}
    by_natural_key: dict[tuple[str, str], SourceKey] = {}
    for v1_id, key in known.items():
        if v1_id in live:
            by_natural_key.setdefault((live[v1_id].scope, live[v1_id].natural_key), key)
    strays: dict[SourceKey, list[str]] = defaultdict(list)
    unexpected: list[str] = []
    for obj in data.target:
        if obj.v1_id in known:
            continue
        twin = by_natural_key.get((obj.scope, obj.natural_key))
        if twin is None:
            unexpected.append(obj.v1_id)
        else:
            strays[twin].append(obj.v1_id)
    duplicated = [
        Duplicate(legacy_id=key[1], scope=key[0], v1_ids=[data.crosswalk[key].v1_id, *sorted(ids)])
        for key, ids in sorted(strays.items())
    ]
    return ok, missing, sorted(unexpected), duplicated


def source_label(key: SourceKey) -> str:
    """How a missing record is named: its legacy id, after its project's for a project-scoped kind."""
    scope, legacy_id = key
    return legacy_id if not scope or scope == "workspace" else f"{scope}/{legacy_id}"


def is_clean(entries: Iterable[KindLedger]) -> bool:
    """True when every ledger is closed, nothing is pending, and the set check found no stray or gap."""
    return all(e.closed and e.pending == 0 and not e.missing and not e.unexpected and not e.duplicated for e in entries)
