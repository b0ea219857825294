"""Any JSON value as Python holds it after ``json.loads``, including what is easy to get wrong: floats written
with an exponent (1e+16, 1.5e-05), -0.0, integers past 64 bits, non-ASCII text and lone surrogates (which a
JSON ``\\ud800`` escape decodes to), in values and in keys.

Shared by the properties that compare a fast path with its definition (canonical text, the invalid-text scan).
"""

from __future__ import annotations

from hypothesis import strategies as st

# Text of any code point, lone surrogates included (hypothesis leaves category Cs out unless told).
TEXT = st.text(st.characters(exclude_categories=()), max_size=8)
SCALARS = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | TEXT
JSON_VALUES = st.recursive(
    SCALARS, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TEXT, inner, max_size=4), max_leaves=12
)
JSON_OBJECTS = st.dictionaries(TEXT, JSON_VALUES, max_size=5)
