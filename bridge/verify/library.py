"""Comparing what the totals are computed from: project globals, fringes and phase exchange rates, and the
workspace library items the runs wrote.

A total that differs says where; a setting that differs says why. Each legacy global, fringe and phase
currency is compared with the v1 project copy the crosswalk names (A18: the copy the calculation uses),
numbers as Decimals so ``7.8`` and ``=7.80`` agree. A setting that differs fails verification even when no
total shows it yet: the next edit on v1 would compute differently from the source.

The workspace items (currencies, fringes, globals, tags) are what a new project on v1 copies: each is compared
field by field with what the runs wrote to it (the journal's bodies, in the order they were sent), since a
workspace item is made from one project's values among several, not from one legacy record.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from decimal import Decimal, InvalidOperation

from bridge.clients.models import LibraryItem, Phase
from bridge.verify.schema import LibraryDifference
from mappings.kinds import Kind
from mappings.records import ProjectBudget
from state.journal import members_of
from state.models import IntentRow

Lookup = Callable[[str, str], str | None]
"""(kind, legacy id) -> v1 id in this project's scope."""


def _text(value: object) -> str | None:
    if value is None:
        return None
    text = str(value).strip()
    return text.removeprefix("=").strip() if text else None


def _same(legacy: object, v1: object) -> bool:
    """Equal as numbers when both read as numbers, else as formula text without the leading '='."""
    left, right = _text(legacy), _text(v1)
    try:
        return left is not None and right is not None and Decimal(left) == Decimal(right)
    except InvalidOperation:
        return (left or "").replace(" ", "") == (right or "").replace(" ", "")


def _differences(
    kind: str,
    legacy_id: str,
    name: str,
    v1_id: str | None,
    *,
    fields: Mapping[str, object] | None,
    pairs: Sequence[tuple[str, object, str]],
    absent: str,
) -> list[LibraryDifference]:
    """Each (field, legacy value, v1 field) of ``pairs`` that differs from v1's ``fields``; one ``absent`` row
    when v1 holds no such item (``fields`` None)."""
    if fields is None:
        return [
            LibraryDifference(
                kind=kind, legacy_id=legacy_id, v1_id=v1_id, name=name, field=absent, legacy="present", v1=None
            )
        ]
    return [
        LibraryDifference(
            kind=kind,
            legacy_id=legacy_id,
            v1_id=v1_id,
            name=name,
            field=field,
            legacy=_text(legacy_value),
            v1=_text(fields.get(v1_field)),
        )
        for field, legacy_value, v1_field in pairs
        if not (legacy_value is None and fields.get(v1_field) is None) and not _same(legacy_value, fields.get(v1_field))
    ]


def library_differences(
    budget: ProjectBudget,
    lookup: Lookup,
    copies: Mapping[str, Sequence[LibraryItem]],
    v1_phases: Sequence[Phase],
) -> list[LibraryDifference]:
    """Every global, fringe and phase-currency setting of the project that differs between the two sides."""
    by_id = {kind: {item.id: item.model_extra or {} for item in items} for kind, items in copies.items()}
    out: list[LibraryDifference] = []

    def check(kind: str, legacy_id: str, name: str, pairs: Sequence[tuple[str, object, str]]) -> None:
        v1_id = lookup(kind, legacy_id)
        fields = by_id.get(kind, {}).get(v1_id or "")
        out.extend(_differences(kind, legacy_id, name, v1_id, fields=fields, pairs=pairs, absent="(copy)"))

    for item in budget.globals_:
        check(Kind.GLOBAL, item.id, item.symbol or item.id, [("formula", item.formula, "formula")])
    for fringe in budget.fringes:
        check(
            Kind.FRINGE,
            fringe.id,
            fringe.code or fringe.id,
            [("rate", fringe.rate, "rate"), ("cutoff", fringe.cutoff, "cutoff")],
        )
    currencies = by_id.get(Kind.CURRENCY, {})
    for phase in budget.phases:
        if phase.currency is None or phase.currency.exchange_rate is None:
            continue
        v1_phase = next((p for p in v1_phases if p.id == lookup(Kind.PHASE, phase.id)), None)
        copy = currencies.get(v1_phase.base_currency_id or "") if v1_phase else None
        v1_rate = copy.get("rateToUSD") if copy is not None else None
        identity = v1_rate is None and _same(phase.currency.exchange_rate, 1)  # no copy = workspace currency
        if not identity and not _same(phase.currency.exchange_rate, v1_rate):
            out.append(
                LibraryDifference(
                    kind="phase",
                    legacy_id=phase.id,
                    v1_id=v1_phase.id if v1_phase else None,
                    name=phase.name or phase.id,
                    field="currency.exchangeRate",
                    legacy=_text(phase.currency.exchange_rate),
                    v1=_text(v1_rate),
                )
            )
    return out


def workspace_differences(
    kind: str,
    written: Mapping[str, Mapping[str, object]],
    lookup: Callable[[str], str | None],
    items: Sequence[LibraryItem],
) -> list[LibraryDifference]:
    """Each workspace item of ``kind`` whose v1 fields differ from what the runs wrote (``written``: name -> the
    fields, as the last write left them); ``lookup`` gives an item's v1 id by name (the crosswalk's key)."""
    held = {item.id: item.model_extra or {} for item in items}
    out: list[LibraryDifference] = []
    for name, fields in written.items():
        v1_id = lookup(name)
        pairs = [(field, value, field) for field, value in fields.items()]
        out += _differences(kind, name, name, v1_id, fields=held.get(v1_id or ""), pairs=pairs, absent="(item)")
    return out


def written_items(intents: Iterable[IntentRow]) -> dict[str, dict[str, object]]:
    """Per workspace item (by name, its crosswalk key): the fields the runs wrote to it, the later write over
    the earlier (``intents``: the done intents of one kind, oldest first)."""
    written: dict[str, dict[str, object]] = {}
    for intent in intents:
        members = members_of(intent)
        body = json.loads(intent.body)
        if not intent.scope and len(members) == 1 and isinstance(body, dict):
            written.setdefault(members[0], {}).update(body)
    return written
