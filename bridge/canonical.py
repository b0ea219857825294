"""Canonical JSON (RFC 8785) with every integer written as a string: the bytes the bridge hashes and signs.

The sync log's lines and the cutover certificate's payload are read by tools that parse JSON numbers as doubles;
a money total in minor units can pass 2^53, where a double rounds. So integers go out as decimal strings
(booleans stay booleans), and the rest is RFC 8785's canonical form, through the maintained ``rfc8785`` package.
"""

from __future__ import annotations

from typing import TypeAlias

import rfc8785

Json: TypeAlias = "bool | int | float | str | list[Json] | dict[str, Json] | None"


def canonical(value: Json) -> bytes:
    """RFC 8785 canonical JSON of ``value`` with every integer written as a string."""
    return rfc8785.dumps(_integers_as_strings(value))


def _integers_as_strings(value: Json) -> Json:
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return str(value)
    if isinstance(value, list):
        return [_integers_as_strings(item) for item in value]
    if isinstance(value, dict):
        return {key: _integers_as_strings(item) for key, item in value.items()}
    return value
