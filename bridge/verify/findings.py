"""What verification found, as values: each project's comparison and the library comparison return findings,
and ``fold`` alone turns them into the ``Reconciliation`` every report and the terminal read.

Nothing is counted on a shared object while projects are compared side by side: a project returns its report,
every verdict it gave, its notes and its part of the ledger (per kind, what its scope holds); the fold adds
them up, the way a run folds each step's ``Tally`` into its one ``Plan``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

from bridge.assumptions import used_by
from bridge.engine.choices import LEFT_OUT
from bridge.engine.inventory import HELD, UNLISTED
from bridge.engine.source import ProjectLibrary
from bridge.verify.compare import FailOn, Verdict
from bridge.verify.heldback import KIND_ORDER, HeldCount, money_of, summarize
from bridge.verify.inventory import inventory, tallies
from bridge.verify.ledger import KindTally, is_clean, kind_ledger, left_behind
from bridge.verify.remark_checks import RemarkFindings
from bridge.verify.schema import (
    DocumentDifference,
    LibraryDifference,
    ProjectReport,
    QuarantinedRecord,
    Reconciliation,
    Totals,
)
from mappings.inventory import Stock
from mappings.records import Actual, File

NOTHING_MIGRATED = "no migrated project to verify: run `bridge run` first"
# The ledger's order: the kinds a run writes, in its order, then the kinds it does not, as declared.
LEDGER_ORDER: tuple[str, ...] = (*KIND_ORDER, *(held.kind for held in HELD))


@dataclass(frozen=True, slots=True)
class Ledgers:
    """The ledger as one scope or several found it: per kind, and what refused records hold back."""

    kinds: Mapping[str, KindTally] = field(default_factory=dict)
    held: HeldCount = field(default_factory=HeldCount)

    def __add__(self, other: Ledgers) -> Ledgers:
        kinds = dict(self.kinds)
        for kind, found in other.kinds.items():
            kinds[kind] = kinds[kind] + found if kind in kinds else found
        return Ledgers(kinds, self.held + other.held)


@dataclass(frozen=True, slots=True)
class ProjectFindings:
    """One selected project compared (or found unmigrated): its report, every verdict it gave, notes for the
    whole reconciliation, and its part of the ledger."""

    report: ProjectReport
    verdicts: tuple[Verdict, ...]
    ledgers: Ledgers
    notes: tuple[str, ...] = ()
    # The project's library as read (phases, fringes, globals, tags): the workspace's library kinds are
    # counted from every selected project's. None when the legacy project could not be read.
    library: ProjectLibrary | None = None
    # What the project holds of the kinds the bridge does not write (``engine.inventory``).
    stock: tuple[Stock, ...] = ()
    # (legacy actual id, its files) of each actual read with any: the receipts' part of the documents' ledger.
    attached: tuple[tuple[str, tuple[File, ...]], ...] = ()
    # (legacy order id, its files) of each purchase order read with any: their part of the documents' ledger.
    order_files: tuple[tuple[str, tuple[File, ...]], ...] = ()
    # The actuals read that name the bank transaction they came from (its files are documents too, A102).
    banked: tuple[Actual, ...] = ()


@dataclass(frozen=True, slots=True)
class LibraryFindings:
    """Workspace library items whose v1 values differ from what the runs wrote: each one a mismatch."""

    differences: tuple[LibraryDifference, ...] = ()

    @property
    def verdicts(self) -> tuple[Verdict, ...]:
        return (Verdict.MISMATCH,) * len(self.differences)


@dataclass(frozen=True, slots=True)
class Identity:
    """Which verification this is: the options' failing level, the migration, the run and both workspaces."""

    fail_on: FailOn
    migration: str
    run: str | None
    source_workspace: str
    target_workspace: str
    currency: str
    left_out: frozenset[str] = frozenset()


def fold(
    identity: Identity,
    *,
    migrated: Sequence[ProjectFindings],
    unmigrated: Sequence[ProjectFindings],
    workspace: Ledgers,
    stock: Sequence[Stock],
    library: LibraryFindings,
    quarantine: Sequence[QuarantinedRecord],
    notes: Sequence[str],
    remarks: RemarkFindings | None = None,
    documents: Sequence[DocumentDifference] = (),
) -> Reconciliation:
    """Every finding into the one reconciliation: the only place verdicts and the ledger are counted."""
    every = [*migrated, *unmigrated]
    remarks = remarks or RemarkFindings()
    verdicts = [v for found in every for v in found.verdicts] + list(library.verdicts) + list(remarks.verdicts)
    stocks = [*stock, *(s for found in every for s in found.stock)]
    ledgers = sum((found.ledgers for found in every), workspace) + Ledgers(tallies(stocks))
    found = {kind: left_behind(t) if kind in identity.left_out else t for kind, t in ledgers.kinds.items()}
    entries = [kind_ledger(kind, found[kind]) for kind in LEDGER_ORDER if kind in found]
    held = inventory(stocks)
    reports = [found.report for found in every]
    failing = any(identity.fail_on.fails(v) for v in verdicts)
    said = [note for found in every for note in found.notes]
    # A kind whose list the source refused is not counted: the ledger cannot be closed without it.
    uncounted = [f"{entry.label} could not all be counted: {entry.unread}" for entry in held if entry.unread]
    # Said, never folded into a verdict: a total that holds records left behind differs on v1 by what they add.
    left = [
        f"{entry.kind}: {sum(entry.not_carried.values()):,} records {LEFT_OUT}; the totals that hold them differ "
        "on v1 by what they add (see the differences)"
        for entry in entries
        if entry.kind in identity.left_out
    ]
    return Reconciliation(
        reconciled=not failing and is_clean(entries) and bool(migrated) and not uncounted and not documents,
        held_back=summarize(entries, quarantine, ledgers.held, money_of(reports)),
        fail_on=identity.fail_on,
        generated_at=datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z"),
        migration=identity.migration,
        run=identity.run,
        source_workspace=identity.source_workspace,
        target_workspace=identity.target_workspace,
        currency=identity.currency,
        verdicts=Totals(**{v.value: sum(1 for x in verdicts if x is v) for v in Verdict}),
        projects=reports,
        library=list(library.differences),
        ledger=entries,
        remarks=remarks.check,
        inventory=held,
        unlisted=UNLISTED,
        documents=list(documents),
        quarantine=list(quarantine),
        requests={},
        assumptions=[f"{a.id} {a.topic}" for a in used_by("verify")],
        notes=sorted([*notes, *said, *uncounted, *left])
        + ([] if migrated else ["no migrated project to verify: run `bridge run` first"]),
    )
