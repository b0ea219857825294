"""The reconciliation report's schema: ``reconciliation.json``, versioned, one model for every writer.

The pydantic models below are the schema: ``json_schema()`` renders them as JSON Schema (draft 2020-12),
and ``docs/reconciliation-schema.md`` is generated from the same models, so the document cannot drift.

Versioning: ``SCHEMA_VERSION`` is semantic. A new optional field bumps the minor version; renaming or
removing a field, or changing a unit, bumps the major version. Readers should refuse a major version they
do not know.

Units: every ``*_minor`` field is an integer in the minor units of the workspace currency (``currency``).
``legacy_amount`` is the figure exactly as the legacy surface computed it (major units of the phase's own
currency, as a decimal string); ``rate`` is the exchange rate used to convert it (workspace units per one
unit of the phase currency, assumption A09). Decimal values travel as strings so no reader loses a digit.
"""

from __future__ import annotations

import json
from typing import Final, Literal

from pydantic import BaseModel, ConfigDict, Field

from bridge.verify.amounts import amount
from bridge.verify.compare import FailOn, Verdict
from bridge.verify.drill import Presence
from bridge.verify.order_models import OrdersReport

SCHEMA_VERSION: Final = "1.9.0"


class ReportModel(BaseModel):
    """Base: immutable and closed (an unknown field in a report is an error for readers of this version)."""

    model_config = ConfigDict(frozen=True, extra="forbid")


class Figure(ReportModel):
    """One total on both sides, converted to the workspace currency, with its verdict."""

    legacy_amount: str | None = Field(description="legacy figure as computed by the legacy surface, phase currency")
    legacy_currency: str = Field(description="ISO-4217 code of the phase currency the legacy figure is in")
    rate: str = Field(description="workspace units per phase-currency unit used for the conversion (A09)")
    legacy_minor: int | None = Field(description="legacy figure converted, workspace minor units; null = absent")
    v1_minor: int | None = Field(description="v1 figure as /v1 computed it, workspace minor units; null = absent")
    currency: str = Field(description="ISO-4217 code of the workspace currency")
    difference_minor: int | None = Field(description="v1_minor - legacy_minor")
    verdict: Verdict
    rounding_bound_minor: str = Field(description="how far rounding may move this total, minor units")
    quarantined_minor: int = Field(
        description="what quarantine holds back of the legacy figure: the quarantined source records in it, or "
        "all of it when its phase or project never reached v1 (then v1_minor is null)"
    )
    held_back_by: str | None = Field(
        default=None,
        description="the refused record that kept this whole figure off v1, as '<kind> <legacy id> (<code>)' (1.2.0)",
    )


class PhaseSummary(ReportModel):
    """One budget phase of one project: its identity on both sides and its totals."""

    legacy_phase_id: str
    v1_phase_id: str | None
    name: str
    type: str
    total: Figure
    fringe: Figure | None = Field(description="the fringe part: legacy lines' fringeTotal against v1 'fringe'")

    def fringe_text(self) -> str:
        """The fringe comparison in a few words: legacy -> v1 and the verdict (a dash for rollups)."""
        f = self.fringe
        if f is None:
            return "—"
        return f"{amount(f.legacy_minor, f.currency)} -> {amount(f.v1_minor, f.currency)} {f.verdict}"


class Location(ReportModel):
    """Where a difference sits: project, phase, account code and path, and the line on both sides."""

    project_id: str
    project_name: str
    phase_id: str
    phase_name: str
    kind: str = Field(description="project, account, line, subtotal, markup, tag or actuals")
    account_code: str | None = None
    path: str | None = None
    line_id: str | None = Field(default=None, description="legacy line id")
    v1_line_id: str | None = None
    description: str | None = None
    presence: Presence = Presence.BOTH


class Difference(ReportModel):
    """One total that is not exact, located as deep as the drill-down could pin it."""

    location: Location
    figure: Figure
    summary: str = Field(description="one sentence for a person: what differs, where, by how much")


class AccountSummary(ReportModel):
    """A top-level account (the topsheet) with its totals per phase by v1 phase id."""

    account_code: str | None
    path: str | None
    description: str | None
    line_id: str
    totals: dict[str, Figure]


class TreeNode(ReportModel):
    """A node of the differing-accounts tree: only nodes with a non-exact total appear."""

    label: str
    kind: str
    account_code: str | None
    path: str | None
    line_id: str
    presence: Presence
    verdicts: dict[str, Verdict] = Field(description="by phase name, only the phases that are not exact")
    children: list[TreeNode] = Field(default_factory=list)


class TagSummary(ReportModel):
    """A tag's totals and fringe totals per phase by v1 phase id: legacy tag totals against the v1 lines
    carrying the tag (a tagged line under a tagged account counted once, as the legacy surface counts it)."""

    name: str
    v1_tag_id: str | None
    totals: dict[str, Figure]
    fringes: dict[str, Figure]


