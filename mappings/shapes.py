"""Legacy rows as typed records, strictly: a row its record type refuses becomes a refused record, not a stop.

The legacy client decodes each row of a response with ``parse_row``. A row that fails (an id that is not a
usable id, text that is not valid Unicode anywhere in it, a field of another JSON type than the published
one: ``true`` or ``42`` where text belongs, text where a flag belongs) is kept as a *refused* record of the
same type: its id, the structural fields the caller names (a line's parent and position), defaults for the
rest, and the ``MappingError`` that names record, field and value. The mappers raise that error first
(``check_refusal``), so the record is quarantined through the same path as any other bad record, it still
counts in the source, and the other rows of the same response migrate.

Numbers are not judged here: ``RawNumber`` takes any JSON value and ``mappings.money`` gives each bad shape
its own code. Nothing here recurses on the shape of the data: nested values are walked with a stack.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any, Final, TypeVar, cast

import orjson
from pydantic import ValidationError

from mappings.errors import ErrorCode, MappingError
from mappings.kinds import Kind
from mappings.printable import escaped
from mappings.records import LegacyRecord
from mappings.refs import RecordRef

R = TypeVar("R", bound=LegacyRecord)

MAX_ID_CHARS: Final = 200
"""Legacy ids are short opaque tokens (``prj_4f276ac9d964``); anything longer is not an id the state can key on."""

_SURROGATE = re.compile("[\ud800-\udfff]")
_NOT_ID = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]")


def _may_hold_invalid_text(value: object) -> bool:
    """Whether a JSON value may hold text (keys too) with a lone surrogate: False proves it holds none.

    The cheap pass every row takes. orjson writes each text as UTF-8 and refuses one that is not valid UTF-8,
    which a Python str is only when it holds a lone surrogate, so a value it writes holds none. It refuses a
    few other values too (an integer past 64 bits, nesting past its depth limit): those take the exact walk.
    """
    try:
        orjson.dumps(value)
    except orjson.JSONEncodeError:
        return True
    return False


def invalid_text(value: object, field: str) -> tuple[str, str] | None:
    """The first text in a JSON value (keys too) holding a lone surrogate: (its field path, the text)."""
    if not _may_hold_invalid_text(value):
        return None  # the common case, without walking the value
    pending: list[tuple[str, object]] = [(field, value)]
    while pending:
        path, current = pending.pop()
        if isinstance(current, str):
            if _SURROGATE.search(current):
                return path, current
        elif isinstance(current, dict):
            for key, item in current.items():
                where = f"{path}.{key}" if path else str(key)
                if isinstance(key, str) and _SURROGATE.search(key):
                    return where, key
                pending.append((where, item))
        elif isinstance(current, list):
            pending.extend((f"{path}[{index}]", item) for index, item in enumerate(current))
    return None


def usable_id(value: object) -> bool:
    """Whether a legacy id can key the state: short text without blanks, invisible or invalid characters."""
    return isinstance(value, str) and 0 < len(value) <= MAX_ID_CHARS and not _NOT_ID.search(value)


def shown_id(value: object, index: int) -> str:
    """The id a refused row is filed under: a usable id as is, else its escaped text, else its row number."""
    if isinstance(value, str) and value:
        return escaped(value[:MAX_ID_CHARS])
    return f"#{index}"


def refused(model: type[R], error: MappingError, fields: Mapping[str, object] | None = None) -> R:
    """A record of ``model`` standing for a refused row: its id, ``fields`` (python names), defaults elsewhere."""
    # Any: model_construct takes the fields as keywords of any type; nothing here is validated, on purpose.
    values: dict[str, Any] = {name: "" for name, info in model.model_fields.items() if info.is_required()}
    values["id"] = error.ref.legacy_id
    values.update(fields or {})
    record = cast(R, model.model_construct(**values))
    record.refuse(error)
    return record


def parse_row(
    model: type[R],
    row: object,
    kind: Kind,
    scope: str,
    *,
    index: int = 0,
    keep: Mapping[str, object] | None = None,
) -> R:
    """``row`` as ``model``, or a refused record naming what is wrong; ``keep`` goes onto a refused record."""
    raw = row if isinstance(row, dict) else {}
    raw_id = raw.get("id")
    ref = RecordRef(kind, raw_id if usable_id(raw_id) else shown_id(raw_id, index), scope)  # type: ignore[arg-type]
    if not isinstance(row, dict):
        return refused(model, MappingError(ErrorCode.FIELD_TYPE, ref, "(record)", row, "a record is an object"), keep)
    if not usable_id(raw_id):
        return refused(model, MappingError(ErrorCode.RECORD_ID_INVALID, ref, "id", raw_id), keep)
    bad = invalid_text(row, "")
    if bad is not None:
        return refused(model, MappingError(ErrorCode.TEXT_INVALID_UNICODE, ref, bad[0], bad[1]), keep)
    try:
        return model.model_validate(row)
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(part) for part in first["loc"]) or "(record)"
        detail = first["msg"].lower()
        return refused(model, MappingError(ErrorCode.FIELD_TYPE, ref, field, first.get("input"), detail), keep)


def refusal_of(record: object) -> MappingError | None:
    """The error a refused record carries, None for a record read whole."""
    return record.refusal if isinstance(record, LegacyRecord) else getattr(record, "refusal", None)


def check_refusal(record: object) -> None:
    """Raise the refused record's error: what every mapper does first with a record."""
    error = refusal_of(record)
    if error is not None:
        raise error


def without_duplicates(records: Sequence[R], kind: Kind, scope: str) -> list[R]:
    """One list's records with each repeated id kept once, refused: no one can tell which copy is meant."""
    counts = Counter(record.id for record in records if isinstance(record.id, str))  # type: ignore[attr-defined]
    out: list[R] = []
    done: set[str] = set()
    for record in records:
        record_id: str = record.id  # type: ignore[attr-defined]
        if counts[record_id] < 2:
            out.append(record)
        elif record_id not in done:
            done.add(record_id)
            error = MappingError(ErrorCode.DUPLICATE_ID, RecordRef(kind, record_id, scope), "id", record_id)
            out.append(refused(type(record), error))
    return out
