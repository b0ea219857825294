"""The transaction level of the drill-down: each legacy actual against the v1 transaction it became.

``actual_sums`` (``project.py``) compares actuals as one sum per currency, and the actual phase compares
them per budget line; neither says which transaction moved. This pairs every migrated legacy actual with its
v1 copy through the crosswalk and lists the ones whose amount, currency or coded line differs, the ones v1
no longer holds, and v1 transactions of the project the crosswalk does not know. It reads nothing (the
legacy actuals and the v1 transaction list are already read for the sums) and changes no verdict: it only
says where a difference of the sums or of the actual phase sits.

Quarantined actuals are left out: they never reached v1 and are listed as held back.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal

from bridge.verify.convert import PhaseRate, as_counted, convert_amount
from bridge.verify.drill import Presence
from bridge.verify.project import LookupV1
from bridge.verify.schema import TransactionDifference
from bridge.verify.totals import LegacyProject, V1Project


def transaction_differences(
    legacy: LegacyProject,
    v1: V1Project,
    lookup: LookupV1,
    currency: str,
    quarantined: Mapping[tuple[str, str], str],
) -> list[TransactionDifference]:
    """Every migrated actual whose v1 transaction differs or is gone, then the v1 transactions unknown to the
    crosswalk; legacy amounts in minor units of ``currency`` (the legacy actuals' currency, A39 as counted)."""
    own = PhaseRate(currency, Decimal(1), currency)
    by_id = {t.id: t for t in v1.transactions}
    known: set[str] = set()
    out: list[TransactionDifference] = []
    for actual in legacy.actuals:
        v1_id = lookup("actual", actual.id)
        if ("actual", actual.id) in quarantined or v1_id is None:
            continue  # held back (listed as such), or not migrated yet (the ledger counts it pending)
        known.add(v1_id)
        # A split is coded per part; its transaction is then coded to no line of its own.
        line = None if actual.subactuals else actual.account_id
        row = TransactionDifference(
            legacy_id=actual.id,
            v1_id=v1_id,
            description=actual.description,
            legacy_minor=convert_amount(as_counted(actual.amount), own).minor,
            currency=currency,
            legacy_line_id=line,
            expected_v1_line_id=lookup("line", line) if line else None,
            presence=Presence.MISSING,
        )
        found = by_id.get(v1_id)
        if found is not None:
            row = row.model_copy(
                update={
                    "v1_minor": found.amount.amount,
                    "v1_currency": found.amount.currency,
                    "v1_line_id": found.budget_line_id,
                    "presence": Presence.BOTH,
                }
            )
            same_money = (row.v1_currency, row.v1_minor) == (currency, row.legacy_minor)
            if same_money and (line is None or row.v1_line_id == row.expected_v1_line_id):
                continue
        out.append(row)
    out += [
        TransactionDifference(
            v1_id=t.id,
            v1_minor=t.amount.amount,
            v1_currency=t.amount.currency,
            currency=currency,
            v1_line_id=t.budget_line_id,
            presence=Presence.UNEXPECTED,
        )
        for t in v1.transactions
        if t.id not in known
    ]
    return out
