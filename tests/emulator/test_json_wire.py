"""Response bodies written through orjson are the standard library's bytes, or its error, for any value."""

from __future__ import annotations

import json
import math
import struct
import sys
from collections.abc import Callable

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bridge.emulator.wire.json_bodies import legacy_body, v1_body

Encoder = Callable[[object], bytes]


def v1_reference(content: object) -> bytes:
    """What Starlette's JSONResponse writes (the v1 surface's bodies before orjson)."""
    return json.dumps(content, ensure_ascii=False, allow_nan=False, indent=None, separators=(",", ":")).encode()


def legacy_reference(content: object) -> bytes:
    """What the legacy surface wrote before orjson: ASCII only, NaN and Infinity as JavaScript writes them."""
    return json.dumps(content, allow_nan=True, separators=(",", ":")).encode()


PAIRS = [(v1_body, v1_reference), (legacy_body, legacy_reference)]


def outcome(encode: Encoder, content: object) -> bytes | str:
    """The bytes written, or the name of the exception raised."""
    try:
        return encode(content)
    except (TypeError, ValueError) as exc:
        return type(exc).__name__


def floats_of_every_magnitude() -> st.SearchStrategy[float]:
    """Any double, drawn from its bits so that every exponent (NaN and the infinities too) comes up often."""
    return st.integers(min_value=0, max_value=2**64 - 1).map(lambda bits: struct.unpack(">d", bits.to_bytes(8))[0])


SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(),
    floats_of_every_magnitude(),
    st.text(),
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.text(max_size=6), inner, max_size=4),
        st.dictionaries(st.integers(), inner, max_size=2),  # keys json.dumps turns into text, orjson refuses
    ),
    max_leaves=20,
)


@pytest.mark.parametrize(("encode", "reference"), PAIRS)
@given(content=VALUES)
def test_any_value_is_written_as_the_standard_library_writes_it(
    encode: Encoder, reference: Encoder, content: object
) -> None:
    """Same bytes for any JSON-like value; where the standard library raises, the same exception."""
    assert outcome(encode, content) == outcome(reference, content)


@pytest.mark.parametrize(("encode", "reference"), PAIRS)
def test_every_character_is_escaped_alike(encode: Encoder, reference: Encoder) -> None:
    """Each code point (surrogates aside, which neither writes as UTF-8) in a key and in a value."""
    characters = "".join(chr(code) for code in range(sys.maxunicode + 1) if not 0xD800 <= code <= 0xDFFF)
    for start in range(0, len(characters), 4096):
        chunk = characters[start : start + 4096]
        content = {chunk: [chunk, {"k": chunk[::-1]}]}
        assert encode(content) == reference(content)


@pytest.mark.parametrize(("encode", "reference"), PAIRS)
@pytest.mark.parametrize(
    "value",
    [1e-05, -4.5e-06, 9.999999999999999e-05, 1.5e-09, 1e-10, 1e-4, 1e16, 1e22, 5e-324, -0.0, 0.1, math.nan, -math.inf],
)
def test_floats_the_two_would_write_differently_are_written_alike(
    encode: Encoder, reference: Encoder, value: float
) -> None:
    """The floats where orjson's text differs (tiny magnitudes, NaN, infinities) and their neighbours."""
    content = {"amount": value, "rows": [value, {"nested": value}]}
    assert outcome(encode, content) == outcome(reference, content)


class Renamed(dict[str, object]):
    """A dict subclass whose items differ from its contents: json.dumps writes its items, orjson its contents."""

    def items(self) -> list[tuple[str, object]]:  # type: ignore[override]  # a list is what json.dumps asks for
        return [("renamed", 1)]


@pytest.mark.parametrize(("encode", "reference"), PAIRS)
@pytest.mark.parametrize("value", [Renamed(kept=0), {"t": (1, 2)}, {1: "a", None: "b"}, 2**64, "\ud800", object()])
def test_values_orjson_refuses_or_writes_otherwise_go_the_standard_way(
    encode: Encoder, reference: Encoder, value: object
) -> None:
    """Subclasses, non-string keys, huge integers, lone surrogates, unknown types: the same bytes or error."""
    assert outcome(encode, value) == outcome(reference, value)
