"""The bad-input catalogue: one stable code per way a legacy record can fail to map, and the error naming it.

A ``MappingError`` always says which record (kind, legacy id, scope), which field and which value, what is
wrong and what to do. It is raised by the single-record mappers and collected as a quarantine entry by the
batch mappers: a bad record never stops the good ones, and nothing of it is emitted as a request.
Codes are part of the public contract (reports, the state DB and runbooks quote them): never rename one.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Final

from mappings.printable import escaped
from mappings.refs import RecordRef

MAX_VALUE_CHARS: Final = 200
"""A value is echoed in a message up to this many characters, so a huge field cannot flood a report."""


class ErrorCode(StrEnum):
    """Stable catalogue codes. The value is what reports print."""

    # Numbers and money
    NUMBER_THOUSANDS_SEPARATOR = "number.thousands_separator"
    NUMBER_EXPONENT = "number.exponent"
    NUMBER_NAN = "number.nan"
    NUMBER_INFINITE = "number.infinite"
    NUMBER_EMPTY = "number.empty"
    NUMBER_MISSING = "number.missing"
    NUMBER_TOO_LARGE = "number.too_large"
    NUMBER_NOT_NUMERIC = "number.not_numeric"
    MONEY_TOO_PRECISE = "money.too_precise"
    CURRENCY_UNKNOWN = "currency.unknown"
    CURRENCY_MISSING = "currency.missing"
    EXCHANGE_RATE_INVALID = "currency.exchange_rate_invalid"
    # Text
    TEXT_EMPTY = "text.empty"
    TEXT_TOO_LONG = "text.too_long"
    TEXT_CONTROL_CHARACTERS = "text.control_characters"
    TEXT_NOT_NFC = "text.not_nfc"
    TEXT_INVALID_UNICODE = "text.invalid_unicode"
    # Shapes: a field the legacy description types, sent as another JSON type
    FIELD_TYPE = "record.field_type"
    RECORD_ID_INVALID = "record.id_invalid"
    # Identity and trees
    DUPLICATE_ID = "record.duplicate_id"
    TREE_SELF_PARENT = "tree.self_parent"
    TREE_CYCLE = "tree.cycle"
    TREE_MISSING_PARENT = "tree.missing_parent"
    TREE_PARENT_NOT_ACCOUNT = "tree.parent_not_account"
    TREE_ANCESTOR_QUARANTINED = "tree.ancestor_quarantined"
    TREE_TOO_DEEP = "tree.too_deep"
    LINE_TYPE_UNKNOWN = "line.type_unknown"
    MARKUP_TYPE_UNKNOWN = "markup.type_unknown"
    UNRESOLVED_REFERENCE = "reference.unresolved"
    # Phases
    PHASE_TYPE_UNKNOWN = "phase.type_unknown"
    ROLLUP_OPERATION_UNKNOWN = "rollup.operation_unknown"
    ROLLUP_NO_INPUTS = "rollup.no_inputs"
    ROLLUP_INPUT_UNKNOWN = "rollup.input_unknown"
    # Library
    FRINGE_UNITS_UNKNOWN = "fringe.units_unknown"
    GLOBAL_SYMBOL_INVALID = "global.symbol_invalid"
    GLOBAL_CYCLE = "global.cycle"
    FORMULA_SYNTAX = "formula.syntax"
    FORMULA_UNKNOWN_SYMBOL = "formula.unknown_symbol"
    TAG_CASE_DUPLICATE = "tag.case_duplicate"
    TAG_COLOR_INVALID = "tag.color_invalid"
    # Contacts and actuals
    CONTACT_TYPE_UNKNOWN = "contact.type_unknown"
    ACTUAL_TYPE_UNKNOWN = "actual.type_unknown"
    ACTUAL_STATUS_UNKNOWN = "actual.status_unknown"
    DATE_INVALID = "date.invalid"
    SPLIT_SUM_MISMATCH = "split.sum_mismatch"
    # Workspace rates
    RATE_UNIT_MISSING = "rate.unit_missing"
    FILE_INVALID = "file.invalid"


# code -> (what is wrong, what the operator can do). One line each; the message adds record, field, value.
CATALOGUE: Final[dict[ErrorCode, tuple[str, str]]] = {
    ErrorCode.NUMBER_THOUSANDS_SEPARATOR: (
        "is a number written with a thousands separator",
        "write it without separators (1000.00) in the legacy workspace and re-run",
    ),
    ErrorCode.NUMBER_EXPONENT: (
        "is a number written in exponent notation",
        "write it as a plain decimal (1000) in the legacy workspace and re-run",
    ),
    ErrorCode.NUMBER_NAN: ("is not a number (NaN)", "enter the real value in the legacy workspace and re-run"),
    ErrorCode.NUMBER_INFINITE: ("is infinite", "enter the real value in the legacy workspace and re-run"),
    ErrorCode.NUMBER_EMPTY: ("is an empty string where a number is required", "enter the value and re-run"),
    ErrorCode.NUMBER_MISSING: ("is missing (null) where a number is required", "enter the value and re-run"),
    ErrorCode.NUMBER_TOO_LARGE: (
        "is larger than 2^53, beyond what the legacy surface stores exactly",
        "check the value in the legacy workspace; it cannot be migrated as is",
    ),
    ErrorCode.NUMBER_NOT_NUMERIC: ("is not a number", "enter a plain decimal number and re-run"),
    ErrorCode.MONEY_TOO_PRECISE: (
        "has more decimals than its currency allows",
        "round the amount to the currency's minor unit in the legacy workspace and re-run",
    ),
    ErrorCode.CURRENCY_UNKNOWN: (
        "is not an ISO-4217 currency code",
        "set a valid three-letter currency code on the phase in the legacy workspace",
    ),
    ErrorCode.CURRENCY_MISSING: (
        "has no currency code",
        "set a currency on the phase (or pass the workspace currency) and re-run",
    ),
    ErrorCode.EXCHANGE_RATE_INVALID: (
        "is not a positive exchange rate",
        "set the phase currency's exchange rate to a positive number and re-run",
    ),
    ErrorCode.TEXT_EMPTY: ("is empty where a name is required", "give the record a name and re-run"),
    ErrorCode.TEXT_TOO_LONG: ("is longer than the target allows", "shorten it in the legacy workspace and re-run"),
    ErrorCode.TEXT_CONTROL_CHARACTERS: (
        "contains control characters",
        "remove the invisible characters (tabs and line breaks are kept) and re-run",
    ),
    ErrorCode.TEXT_NOT_NFC: (
        "is not in Unicode NFC form, so equal-looking names would not match",
        "retype the text in the legacy workspace and re-run",
    ),
    ErrorCode.TEXT_INVALID_UNICODE: (
        "is not valid Unicode (a lone surrogate half), so it cannot be stored or sent as text",
        "retype the text in the legacy workspace and re-run",
    ),
    ErrorCode.FIELD_TYPE: (
        "is not of the JSON type the legacy description publishes for it",
        "correct the value in the legacy workspace (or report the service's answer) and re-run",
    ),
    ErrorCode.RECORD_ID_INVALID: (
        "is not a usable record id (not text, empty, too long, or holding invisible or invalid characters)",
        "report the record to the legacy service's owner; it cannot be tracked across runs",
    ),
    ErrorCode.DUPLICATE_ID: (
        "is used by more than one record",
        "every copy is quarantined; remove the duplicate in the legacy workspace and re-run",
    ),
    ErrorCode.TREE_SELF_PARENT: ("names the record itself as its parent", "move the line under a real account"),
    ErrorCode.TREE_CYCLE: (
        "closes a cycle of parents",
        "move one of the lines in the cycle under a top-level account and re-run",
    ),
    ErrorCode.TREE_MISSING_PARENT: ("names a parent that does not exist", "move the line under an existing account"),
    ErrorCode.TREE_PARENT_NOT_ACCOUNT: (
        "names a parent that is not an account; only accounts hold lines",
        "move the line under an account and re-run",
    ),
    ErrorCode.TREE_ANCESTOR_QUARANTINED: (
        "names a parent that is quarantined, and a line cannot stand without its parent",
        "fix the parent's own error; this line migrates with it on the next run",
    ),
    ErrorCode.TREE_TOO_DEEP: (
        "sits deeper in the budget tree than the bridge migrates",
        "move the line under a shallower account in the legacy workspace and re-run",
    ),
    ErrorCode.LINE_TYPE_UNKNOWN: ("is not a known budget line type", "use account, line, subtotal or markup"),
    ErrorCode.MARKUP_TYPE_UNKNOWN: ("is not a known markup type", "set the markup to percent or flat and re-run"),
    ErrorCode.UNRESOLVED_REFERENCE: (
        "names a record that has no v1 id yet",
        "migrate the referenced record first (re-run resumes in order)",
    ),
    ErrorCode.PHASE_TYPE_UNKNOWN: ("is not a known phase type", "use estimate, actual, committed or rollup"),
    ErrorCode.ROLLUP_OPERATION_UNKNOWN: (
        "is not a rollup operation v1 can express",
        "use sum or difference, or recreate the rollup by hand in v1",
    ),
    ErrorCode.ROLLUP_NO_INPUTS: ("lists no input phases", "add input phases to the rollup or delete it"),
    ErrorCode.ROLLUP_INPUT_UNKNOWN: (
        "lists an input phase that is not in the project",
        "remove the missing phase from the rollup and re-run",
    ),
    ErrorCode.FRINGE_UNITS_UNKNOWN: ("is not a known fringe unit", "use percent, flat or total and re-run"),
    ErrorCode.GLOBAL_SYMBOL_INVALID: (
        "is not a valid global symbol (letters, digits and underscore, not starting with a digit)",
        "rename the global in the legacy workspace and re-run",
    ),
    ErrorCode.GLOBAL_CYCLE: ("is part of a cycle of globals", "break the cycle in the legacy workspace and re-run"),
    ErrorCode.FORMULA_SYNTAX: (
        "is not a formula the target can evaluate",
        "write it as arithmetic over numbers and global symbols and re-run",
    ),
    ErrorCode.FORMULA_UNKNOWN_SYMBOL: (
        "refers to a global that the project does not define",
        "define the global or fix the formula in the legacy workspace and re-run",
    ),
    ErrorCode.TAG_CASE_DUPLICATE: (
        "differs only in letter case from a tag of another project; v1 tags are one per name",
        "rename one of the two tags in the legacy workspace so they match exactly, then re-run",
    ),
    ErrorCode.TAG_COLOR_INVALID: ("is not a #RRGGBB colour", "fix the tag colour in the legacy workspace"),
    ErrorCode.CONTACT_TYPE_UNKNOWN: ("is not a known contact type", "use Contractor, Employee or Company"),
    ErrorCode.ACTUAL_TYPE_UNKNOWN: ("is not a known actual type", "set a listed actual type and re-run"),
    ErrorCode.ACTUAL_STATUS_UNKNOWN: ("is not a known actual status", "set a listed actual status and re-run"),
    ErrorCode.DATE_INVALID: ("is not an ISO 8601 date", "fix the date in the legacy workspace and re-run"),
    ErrorCode.SPLIT_SUM_MISMATCH: (
        "does not equal the sum of the split's parts",
        "correct the parts or the total in the legacy workspace and re-run",
    ),
    ErrorCode.RATE_UNIT_MISSING: (
        "has no unit, which a v1 rate pack item requires",
        "set the rate's unit (hour, day, week, ...) in the legacy workspace and re-run",
    ),
    ErrorCode.FILE_INVALID: (
        "is not a usable attachment (a File needs a text id, a name, a type and a size in bytes)",
        "re-attach the file in the legacy workspace and re-run, or carry it by hand",
    ),
}


def _cut(text: str) -> str:
    return text if len(text) <= MAX_VALUE_CHARS else text[: MAX_VALUE_CHARS - 1] + "…"


def shown_value(value: object) -> str:
    """The value as a message shows it: its repr, cut to MAX_VALUE_CHARS so a huge field stays readable.

    ``repr`` escapes what cannot be printed; a container is cut before its repr is built, so a value nested
    thousands deep or a megabyte long costs no more than what is shown.
    """
    if isinstance(value, str):
        return _cut(escaped(repr(value[: MAX_VALUE_CHARS + 1])))
    if isinstance(value, list | dict | tuple):
        return _cut(escaped(_shallow(value)))
    return _cut(escaped(repr(value)))


def _shallow(value: list[object] | dict[object, object] | tuple[object, ...]) -> str:
    """A container's repr one level deep (nested containers shown as ``[…]``/``{…}``): never recursive."""

    def item(x: object) -> str:
        if isinstance(x, list | tuple):
            return "[…]" if x else "[]"
        if isinstance(x, dict):
            return "{…}" if x else "{}"
        return repr(x[:MAX_VALUE_CHARS]) if isinstance(x, str) else repr(x)

    if isinstance(value, dict):
        parts = [f"{item(k)}: {item(v)}" for k, v in list(value.items())[:20]]
        return "{" + ", ".join(parts) + "}"
    parts = [item(x) for x in list(value)[:20]]
    if isinstance(value, tuple):
        return "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"
    return "[" + ", ".join(parts) + "]"


class MappingError(Exception):
    """A legacy record that cannot become a v1 request: code, record, field, value and what to do."""

    def __init__(self, code: ErrorCode, ref: RecordRef, field: str, value: object, detail: str = "") -> None:
        self.code = code
        self.ref = ref
        self.field = _cut(escaped(field))
        self.value = shown_value(value)
        self.detail = _cut(escaped(detail))
        what, remedy = CATALOGUE[code]
        extra = f" ({self.detail})" if detail else ""
        super().__init__(f"[{code}] {ref}: field {self.field!r} = {self.value} {what}{extra}; {remedy}.")

    def _key(self) -> tuple[str, RecordRef, str, str, str]:
        return (self.code, self.ref, self.field, self.value, self.detail)

    def __eq__(self, other: object) -> bool:
        # By what it says, so a record refused the same way by two reads compares equal.
        return isinstance(other, MappingError) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    @property
    def message(self) -> str:
        """The one-line message a report prints."""
        return str(self.args[0])
