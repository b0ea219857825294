"""The assumptions registry is the one place guesses live: ids are unique and every entry is complete."""

import json

import pytest
from click.testing import CliRunner

from bridge.assumptions import REGISTRY, by_id, used_by
from bridge.cli import cli


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


def test_the_command_prints_the_registry_as_json_for_a_machine() -> None:
    """`bridge assumptions --json`: every entry, in order, with the fields the table shows and who uses it."""
    result = CliRunner().invoke(cli, ["assumptions", "--json"])
    assert result.exit_code == 0
    listed = json.loads(result.output)
    assert [entry["id"] for entry in listed] == [entry.id for entry in REGISTRY]
    assert listed[0] == {
        "id": REGISTRY[0].id,
        "topic": REGISTRY[0].topic,
        "text": REGISTRY[0].text,
        "basis": REGISTRY[0].basis,
        "used_by": list(REGISTRY[0].used_by),
    }
