"""What the quarantined source records add to each legacy total: the "explained by quarantine" amounts.

A quarantined line (with its whole subtree) or actual never reached v1, but the legacy surface still
counts it (A27: an unreadable value counts as empty, a readable one counts). So every legacy total above
it is larger than its v1 counterpart by exactly what it adds:

- an account (and the project) by the quarantined lines and actuals anywhere under it;
- a subtotal by the quarantined siblings it sums (A26: since the previous subtotal, or every sibling above
  with ``subtotalSumAllAbove``), since a subtotal adds nothing to its parent;
- a rollup phase by its formula over its input phases' contributions (sum, or first minus the rest).

Markups are not followed: a markup over a quarantined sibling differs by a percentage of it, reported as
a mismatch on the markup line rather than explained away.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal

from bridge.verify.convert import Converted
from mappings.records import BudgetLine


def _amounts() -> defaultdict[str, defaultdict[str, int]]:
    return defaultdict(lambda: defaultdict(int))


def _slack() -> defaultdict[str, defaultdict[str, Decimal]]:
    return defaultdict(lambda: defaultdict(Decimal))


@dataclass(slots=True)
class Contributions:
    """Per node key and v1 phase id: the quarantined amount inside it, and the precision that amount carries."""

    amounts: defaultdict[str, defaultdict[str, int]] = field(default_factory=_amounts)
    slack: defaultdict[str, defaultdict[str, Decimal]] = field(default_factory=_slack)

    def add(self, key: str, figures: Mapping[str, Converted]) -> None:
        for phase_id, converted in figures.items():
            self.amounts[key][phase_id] += converted.minor
            self.slack[key][phase_id] += converted.precision + abs(converted.rounding)


def top_quarantined(lines: Iterable[BudgetLine], parents: Mapping[str, str], quarantined: Collection[str]) -> set[str]:
    """The quarantined lines with no quarantined ancestor: each stands for its whole subtree."""
    tops: set[str] = set()
    for line in lines:
        if line.id not in quarantined:
            continue
        seen: set[str] = set()
        current = parents.get(line.id)
        while current is not None and current not in seen and current not in quarantined:
            seen.add(current)
            current = parents.get(current)
        if current is None or current in seen:
            tops.add(line.id)
    return tops


def contributions(
    root: str,
    lines: Sequence[BudgetLine],
    *,
    parents: Mapping[str, str],
    figures: Mapping[str, Mapping[str, Converted]],
    quarantined_lines: Collection[str],
    quarantined_actuals: Iterable[tuple[str, Mapping[str, Converted]]],
    rollups: Mapping[str, Sequence[tuple[int, str]]],
) -> Contributions:
    """Contributions of quarantined records to every node (by key) and the project (``root``).

    ``parents`` maps every line id to its parent's key (``root`` at the top); ``figures`` holds every line's
    converted legacy totals; ``quarantined_actuals`` gives (line id the actual is coded to, its converted
    amount in the actual phases); ``rollups`` maps a rollup phase to (sign, input phase) pairs.
    """
    found = Contributions()
    chain_cache: dict[str, list[str]] = {}

    def ancestors(line_id: str) -> list[str]:
        if line_id not in chain_cache:
            chain: list[str] = []
            current = parents.get(line_id)
            while current is not None and current not in chain:
                chain.append(current)
                current = parents.get(current) if current != root else None
            chain_cache[line_id] = chain
        return chain_cache[line_id]

    tops = top_quarantined(lines, parents, quarantined_lines)
    for line_id in sorted(tops):
        found.add(line_id, figures.get(line_id, {}))
        for key in ancestors(line_id):
            found.add(key, figures.get(line_id, {}))
    for line_id, amounts in quarantined_actuals:
        for key in [line_id, *ancestors(line_id)]:
            found.add(key, amounts)
    _subtotals(lines, found)
    for phase_id, terms in rollups.items():
        found.amounts[root][phase_id] = sum(sign * found.amounts[root][source] for sign, source in terms)
        found.slack[root][phase_id] = sum((found.slack[root][source] for _sign, source in terms), Decimal(0))
    return found


def _subtotals(lines: Sequence[BudgetLine], found: Contributions) -> None:
    """A subtotal holds what its summed siblings hold (A26); it adds nothing upward, so this runs last."""
    siblings: dict[str | None, list[BudgetLine]] = defaultdict(list)
    for line in lines:
        siblings[line.parent_id].append(line)
    for group in siblings.values():
        since_last: list[str] = []
        above: list[str] = []
        for line in sorted(group, key=lambda item: item.position):
            if line.type != "subtotal":
                since_last.append(line.id)
                above.append(line.id)
                continue
            summed = above if (line.model_extra or {}).get("subtotalSumAllAbove") else since_last
            for key in summed:
                for phase_id, minor in list(found.amounts[key].items()):
                    found.amounts[line.id][phase_id] += minor
                    found.slack[line.id][phase_id] += found.slack[key][phase_id]
            since_last = []
