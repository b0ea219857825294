"""The transaction level of the drill-down: each legacy actual against the v1 transaction it became.

``actual_sums`` (``project.py``) compares actuals as one sum per currency, and the actual phase compares
them per budget line; neither says which transaction moved. This pairs every migrated legacy actual with its
v1 copy through the crosswalk and lists the ones whose amount, currency or coded line differs, the ones v1
no longer holds, and v1 transactions of the project no migrated actual claims. It reads nothing (``actuals.py``
hands it each actual as its window is compared, with what the v1 side holds of its copy) and changes no
verdict: it only says where a difference of the sums or of the actual phase sits.

Quarantined actuals are left out: they never reached v1 and are listed as held back.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal

from bridge.clients.models import Transaction
from bridge.verify.convert import PhaseRate, as_counted, convert_amount
from bridge.verify.drill import Presence
from bridge.verify.index import Held
from bridge.verify.schema import TransactionDifference
from mappings.records import Actual

LineLookup = Callable[[str], str | None]
"""legacy line id -> the v1 line the crosswalk made of it, in the actual's project."""


def transaction_difference(
    actual: Actual, v1_id: str, found: Held | None, line_copy: LineLookup, currency: str
) -> TransactionDifference | None:
    """The migrated ``actual`` against its v1 copy ``v1_id`` (``found``: what v1 holds of it, None if gone);
    None when they agree. Legacy amounts in minor units of ``currency`` (the legacy actuals', A39 as counted)."""
    own = PhaseRate(currency, Decimal(1), currency)
    # A split is coded per part; its transaction is then coded to no line of its own.
    line = None if actual.subactuals else actual.account_id
    row = TransactionDifference(
        legacy_id=actual.id,
        v1_id=v1_id,
        description=actual.description,
        legacy_minor=convert_amount(as_counted(actual.amount), own).minor,
        currency=currency,
        legacy_line_id=line,
        expected_v1_line_id=line_copy(line) if line else None,
        presence=Presence.MISSING,
    )
    if found is None:
        return row
    same_money = (found.currency, found.amount) == (currency, row.legacy_minor)
    if same_money and (line is None or found.line_id == row.expected_v1_line_id):
        return None
    return row.model_copy(
        update={
            "v1_minor": found.amount,
            "v1_currency": found.currency,
            "v1_line_id": found.line_id,
            "presence": Presence.BOTH,
        }
    )


def unclaimed_transaction(transaction: Transaction, currency: str) -> TransactionDifference:
    """A v1 transaction of the project that no migrated legacy actual claims."""
    return TransactionDifference(
        v1_id=transaction.id,
        v1_minor=transaction.amount.amount,
        v1_currency=transaction.amount.currency,
        currency=currency,
        v1_line_id=transaction.budget_line_id,
        presence=Presence.UNEXPECTED,
    )
