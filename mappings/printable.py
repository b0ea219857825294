"""Text made safe to print and store: what every message, report and state row shows of a source value."""

from __future__ import annotations


def escaped(text: str) -> str:
    """Text unchanged when printable, else with every unprintable character as a backslash escape.

    A lone surrogate, NUL, an ANSI escape or a bidi override then cannot reach a terminal, a report or the
    state file as itself: it is shown as ``\\ud800``, ``\\x00``, ``\\x1b``, ``\\u202e``.
    """
    if text.isprintable():
        return text
    # repr of one unprintable character is its escape in quotes: '\x00', '\ud800', '\u202e'.
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)
