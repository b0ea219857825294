"""A contact's private fields (A101): carried only on opt-in, each value left behind reported by field, and
no value ever in a note, a note's text or a record's repr."""

from __future__ import annotations

import pytest

from mappings.contacts import map_contact
from mappings.notes import NoteKind
from mappings.private import NEEDS_OPT_IN
from mappings.records import Contact

PHONE, ADDRESS = "+1 310-555-0142", "6925 Sunset Blvd, Los Angeles"
CONTACT = Contact.model_validate(
    {"id": "c1", "name": "Ana", "secureInfo": {"phone": PHONE, "address": ADDRESS, "taxIdLast4": "4821"}}
)


def _shown(notes: object) -> str:
    return repr(notes) + "".join(str(n) for n in notes)  # type: ignore[attr-defined]


def test_without_the_opt_in_each_value_is_a_not_carried_note_without_its_value() -> None:
    mapped = map_contact(CONTACT, "USD")
    assert mapped.body == {"name": "Ana"}
    assert [(n.kind, n.field, n.old, n.detail) for n in mapped.notes] == [
        (NoteKind.NOT_CARRIED, "secureInfo.phone", None, NEEDS_OPT_IN),
        (NoteKind.NOT_CARRIED, "secureInfo.address", None, NEEDS_OPT_IN),
        (NoteKind.NOT_CARRIED, "secureInfo.taxIdLast4", None, "no published write: tax ids reach v1 only as documents"),
    ]
    assert not [s for s in (PHONE, ADDRESS, "4821") if s in _shown(mapped.notes) + repr(CONTACT)]


def test_with_the_opt_in_phone_and_address_go_into_the_body() -> None:
    mapped = map_contact(CONTACT, "USD", private=True)
    assert mapped.body == {"name": "Ana", "phone": PHONE, "address": ADDRESS}
    assert [n.field for n in mapped.notes] == ["secureInfo.taxIdLast4"]


@pytest.mark.parametrize(
    ("secure_info", "notes"),
    [
        (None, []),
        ({}, []),
        ({"phone": "", "address": None}, []),
        ("555-0142", [("secureInfo.(record)", "secureInfo is not an object")]),
        ({"phone": 3105550142}, [("secureInfo.phone", "not text")]),
        ({"address": "x" * 2001}, [("secureInfo.address", "longer than 2000 characters")]),
        ({"phone": "555\x1b[31m0142"}, [("secureInfo.phone", "holds control characters")]),
    ],
)
def test_a_missing_or_malformed_value_is_reported_by_field_and_problem(
    secure_info: object, notes: list[tuple[str, str]]
) -> None:
    """Malformed private values refuse nothing (the contact still migrates) and are never repeated."""
    contact = Contact.model_validate({"id": "c1", "name": "Ana", "secureInfo": secure_info})
    mapped = map_contact(contact, "USD", private=True)
    assert mapped.body == {"name": "Ana"}
    assert [(n.field, n.detail) for n in mapped.notes] == notes
    assert all(n.old is None for n in mapped.notes)
    assert not [s for s in ("555", "3105550142", "x" * 20) if s in _shown(mapped.notes)]
