"""Quarantine lists records that were not migrated, with stable codes, for operators to fix."""

from __future__ import annotations

import pytest

from state import QuarantineEntry, StateStore
from state.quarantine import MAX_VALUE_CHARS


def test_entries_keep_code_message_field_and_value(store: StateStore) -> None:
    """A quarantined record keeps its kind, scope, legacy id, code, message, field and value."""
    entry = QuarantineEntry("lines", "L1", "amount_not_a_number", "rate 'NaN' is not a number", "P1", "rate", "NaN")
    store.quarantine.add([entry])
    [row] = store.quarantine.entries()
    assert (row.kind, row.scope, row.legacy_id, row.code, row.message, row.field, row.value) == (
        "lines",
        "P1",
        "L1",
        "amount_not_a_number",
        "rate 'NaN' is not a number",
        "rate",
        "NaN",
    )


def test_the_same_record_and_code_again_updates_one_entry(store: StateStore) -> None:
    """A re-run that quarantines the same record for the same reason does not duplicate it."""
    store.quarantine.add([QuarantineEntry("lines", "L1", "too_long", "first", field="description")])
    store.quarantine.add([QuarantineEntry("lines", "L1", "too_long", "second", field="description")])
    assert [row.message for row in store.quarantine.entries()] == ["second"]


def test_counts_by_code_and_by_kind(store: StateStore) -> None:
    """Counts by code count entries; counts by kind count records (one record, two codes = one)."""
    store.quarantine.add(
        [
            QuarantineEntry("lines", "L1", "too_long", "m"),
            QuarantineEntry("lines", "L1", "amount_not_a_number", "m"),
            QuarantineEntry("lines", "L2", "too_long", "m", scope="P2"),
            QuarantineEntry("contacts", "C1", "validation", "m"),
        ]
    )
    assert store.quarantine.counts_by_code() == {"too_long": 2, "amount_not_a_number": 1, "validation": 1}
    assert store.quarantine.counts_by_kind() == {"lines": 2, "contacts": 1}


def test_a_huge_value_is_cut(store: StateStore) -> None:
    """An oversized offending value is stored cut to a readable length."""
    store.quarantine.add([QuarantineEntry("lines", "L1", "too_long", "m", value="x" * 10_000)])
    [row] = store.quarantine.entries()
    assert row.value == "x" * MAX_VALUE_CHARS


@pytest.mark.parametrize("field", ["apiKey", "webhookSecret", "token", "client_password"])
def test_a_field_named_like_a_credential_is_filed_without_its_value(store: StateStore, field: str) -> None:
    """A record refused for a credential-like field keeps the field name and code, never the value."""
    store.quarantine.add([QuarantineEntry("contacts", "C1", "validation", "bad", field=field, value="canary-9f8e7d")])
    [row] = store.quarantine.entries()
    assert (row.field, row.value) == (field, None)


@pytest.mark.parametrize("field", ["rate", "description", "accountId", "keyboard", "monkey_count"])
def test_ordinary_fields_keep_their_value(store: StateStore, field: str) -> None:
    """Fields whose names only contain such letters keep the offending value for the operator."""
    store.quarantine.add([QuarantineEntry("lines", "L1", "validation", "bad", field=field, value="1,000.00")])
    [row] = store.quarantine.entries()
    assert row.value == "1,000.00"
