"""What a message, a note or a report shows of a source value: printable, bounded, never the raw bytes."""

from __future__ import annotations

import pytest

from mappings.errors import MAX_VALUE_CHARS, ErrorCode, MappingError, shown_value
from mappings.kinds import Kind
from mappings.notes import not_carried
from mappings.printable import escaped
from mappings.refs import RecordRef

REF = RecordRef(Kind.LINE, "l1", "p1")


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("Café crew", "Café crew"),
        ("Crew \ud800", "Crew \\ud800"),
        ("Cat\x00ering", "Cat\\x00ering"),
        ("\x1b[31mred", "\\x1b[31mred"),
        ("Invoice \u202efdp.exe", "Invoice \\u202efdp.exe"),
        ("\ufeffBOM", "\\ufeffBOM"),
    ],
)
def test_unprintable_characters_are_shown_as_escapes(text: str, shown: str) -> None:
    """Printable text is unchanged; each unprintable character becomes its backslash escape."""
    assert escaped(text) == shown
    assert escaped(text).isprintable()


@pytest.mark.parametrize(
    "value",
    ["x" * 1_000_000, ["x" * 1_000_000], {"a": [[[1]]]}, "\ud800" * 1000, True, 1e308, -0.0],
    ids=["megabyte text", "megabyte in a list", "nested", "surrogates", "true", "1e308", "-0"],
)
def test_a_message_is_printable_and_bounded_whatever_the_value(value: object) -> None:
    """A value of any size or shape is cut to MAX_VALUE_CHARS and escaped before a message shows it."""
    error = MappingError(ErrorCode.FIELD_TYPE, REF, "description\x00", value)
    assert len(shown_value(value)) <= MAX_VALUE_CHARS
    assert error.message.isprintable()
    assert error.field == "description\\x00"
    assert len(error.message) < 2 * MAX_VALUE_CHARS + 300


def test_a_refused_id_is_shown_escaped_in_the_record_reference() -> None:
    """A record reference never prints an id's raw control or bidi characters."""
    assert str(RecordRef(Kind.LINE, "l\u202e1", "p\x001")) == "line 'l\\u202e1' in project 'p\\x001'"


def test_a_note_keeps_source_text_printable() -> None:
    """A carried value with a bidi override is listed escaped, so it cannot reorder the plan's text."""
    note = not_carried(REF, "contactTitle", "Dr \u202eevil")
    assert note.old == "Dr \\u202eevil"
    assert str(note).isprintable()