class ActualsSum(ReportModel):
    """Sums of actuals for one project and currency on both sides."""

    currency: str
    legacy_count: int
    v1_count: int
    legacy_amount: str
    legacy_minor: int
    v1_minor: int
    verdict: Verdict
    held_back_minor: int = Field(
        default=0, description="what quarantined actuals (or a project that never reached v1) hold back (1.2.0)"
    )


class TransactionDifference(ReportModel):
    """One legacy actual whose v1 transaction differs (amount, currency or coded line) or is gone, or a v1
    transaction of the project the crosswalk does not know: the transaction level of the drill-down (1.3.0).
    It explains the actuals sums and the actual phase; it carries no verdict of its own."""

    legacy_id: str | None = Field(default=None, description="legacy actual id; null for a v1 transaction only")
    v1_id: str | None = None
    description: str | None = None
    legacy_minor: int | None = Field(
        default=None, description="the legacy amount as the legacy surface counts it, minor units of `currency`"
    )
    currency: str = Field(description="ISO-4217 code of the legacy actuals (the first phase's currency)")
    v1_minor: int | None = Field(default=None, description="the v1 amount, minor units of `v1_currency`")
    v1_currency: str | None = None
    legacy_line_id: str | None = Field(default=None, description="legacy line the actual is coded to (not a split)")
    expected_v1_line_id: str | None = Field(default=None, description="the v1 copy of that line (crosswalk)")
    v1_line_id: str | None = Field(default=None, description="the v1 line the transaction is coded to")
    presence: Presence

    def said(self) -> str:
        """One sentence for a person: which transaction, both amounts, and the line when it moved."""
        legacy = amount(self.legacy_minor, self.currency)
        if self.presence is Presence.MISSING:
            return f"actual {self.legacy_id}: missing on v1 (legacy {legacy})"
        v1 = amount(self.v1_minor, self.v1_currency or self.currency)
        if self.presence is Presence.UNEXPECTED:
            return f"v1 transaction {self.v1_id}: unknown to the crosswalk (v1 {v1})"
        if self.presence is Presence.REMOVED:
            gone = f"its actual {self.legacy_id} was removed at source, left on target"
            return f"v1 transaction {self.v1_id}: {gone} (v1 {v1})"
        parts = [f"actual {self.legacy_id} (v1 {self.v1_id}): legacy {legacy}, v1 {v1}"]
        if self.legacy_line_id and self.v1_line_id != self.expected_v1_line_id:
            parts.append(
                f"coded to v1 line {self.v1_line_id or '—'}, its legacy line's copy is {self.expected_v1_line_id}"
            )
        return "; ".join(parts)


class LibraryDifference(ReportModel):
    """A setting totals are computed from (global formula, fringe rate or cutoff, phase exchange rate) that
    differs between the legacy project and its v1 copy; ``field`` "(copy)" means v1 has no copy at all. In
    ``Reconciliation.library``, a workspace library item's field whose v1 value differs from what the runs wrote
    (``legacy_id`` is the item's name, the crosswalk's key for it; ``legacy`` the value written)."""

    kind: str
    legacy_id: str
    v1_id: str | None
    name: str
    field: str
    legacy: str | None
    v1: str | None


class RemarkDifference(ReportModel):
    """A comment, a comment target, a rate item or a rate sum whose v1 state differs from what the mapping would
    send now (1.7.0). ``legacy`` and ``v1`` are what was compared: a SHA-256 of the body, a count, a sum in
    minor units."""

    kind: str = Field(description="comment, comment_target, rate or rate_sum")
    scope: str = Field(description="the legacy project id, empty for the workspace")
    legacy_id: str = Field(description="the legacy id, the target ('budgetLine:<v1 id>') or the currency")
    v1_id: str | None
    field: str = Field(description="what differs: content, target, count, item or sum")
    legacy: str | None
    v1: str | None


class RemarkCheck(ReportModel):
    """What verify compared of the comments (root budget notes among them) and the workspace rates (1.7.0):
    each comment's body by hash and its target, the count of comments per target, each rate item by the hash
    of its title, rate, unit and quantity, their count and their sums per currency. Differences first."""

    differences: list[RemarkDifference] = Field(default_factory=list)
    comments: int = Field(default=0, description="comments compared body by body")
    targets: int = Field(default=0, description="comment targets whose counts were compared")
    rates: int = Field(default=0, description="rate items compared")
    rate_sums: dict[str, int] = Field(default_factory=dict, description="the rates' sum per currency, minor units")


