"""Text from the source or a service, made safe to print on an operator's terminal.

Anything a workspace or a server controls (names, descriptions, error messages) reaches the terminal as text:
control characters (C0, DEL, C1: the start of every escape sequence), bidirectional overrides and lone
surrogates are shown as ``\\x1b``-style escapes instead of acting on the screen, and every known form of a
secret is masked. Rich markup is never interpreted in it: callers print the result with ``click.echo`` or as a
``rich.text.Text``.
"""

from __future__ import annotations

import re

from bridge.logging import redact_text

# C0 but tab and newline, DEL, C1; the bidi embeddings, overrides and isolates; lone surrogates.
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def _escaped(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def plain(text: str) -> str:
    """``text`` with secrets masked and every character that could act on a terminal escaped."""
    return _UNSAFE.sub(_escaped, redact_text(text))
