"""Response bodies written by orjson, byte for byte what the standard library's ``json.dumps`` writes.

Encoding took about an eighth of the emulator's CPU: a legacy actuals page or a 500-transaction bulk answer is
hundreds of kilobytes, which orjson writes about ten times faster. The two differ only on values a check can
find, and for those the standard library still writes the body:

- what orjson refuses (a key that is not a string, an integer beyond 64 bits, a lone surrogate, a type it
  does not know; subclasses, dataclasses and datetimes are handed to ``default``, which refuses them too, so
  the standard library raises what it always raised);
- a float that is NaN or infinite (orjson writes ``null``), or whose magnitude is between 1e-9 and 1e-4
  (``1e-05`` against orjson's ``0.00001``; every other finite float is written alike, shortest round trip);
- on the legacy surface, which escapes DEL and every non-ASCII character as ``\\uXXXX``, those characters,
  which orjson writes as they are: the escapes are put in afterwards (outside a string there is none).

orjson also writes what json.dumps refuses with a TypeError (a UUID, an enum that is not a str or int): no
route answers with one, so no answer changes.

Floats are found in the body's pickle, where each is its opcode ``G`` and eight big-endian bytes whose first
twelve bits are the sign and the exponent: no decoding, no walk in Python. A match inside some other bytes
(a string, an integer) only sends that body the slow way.
"""

from __future__ import annotations

import io
import json
import pickle
import re

import orjson
from starlette.responses import JSONResponse

# The orjson options that leave to ``default`` (hence to the standard library) what it would write and
# json.dumps refuses or writes otherwise.
PASSTHROUGH = orjson.OPT_PASSTHROUGH_SUBCLASS | orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_PASSTHROUGH_DATETIME
# BINFLOAT then the first two bytes of the double: exponent all ones (NaN, infinities), or a biased exponent of
# 993 to 1009 (magnitudes from 2**-30, below 1e-9, up to 2**-13, above 1e-4).
SLOW_FLOAT = re.compile(rb"G(?:[\x7f\xff][\xf0-\xff]|[\x3e\xbe][\x10-\xff]|[\x3f\xbf][\x00-\x1f])")
ESCAPED = re.compile(r"[^\x00-\x7e]")  # what ensure_ascii escapes beyond what orjson does
PICKLE_PROTOCOL = 5  # its frames begin between opcodes, so a float's opcode and eight bytes stay together


class _RefusedError(TypeError):
    """What ``default`` raises for anything orjson was asked not to write itself."""


def _refuse(value: object) -> object:
    raise _RefusedError(type(value).__name__)


def _has_slow_float(content: object) -> bool:
    out = io.BytesIO()
    pickler = pickle.Pickler(out, protocol=PICKLE_PROTOCOL)
    pickler.fast = True  # no memo: a JSON body has no cycles, and a repeated float is still written each time
    pickler.dump(content)
    return SLOW_FLOAT.search(out.getvalue()) is not None


def _fast(content: object) -> bytes | None:
    """orjson's bytes when they are the standard library's (DEL and non-ASCII left as they are), else None."""
    try:
        encoded = orjson.dumps(content, default=_refuse, option=PASSTHROUGH)
    except orjson.JSONEncodeError:
        return None
    if _has_slow_float(content):
        return None
    return encoded


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code > 0xFFFF:
        code -= 0x10000
        return f"\\u{0xD800 | (code >> 10):04x}\\u{0xDC00 | (code & 0x3FF):04x}"
    return f"\\u{code:04x}"


def v1_body(content: object) -> bytes:
    """``json.dumps(content, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode()``: a v1
    response body as Starlette's JSONResponse writes it."""
    encoded = _fast(content)
    if encoded is not None:
        return encoded
    return json.dumps(content, ensure_ascii=False, allow_nan=False, indent=None, separators=(",", ":")).encode()


def legacy_body(content: object) -> bytes:
    """``json.dumps(content, allow_nan=True, separators=(",", ":")).encode()``: ASCII, NaN and Infinity kept."""
    encoded = _fast(content)
    if encoded is None:
        return json.dumps(content, allow_nan=True, separators=(",", ":")).encode()
    if encoded.isascii() and b"\x7f" not in encoded:
        return encoded
    return ESCAPED.sub(_escape, encoded.decode()).encode()


class V1JSONResponse(JSONResponse):
    """Starlette's JSONResponse, its body written through ``v1_body``."""

    def render(self, content: object) -> bytes:
        return v1_body(content)