class ProjectReport(ReportModel):
    project_id: str
    v1_project_id: str | None
    name: str
    verdict: Verdict
    held_back_by: str | None = Field(
        default=None,
        description="set when the project never reached v1 because quarantine holds it back: the refused "
        "record, '<kind> <legacy id> (<code>)' (the project itself, or its space); its figures are all held back "
        "(1.2.0)",
    )
    phases: list[PhaseSummary]
    accounts: list[AccountSummary]
    tags: list[TagSummary]
    actuals: list[ActualsSum]
    differences: list[Difference]
    library: list[LibraryDifference] = Field(description="settings that differ: the likely cause of differences")
    tree: list[TreeNode]
    transactions: list[TransactionDifference] = Field(
        default_factory=list,
        description="actuals whose v1 transaction differs or is gone, and v1 transactions unknown to the crosswalk "
        "(1.3.0)",
    )
    notes: list[str] = Field(default_factory=list, description="what could not be compared, and why")
    purchase_orders: OrdersReport | None = Field(
        default=None, description="the project's purchase orders on both sides; null when it has none (1.7.0)"
    )

    def inexact_tag_figures(self) -> list[tuple[str, str, str, Figure]]:
        """(tag, "total" or "fringe", phase name, figure) of every tag figure that is not exact."""
        names = {p.v1_phase_id or p.legacy_phase_id: p.name for p in self.phases}
        return [
            (tag.name, what, names.get(phase_id, phase_id), figure)
            for tag in self.tags
            for what, figures in (("total", tag.totals), ("fringe", tag.fringes))
            for phase_id, figure in figures.items()
            if figure.verdict is not Verdict.EXACT
        ]


class Duplicate(ReportModel):
    legacy_id: str
    scope: str
    v1_ids: list[str]


class QuarantinedRecord(ReportModel):
    kind: str
    scope: str
    legacy_id: str
    code: str
    message: str


class KindLedger(ReportModel):
    """The closed ledger of one kind: every source record in exactly one bucket, and the set check."""

    kind: str
    source: int
    migrated: int
    unchanged: int
    quarantined: dict[str, int] = Field(description="refused records of this kind, by error code")
    held_back: dict[str, int] = Field(
        default_factory=dict,
        description="records not on v1 because a refused record above them (project, space, account line, "
        "actual) holds them back, by that record: '<kind> <legacy id> (<code>)' (1.2.0)",
    )
    not_carried: dict[str, int] = Field(
        default_factory=dict,
        description="records the bridge does not write to v1, by the reason given in `inventory` (1.6.0)",
    )
    pending: int
    unaccounted: int = Field(
        description="source - (migrated + unchanged + quarantined + held_back + not_carried + pending); 0 when closed"
    )
    closed: bool
    ok: int
    missing: list[str] = Field(description="legacy ids in the source with no object on the target")
    unexpected: list[str] = Field(description="v1 ids on the target the crosswalk does not know")
    duplicated: list[Duplicate]
    checked_on_target: bool = Field(description="false when the target could not be listed for this kind")


class HeldBackMoney(ReportModel):
    """Money of one project's phase (or its actuals) that quarantine keeps off v1, in workspace minor units."""

    project_id: str
    project_name: str
    phase_id: str | None = Field(description="legacy phase id; null for the actuals ledger row")
    phase_name: str = Field(description="the phase's name, or 'actuals' for the project's actuals ledger")
    phase_type: str
    legacy_currency: str = Field(description="currency the legacy figure is in (the phase's, or the actuals')")
    rate: str = Field(description="workspace units per legacy-currency unit used for the conversion (A09)")
    minor: int = Field(description="amount held back, minor units of the workspace currency")
    currency: str
    held_back_by: str | None = Field(
        description="the refused record holding all of it back, or null for the quarantined records inside"
    )


class HeldBackGroup(ReportModel):
    """One refused record and what it holds back, per kind (itself included)."""

    label: str = Field(description="'<kind> <legacy id> (<code>)'")
    kind: str
    scope: str
    legacy_id: str
    code: str
    records: dict[str, int] = Field(description="records of each kind not on v1 because of it, itself included")


class HeldBackTotal(ReportModel):
    """The money quarantine keeps off v1 in one currency for one reason, over every project (1.9.0).

    Amounts are minor units written as decimal strings: exact for any reader, past 2^53 too (a JSON number
    there is rounded by every reader that parses into a double).
    """

    currency: str = Field(description="the workspace currency the amounts are in")
    reason: str = Field(
        description="the error code of the refused record holding the figure back whole (a project, space or "
        "phase refused), or 'quarantined records inside' for the refused lines and actuals within a total"
    )
    actuals_minor: str = Field(description="the actuals ledger's money held back, minor units as a string")
    phase_totals_minor: dict[str, str] = Field(
        description="per phase name, what that phase's totals hold back, minor units as strings (phase totals "
        "overlap: estimate, working and actual are never added together)"
    )


