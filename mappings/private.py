"""A contact's private fields (legacy ``secureInfo``): phone and address carried only on opt-in (A101).

They are personal data. Without the opt-in each value the source holds is reported as not carried, by field
and never by value; with it, phone and address go into the contact's create and update bodies. The last four
digits of a tax id have no v1 contact field (tax ids reach v1 only through documents): always not carried,
never shown. No value of these fields is ever put in a note or an error: a malformed one is reported by its
field and what is wrong with it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from mappings.notes import NO_PUBLISHED_WRITE, Note, NoteKind
from mappings.refs import RecordRef

OPT_IN: Final = "contact-private"
NEEDS_OPT_IN: Final = f"needs --with {OPT_IN}"
CARRIED: Final = (("phone", "phone"), ("address", "address"))
"""(legacy secureInfo field, v1 ContactCreate field) of what the opt-in carries."""
TAX_ID: Final = "taxIdLast4"
TAX_ID_WHY: Final = "tax ids reach v1 only as documents"
TEXT_LIMIT: Final = 2000
"""No bound is published for phone or address; this only keeps runaway text out of requests."""


def _withheld(ref: RecordRef, field: str, why: str) -> Note:
    """A private value not carried: the note names the field and why, never the value."""
    return Note(NoteKind.NOT_CARRIED, ref, f"secureInfo.{field}", detail=why)


def _problem(value: object) -> str | None:
    """What keeps a private value from being sent as it is, in words that do not repeat it; None if fine."""
    if not isinstance(value, str):
        return "not text"
    if len(value) > TEXT_LIMIT:
        return f"longer than {TEXT_LIMIT} characters"
    if not value.isprintable():
        return "holds control characters"
    return None


def private_fields(secure_info: object, ref: RecordRef, *, carry: bool) -> tuple[dict[str, str], list[Note]]:
    """The body fields a contact's ``secureInfo`` gives (only with ``carry``) and the notes on what it does not
    carry. An empty value counts as none."""
    if secure_info is None:
        return {}, []
    if not isinstance(secure_info, Mapping):
        return {}, [_withheld(ref, "(record)", "secureInfo is not an object")]
    body: dict[str, str] = {}
    notes: list[Note] = []
    for legacy, v1 in CARRIED:
        value = secure_info.get(legacy)
        if value is None or value == "":
            continue
        problem = _problem(value)
        if not carry:
            notes.append(_withheld(ref, legacy, NEEDS_OPT_IN))
        elif problem is not None:
            notes.append(_withheld(ref, legacy, problem))
        else:
            body[v1] = str(value)
    if secure_info.get(TAX_ID) not in (None, ""):
        notes.append(_withheld(ref, TAX_ID, f"{NO_PUBLISHED_WRITE}: {TAX_ID_WHY}"))
    return body, notes
