"""Line tags: v1 publishes no write for a budget line's tags, so each legacy tag total is money not carried."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from bridge.verify.amounts import amount
from bridge.verify.compare import Verdict
from bridge.verify.convert import convert
from bridge.verify.project import PhasePlan
from bridge.verify.schema import Figure, TagSummary
from bridge.verify.totals import LegacyProject
from mappings.errors import MappingError
from mappings.kinds import Kind
from mappings.refs import RecordRef


def tag_summaries(
    legacy: LegacyProject,
    plans: Sequence[PhasePlan],
    currency: str,
    quarantine: Mapping[tuple[str, str, str], str],
    v1_tag: Callable[[str], str | None],
) -> tuple[list[TagSummary], list[str]]:
    """Each legacy tag's totals and fringe totals, as money not carried, and notes saying so.

    v1 publishes no write for a budget line's tags (BudgetLineCreate and BudgetLineUpdate have no tag
    field), so no v1 line carries a migrated tag and no v1 tag total can equal the legacy one: each
    figure is the legacy amount with the verdict not_carried, and v1 is not read for it.
    """
    summaries = []
    notes = []
    compared = [p for p in plans if p.legacy.type != "rollup"]
    carried_not = 0
    for tag_id, totals in sorted(legacy.tags.items()):
        code = quarantine.get((Kind.TAG, legacy.budget.project_id, tag_id))
        if code is not None:
            notes.append(f"tag {tag_id!r} of project {legacy.budget.project_id} is quarantined ({code})")
            continue
        amounts: dict[str, Figure] = {}
        fringes: dict[str, Figure] = {}
        for plan in compared:
            for out, raw in (
                (amounts, totals.phase_totals.get(plan.legacy.id, 0)),
                (fringes, totals.fringe_totals.get(plan.legacy.id, 0)),
            ):
                out[plan.v1_id] = _tag_figure(tag_id, plan, raw, currency)
        carried_not += sum(abs(f.legacy_minor or 0) for f in amounts.values())
        summaries.append(TagSummary(name=tag_id, v1_tag_id=v1_tag(tag_id), totals=amounts, fringes=fringes))
    if summaries:
        notes.append(
            f"project {legacy.budget.project_id}: {len(summaries)} line tags not carried (no published write "
            f"for a budget line's tags on v1); their tag totals come to {amount(carried_not, currency)} "
            "across phases"
        )
    return summaries, notes


def _tag_figure(tag: str, plan: PhasePlan, raw: object, currency: str) -> Figure:
    """A legacy tag total as money not carried: v1 holds no tag on any line, so there is no v1 figure."""
    try:
        legacy = convert(raw if isinstance(raw, int | float) else 0, plan.rate, RecordRef(Kind.TAG, tag), "totals")
        legacy_minor: int | None = legacy.minor
        amount: str | None = str(legacy.amount)
    except MappingError:
        legacy_minor, amount = None, None
    return Figure(
        legacy_amount=amount,
        legacy_currency=plan.rate.currency,
        rate=str(plan.rate.rate),
        legacy_minor=legacy_minor,
        v1_minor=None,
        currency=currency,
        difference_minor=None,
        verdict=Verdict.EXACT if legacy_minor == 0 else Verdict.NOT_CARRIED,
        rounding_bound_minor="0",
        quarantined_minor=0,
    )
