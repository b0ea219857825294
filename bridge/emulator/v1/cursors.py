"""Opaque, signed cursors bound to the filters and sort of the request that produced them (A22).

A cursor carries an offset and a digest of the request's binding (route, filters, sort, page size excluded),
signed with a per-process secret, so a client cannot forge one and a cursor reused with other filters is
refused with 400 ``cursor_invalid`` instead of silently paging a different list.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from bridge.emulator.v1.errors import CursorInvalidError, ValidationError

T = TypeVar("T")

DEFAULT_LIMIT = 50
MAX_LIMIT = 100


def parse_limit(raw: str | None) -> int:
    """The page size: default 50, valid 1 to 100, else 400 validation."""
    if raw is None:
        return DEFAULT_LIMIT
    try:
        limit = int(raw)
    except ValueError:
        raise ValidationError(f"limit must be an integer from 1 to {MAX_LIMIT}; got {raw!r}.") from None
    if not 1 <= limit <= MAX_LIMIT:
        raise ValidationError(f"limit must be from 1 to {MAX_LIMIT}; got {limit}.")
    return limit


@dataclass(frozen=True, slots=True)
class Page(Generic[T]):
    """One page of a list plus the cursor of the next one (None on the last page)."""

    items: Sequence[T]
    next_cursor: str | None


@dataclass(slots=True)
class CursorCodec:
    """Encodes and checks cursors; the secret lives as long as the emulator process."""

    secret: bytes = field(default_factory=lambda: secrets.token_bytes(32))

    @staticmethod
    def binding(route: str, filters: Mapping[str, str | None]) -> str:
        """A digest of what a cursor is valid for: the route and every filter and sort parameter."""
        canonical = json.dumps([route, sorted((k, v) for k, v in filters.items() if v is not None)])
        return hashlib.sha256(canonical.encode()).hexdigest()[:24]

    def encode(self, offset: int, binding: str) -> str:
        payload = json.dumps({"o": offset, "b": binding}, separators=(",", ":")).encode()
        mac = hmac.new(self.secret, payload, hashlib.sha256).digest()[:12]
        return base64.urlsafe_b64encode(payload + mac).decode().rstrip("=")

    def decode(self, cursor: str, binding: str) -> int:
        """The offset a cursor points at, or 400 cursor_invalid when it is forged or bound to other filters."""
        try:
            raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
            payload, mac = raw[:-12], raw[-12:]
            valid = hmac.compare_digest(mac, hmac.new(self.secret, payload, hashlib.sha256).digest()[:12])
            decoded = json.loads(payload) if valid else None
        except ValueError:
            decoded = None
        if not isinstance(decoded, dict) or not isinstance(decoded.get("o"), int):
            raise CursorInvalidError("The cursor is not one this service issued; restart paging without a cursor.")
        if decoded.get("b") != binding:
            raise CursorInvalidError(
                "The cursor was issued for other filters or sort; keep them unchanged while paging, or restart."
            )
        offset: int = decoded["o"]
        return offset

    def page(self, items: Sequence[T], *, cursor: str | None, limit: int, binding: str) -> Page[T]:
        """Slice ``items`` (already filtered and sorted) at the cursor's offset."""
        start = 0 if cursor is None else self.decode(cursor, binding)
        chunk = items[start : start + limit]
        following = start + len(chunk)
        return Page(chunk, self.encode(following, binding) if following < len(items) else None)
