"""Text from the source or a service, made safe to print on an operator's terminal.

Anything a workspace or a server controls (names, descriptions, error messages) reaches the terminal as text:
control characters (C0, DEL, C1: the start of every escape sequence), bidirectional overrides and lone
surrogates are shown as ``\\x1b``-style escapes instead of acting on the screen, and every known form of a
secret is masked. Rich markup is never interpreted in it: callers print the result with ``click.echo`` or as a
``rich.text.Text``. A value printed beside others is shortened (``SHOWN``): a megabyte description must not
bury the line it sits in.
"""

from __future__ import annotations

import io
import re
import sys
from typing import TextIO, cast

from rich.console import Console

from bridge.logging import redact_text

SHOWN = 200
"""Characters of one source value shown on the terminal; the reports and the state file keep it whole."""

WIDE = 1000
"""Columns of a console that is not a terminal: a pipe or a file gets whole tables, never cut at 80."""

# C0 but tab and newline, DEL, C1; the bidi embeddings, overrides and isolates; lone surrogates.
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def _escaped(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def plain(text: str, limit: int | None = None) -> str:
    """``text`` with secrets masked and every character that could act on a terminal escaped; with ``limit``,
    at most that many characters of it, an ellipsis marking the cut."""
    # Masked before the cut, so a secret straddling the limit cannot leave a recognisable half behind.
    text = redact_text(text)
    if limit is not None and len(text) > limit:
        text = text[: limit - 1] + "\u2026"
    return _UNSAFE.sub(_escaped, text)


def shown(value: object) -> str:
    """One source or server value (a name, an id, a message) as the terminal shows it beside others."""
    return plain(str(value), SHOWN)


def console(*, stderr: bool = False) -> Console:
    """A console for tables and progress: a terminal's own width, or ``WIDE`` columns when piped."""
    made = Console(stderr=stderr, highlight=False)
    if not made.is_terminal:
        made.width = WIDE
    return made


class _SafeStderr(io.TextIOBase):
    """The log's terminal stream: each write escaped like source text, and sent to whatever ``sys.stderr`` is
    at that moment, so a live progress display (which redirects it) prints log lines above its bars."""

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        sys.stderr.write(plain(text))
        return len(text)

    def flush(self) -> None:
        sys.stderr.flush()


def safe_stderr() -> TextIO:
    """The log's terminal stream (see ``_SafeStderr``), typed as the stream logging takes."""
    return cast("TextIO", _SafeStderr())
