"""Source text as HTML: escaped as markup, and with what a terminal would escape (control characters, bidi
overrides and isolates, lone surrogates) shown as escapes too, so a name can neither inject markup nor reorder
or hide the text around it. Every HTML writer of the reports imports ``escape`` from here, never ``html``."""

from __future__ import annotations

import html

from bridge.terminal import plain


def escape(text: str, quote: bool = True) -> str:
    return html.escape(plain(text), quote=quote)
