"""Text fields: the checks every name and description passes before it is sent.

Text is compared, never repaired: a name that is not NFC or holds control characters would look equal to
another and not be, so it is refused with the field and value named rather than silently rewritten.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Final

from mappings.errors import ErrorCode, MappingError
from mappings.refs import RecordRef

NAME_LIMIT: Final = 255
"""v1 BudgetLineCreate.description and phase names are at most 255 characters (V-SPEC)."""
TAG_NAME_LIMIT: Final = 100
DESCRIPTION_LIMIT: Final = 500
ALIAS_LIMIT: Final = 64

# Unicode category Cc is exactly U+0000-U+001F and U+007F-U+009F; tab and line feed are ordinary text.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
# A lone UTF-16 surrogate half is not a character: it cannot be encoded, stored or sent.
_SURROGATE = re.compile("[\ud800-\udfff]")


def check_text(value: str | None, ref: RecordRef, field: str, *, limit: int, required: bool = False) -> str | None:
    """The text unchanged when it is fit to send; None passes only when not required."""
    if value is None or value == "":
        if required:
            raise MappingError(ErrorCode.TEXT_EMPTY, ref, field, value)
        return value
    if required and not value.strip():
        raise MappingError(ErrorCode.TEXT_EMPTY, ref, field, value)
    if value.isascii():  # most text, told by a flag: no surrogate in it and NFC already, so two checks fewer
        if _CONTROL.search(value):
            raise MappingError(ErrorCode.TEXT_CONTROL_CHARACTERS, ref, field, value)
    elif _SURROGATE.search(value):
        raise MappingError(ErrorCode.TEXT_INVALID_UNICODE, ref, field, value)
    elif _CONTROL.search(value):
        raise MappingError(ErrorCode.TEXT_CONTROL_CHARACTERS, ref, field, value)
    elif not unicodedata.is_normalized("NFC", value):
        raise MappingError(ErrorCode.TEXT_NOT_NFC, ref, field, value)
    if len(value) > limit:
        raise MappingError(ErrorCode.TEXT_TOO_LONG, ref, field, value, f"{len(value)} characters, limit {limit}")
    return value


def required_text(value: str | None, ref: RecordRef, field: str, *, limit: int = NAME_LIMIT) -> str:
    """A required name, checked."""
    checked = check_text(value, ref, field, limit=limit, required=True)
    if checked is None:  # pragma: no cover - check_text raises TEXT_EMPTY first
        raise MappingError(ErrorCode.TEXT_EMPTY, ref, field, value)
    return checked
