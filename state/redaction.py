"""Recognising names that carry credentials, so their values never reach the state file.

The state file is copied, mailed to support and kept for years; the bridge's secrets (API key, token,
webhook secret) must never be in it. Callers do not pass secrets on purpose, so this is the second line:
an option or a quarantined field whose *name* says credential is refused or stored without its value.
"""

from __future__ import annotations

import re

_WORD_BREAK = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_SECRET_WORD = re.compile(
    r"(^|[_\-. ])(token|secret|password|passwd|authorization|credentials?|api[_\-]?key|key)s?($|[_\-. ])"
)


def names_a_secret(name: str) -> bool:
    """Whether a setting or field name (snake, kebab or camel case) says it holds a credential."""
    return _SECRET_WORD.search(_WORD_BREAK.sub("_", name).lower()) is not None
