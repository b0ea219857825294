"""The assumptions registry is the one place guesses live: ids are unique and every entry is complete."""

import pytest

from bridge.assumptions import REGISTRY, by_id, used_by


def test_ids_are_unique_and_entries_complete() -> None:
    """Every entry has a distinct id, a text, a basis and at least one user."""
    ids = [entry.id for entry in REGISTRY]
    assert len(ids) == len(set(ids))
    for entry in REGISTRY:
        assert entry.text
        assert entry.basis
        assert entry.used_by


def test_lookup_by_component() -> None:
    """A component's entries are found by prefix, and an unknown id names itself."""
    assert by_id("A09") in used_by("mappings")
    assert all(any(u.startswith("emulator") for u in e.used_by) for e in used_by("emulator"))
    with pytest.raises(KeyError, match="A999"):
        by_id("A999")
