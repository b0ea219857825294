"""Contacts' private fields (A101): with ``--with contact-private``, each migrated contact's phone and address
on v1 against what its legacy ``secureInfo`` carries, compared by SHA-256 and never shown.

A difference names the contact by id and the field, and says only whether each side holds a value
("present", "absent", "differs"): a hash of a phone number is no protection (there are too few numbers), so
not even the hashes reach a report. Without the opt-in nothing was carried and nothing is compared.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Mapping, Sequence

from bridge.verify.schema import LibraryDifference
from mappings.kinds import Kind
from mappings.private import CARRIED, private_fields
from mappings.records import Contact
from mappings.refs import WORKSPACE, RecordRef


def _digest(value: object) -> str | None:
    return None if value in (None, "") else hashlib.sha256(str(value).encode()).hexdigest()


def private_differences(
    contacts: Iterable[Contact], v1_rows: Sequence[object], lookup: Callable[[str], str | None]
) -> list[LibraryDifference]:
    """Each carried private field of each migrated contact whose v1 value is not the legacy one (a contact
    missing on v1 is the ledger's to report); ``lookup`` gives a contact's v1 id."""
    on_v1 = {str(row.get("id")): row for row in v1_rows if isinstance(row, Mapping)}
    out: list[LibraryDifference] = []
    for contact in contacts:
        v1_id = lookup(contact.id)
        row = on_v1.get(v1_id or "")
        if v1_id is None or row is None:
            continue
        carried, _ = private_fields(contact.secure_info, RecordRef(Kind.CONTACT, contact.id, WORKSPACE), carry=True)
        for _, field in CARRIED:
            legacy, v1 = _digest(carried.get(field)), _digest(row.get(field))
            if legacy != v1:
                out.append(
                    LibraryDifference(
                        kind=Kind.CONTACT.value,
                        legacy_id=contact.id,
                        v1_id=v1_id,
                        name=contact.id,
                        field=field,
                        legacy="present" if legacy else "absent",
                        v1=("differs" if legacy else "present") if v1 else "absent",
                    )
                )
    return out
