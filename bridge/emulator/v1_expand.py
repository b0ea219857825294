"""The v1 ``expand`` query parameter: a comma list of published keys, anything else ``400 expand_invalid``."""

from __future__ import annotations

from collections.abc import Collection

from starlette.requests import Request

from bridge.emulator.v1_errors import ExpandInvalidError

# The published expand keys per resource (TransactionExpandKey, ProjectExpand, LibraryExpand).
TRANSACTION = frozenset({"contact", "documents", "items", "account", "purchaseOrder", "items.account"})
PROJECT = frozenset({"assumptions"})
LIBRARY_COPY = frozenset({"source"})


def expand_keys(request: Request, allowed: Collection[str]) -> set[str]:
    """The expand keys asked for; an unknown or too-deep one is refused as the description publishes."""
    raw = request.query_params.get("expand") or ""
    wanted = {part.strip() for part in raw.split(",") if part.strip()}
    unknown = sorted(wanted - set(allowed))
    if unknown:
        raise ExpandInvalidError(f"expand {unknown[0]!r} is not available here; use {', '.join(sorted(allowed))}.")
    return wanted