class HeldBackReason(ReportModel):
    """The refused records of one error code and the records they keep off v1, themselves included (1.9.0)."""

    reason: str = Field(description="the error code")
    refused: int = Field(
        description="refused records heading a group (a refused record held back by another is in its group)"
    )
    records: dict[str, int] = Field(description="per kind: records not on v1 because of them, themselves included")


class HeldBack(ReportModel):
    """Everything quarantine keeps off v1: records per kind and money per project, phase and currency."""

    summary: str = Field(description="one sentence: records and money held back (the reports' headline)")
    records: dict[str, int] = Field(description="per kind: refused records plus the records they hold back")
    money: list[HeldBackMoney] = Field(description="per project and phase (and actuals): the money held back")
    groups: list[HeldBackGroup] = Field(description="each refused record with what it holds back")
    by_currency: list[HeldBackTotal] = Field(
        default_factory=list, description="the money per currency and reason, over every project (1.9.0)"
    )
    by_reason: list[HeldBackReason] = Field(
        default_factory=list, description="the records per reason (error code), over every project (1.9.0)"
    )


NOTHING_HELD_BACK = "nothing held back by quarantine"


class Totals(ReportModel):
    exact: int
    rounding: int
    quarantine: int
    not_carried: int = Field(default=0, description="figures v1 cannot hold: no published write (1.1.0)")
    mismatch: int


class InventoryEntry(ReportModel):
    """What the source holds of one kind the bridge does not write, and why (1.6.0)."""

    kind: str
    label: str
    scope: str = Field(description="'workspace' or 'project': where the kind's records live")
    count: int
    money: dict[str, str] = Field(description="the records' amounts per currency, exact decimal text")
    bytes: int = Field(description="the published sizes of the files, summed")
    unreadable: int = Field(description="records counted but left out of the sums: no readable amount or size")
    unread: str = Field(default="", description="why a list of the kind was refused: its records are uncounted")
    why: str


class DocumentDifference(ReportModel):
    """One v1 document that does not prove its legacy file: its bytes, size, type or link (1.7.0)."""

    kind: str = Field(description="receipt, contact_file or tax_document")
    scope: str = Field(description="the legacy project id, or empty for the workspace")
    legacy_id: str = Field(description="<legacy file id>@<link kind>:<legacy record id>")
    v1_id: str
    problem: str = Field(description="bytes differ (SHA-256), size differs, type differs, not linked, ...")
    legacy: str = Field(description="what the legacy side holds (a hash, a size, a type, the expected link)")
    v1: str = Field(description="what v1 holds now")


class Reconciliation(ReportModel):
    """The whole report: ``reconciled`` is the answer; the rest says why."""

    schema_version: Literal["1.9.0"] = SCHEMA_VERSION
    reconciled: bool
    held_back: HeldBack = Field(
        default=HeldBack(summary=NOTHING_HELD_BACK, records={}, money=[], groups=[]),
        description="what quarantine keeps off v1, in records and money: explained only because it is shown (1.2.0)",
    )
    fail_on: FailOn
    generated_at: str
    migration: str
    run: str | None = Field(description="id of the latest run in the state file, the one verified")
    source_workspace: str
    target_workspace: str
    currency: str
    verdicts: Totals
    projects: list[ProjectReport]
    library: list[LibraryDifference] = Field(
        default_factory=list,
        description="workspace library items (currencies, fringes, globals, tags) whose v1 values differ from "
        "what the runs wrote: each is a mismatch (1.4.0)",
    )
    ledger: list[KindLedger]
    remarks: RemarkCheck = Field(
        default_factory=RemarkCheck,
        description="comments, root budget notes and workspace rates compared with what the mapping sends (1.7.0)",
    )
    inventory: list[InventoryEntry] = Field(
        default_factory=list,
        description="every kind the source holds that the bridge does not write, counted, with why (1.6.0)",
    )
    unlisted: str = Field(default="", description="what the source holds but publishes no way to list (1.6.0)")
    documents: list[DocumentDifference] = Field(
        default_factory=list,
        description="documents whose v1 bytes, size, type or link differ from their legacy file (1.7.0)",
    )
    quarantine: list[QuarantinedRecord]
    requests: dict[str, int] = Field(description="requests verification sent, by surface")
    assumptions: list[str] = Field(
        default_factory=list, description="the guesses (bridge/assumptions.py) verification relies on: 'id topic'"
    )
    notes: list[str] = Field(default_factory=list)


def json_schema() -> str:
    """The JSON Schema of ``reconciliation.json`` at this version, as indented text."""
    schema = Reconciliation.model_json_schema()
    schema["$id"] = f"https://workspace-bridge.invalid/schemas/reconciliation/{SCHEMA_VERSION}"
    return json.dumps(schema, indent=2, sort_keys=True) + "\n"
