"""Workspace-wide contacts (A07): migrated once, referenced by lines and actuals through the crosswalk."""

from __future__ import annotations

from typing import Required, TypedDict

from mappings.enums import CONTACT_TYPES
from mappings.errors import ErrorCode, MappingError
from mappings.kinds import Kind
from mappings.money import Money, to_money
from mappings.notes import Note, not_carried, rounding
from mappings.private import private_fields
from mappings.records import Contact
from mappings.refs import WORKSPACE, RecordRef
from mappings.results import Mapped
from mappings.shapes import check_refusal
from mappings.text import NAME_LIMIT, check_text, required_text


class ContactCreate(TypedDict, total=False):
    name: Required[str]
    company: str
    title: str
    email: str
    phone: str
    address: str
    type: str
    rate: Money


def map_contact(contact: Contact, currency: str, *, private: bool = False) -> Mapped[ContactCreate]:
    """A contact's create body; ``currency`` is the workspace currency its legacy rate is expressed in.
    ``private`` (``--with contact-private``) carries its phone and address (``mappings.private``, A101)."""
    check_refusal(contact)
    ref = RecordRef(Kind.CONTACT, contact.id, WORKSPACE)
    notes: list[Note] = []
    # A contact known only by company or email keeps that as its name rather than being dropped.
    name = required_text(contact.name or contact.company or contact.email, ref, "name", limit=NAME_LIMIT)
    body = ContactCreate(name=name)
    # contactTitle has no field in the published ContactCreate: not carried, and said so.
    if check_text(contact.contact_title, ref, "contactTitle", limit=NAME_LIMIT):
        notes.append(not_carried(ref, "contactTitle", contact.contact_title or ""))
    for field, value, key in (
        ("company", contact.company, "company"),
        ("jobTitle", contact.job_title, "title"),
        ("email", contact.email, "email"),
    ):
        checked = check_text(value, ref, field, limit=NAME_LIMIT)
        if checked:
            body[key] = checked  # type: ignore[literal-required]
    if contact.type is not None:
        kind = CONTACT_TYPES.get(contact.type)
        if kind is None:
            raise MappingError(ErrorCode.CONTACT_TYPE_UNKNOWN, ref, "type", contact.type)
        body["type"] = kind
    if contact.rate is not None:
        conversion = to_money(contact.rate, currency, ref, "rate")
        body["rate"] = conversion.money
        if conversion.rounding:
            notes.append(
                rounding(ref, "rate", conversion.exact, conversion.exact + conversion.rounding, conversion.rounding)
            )
    carried, withheld = private_fields(contact.secure_info, ref, carry=private)
    body.update(carried)  # type: ignore[typeddict-item]  # phone and address only (``private.CARRIED``)
    notes.extend(withheld)
    return Mapped(ref, body, tuple(notes))
