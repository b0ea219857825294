"""The scan every legacy row takes for text that is not valid Unicode finds exactly the rows that hold some."""

from __future__ import annotations

import re

from hypothesis import given

from mappings.shapes import invalid_text
from tests.mappings.json_values import JSON_VALUES

SURROGATE = re.compile("[\ud800-\udfff]")


def texts(value: object) -> list[str]:
    """Every text in a JSON value, keys included."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [text for key, item in value.items() for text in [key, *texts(item)]]
    if isinstance(value, list):
        return [text for item in value for text in texts(item)]
    return []


@given(value=JSON_VALUES)
def test_invalid_text_is_found_exactly_where_there_is_some(value: object) -> None:
    """A lone surrogate anywhere (a value, a key, deep in a list, beside an integer past 64 bits) is found and
    named by its path; a row without one passes."""
    found = invalid_text({"row": value}, "")
    holds = any(SURROGATE.search(text) for text in texts(value))
    assert (found is not None) == holds
    if found is not None:
        where, text = found
        assert SURROGATE.search(text)
        assert where.startswith("row")


def test_a_surrogate_is_named_by_its_path_even_past_any_encoder_limit() -> None:
    """Nesting deeper than a JSON encoder goes, or a number it cannot write, does not hide a bad text."""
    deep: object = "Crew \ud800"
    for _ in range(300):
        deep = [deep]
    assert invalid_text({"notes": deep}, "") == ("notes" + "[0]" * 300, "Crew \ud800")
    assert invalid_text({"big": 2**70, "ok": "Crew"}, "") is None
