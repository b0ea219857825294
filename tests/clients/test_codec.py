"""A body the bridge reads decodes to what ``json.loads`` gives, value and type, or fails as it fails."""

from __future__ import annotations

import json
import math

from hypothesis import given
from hypothesis import strategies as st

from bridge.clients.codec import read_json
from tests.mappings.json_values import JSON_VALUES

# Beyond the shared values: integers around and past orjson's 64 bits, NaN and the infinities.
EDGE_INTEGERS = st.sampled_from([2**63 - 1, 2**63, 2**64 - 1, 2**64, -(2**63), -(2**63) - 1, 10**18, 10**30])
VALUES = st.recursive(
    JSON_VALUES | EDGE_INTEGERS | st.floats(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
    max_leaves=8,
)
# Numbers as a service may write them: long mantissas, exponents past the float range, leading zeros (refused).
NUMBERS = st.from_regex(r"\A-?(0|[1-9][0-9]{0,40}|0[0-9]{1,3})(\.[0-9]{1,30})?([eE][+-]?[0-9]{1,4})?\Z")


def tokens(value: object) -> list[object]:
    """``value`` flattened with each scalar's type (True is not 1, 1.0 is not 1, -0.0 is not 0.0), walked
    without recursion so that deep nesting compares too."""
    out: list[object] = []
    pending = [value]
    while pending:
        current = pending.pop()
        if isinstance(current, dict):
            out.append(("object", len(current)))
            for key, item in current.items():
                out.append(("key", key))
                pending.append(item)
        elif isinstance(current, list):
            out.append(("array", len(current)))
            pending.extend(current)
        elif isinstance(current, float):
            out.append(("float", "nan" if math.isnan(current) else current.hex()))
        else:
            out.append((type(current).__name__, current))
    return out


def outcome(read: object, content: bytes) -> tuple[str, object]:
    assert callable(read)
    try:
        return "value", tokens(read(content))
    except (ValueError, RecursionError) as exc:  # JSONDecodeError and UnicodeDecodeError are ValueErrors
        return "error", type(exc)


def assert_reads_alike(content: bytes) -> None:
    assert outcome(read_json, content) == outcome(json.loads, content)


@given(value=VALUES, ascii_only=st.booleans())
def test_any_document_reads_as_the_standard_library_reads_it(value: object, ascii_only: bool) -> None:
    """Big integers, floats (NaN and Infinity too), any text (a lone surrogate escaped, or written raw in
    bytes that are not UTF-8) read to the same values of the same types."""
    text = json.dumps(value, ensure_ascii=ascii_only)
    assert_reads_alike(text.encode("utf-8", "surrogatepass"))


@given(number=NUMBERS)
def test_any_number_reads_as_the_standard_library_reads_it(number: str) -> None:
    """A 19-digit id, a mantissa longer than a double holds, an exponent past the float range, a leading zero."""
    assert_reads_alike(f'{{"n":{number},"m":[{number}]}}'.encode())


@given(depth=st.integers(1, 3000), brackets=st.sampled_from(["[]", '{"a":}']))
def test_deep_nesting_reads_or_fails_as_the_standard_library_does(depth: int, brackets: str) -> None:
    """Nesting orjson reads, nesting only the standard library reads, and nesting neither reads
    (RecursionError, which ``json_body`` turns into a clear error)."""
    opening, closing = (brackets[0], brackets[1:]) if brackets == "[]" else (brackets[:-1], brackets[-1])
    body = "1" if brackets == "[]" else "null"
    assert_reads_alike((opening * depth + body + closing * depth).encode())


@given(value=VALUES, where=st.integers(0), byte=st.binary(min_size=1, max_size=3))
def test_damaged_bytes_read_or_fail_as_the_standard_library_does(value: object, where: int, byte: bytes) -> None:
    """A document with bytes inserted anywhere (a byte-order mark, a NUL, invalid UTF-8, a stray comma)."""
    content = json.dumps(value, ensure_ascii=False).encode("utf-8", "surrogatepass")
    at = where % (len(content) + 1)
    assert_reads_alike(content[:at] + byte + content[at:])


@given(content=st.binary(max_size=40) | st.sampled_from([b"\xef\xbb\xbf{}", "[1]".encode("utf-16"), b"NaN"]))
def test_any_bytes_read_or_fail_as_the_standard_library_does(content: bytes) -> None:
    """Bytes that are not JSON, UTF-16 and a byte-order mark included."""
    assert_reads_alike(content)
