"""Opaque, signed cursors bound to the filters and sort of the request that produced them (A22).

A cursor carries an offset and a digest of the request's binding (route, filters, sort, page size excluded),
signed with a per-process secret, so a client cannot forge one and a cursor reused with other filters is
refused with 400 ``cursor_invalid`` instead of silently paging a different list.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import itertools
import json
import secrets
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from bridge.emulator.core.ledger import Sliced
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
        """Slice ``items`` (already filtered and sorted) at the cursor's offset. Only the page and the one item
        after it are read (is there a next page?), so a list that is read as it is indexed (``Pulled``, a
        ledger's order) serves a page without going through the rest."""
        start = 0 if cursor is None else self.decode(cursor, binding)
        window = items[start : start + limit + 1]
        chunk = window[:limit]
        following = start + len(chunk)
        return Page(chunk, self.encode(following, binding) if len(window) > limit else None)


class Pulled(Sliced[T]):
    """A sequence read from an iterator only as far as it is indexed: a page near the front of a filtered or
    merged list costs the rows up to it, not the whole list (its length reads it all)."""

    def __init__(self, rows: Iterator[T]) -> None:
        self._rows = rows
        self._read: list[T] = []

    def _slice(self, start: int, stop: int | None) -> list[T]:
        wanted = None if stop is None else stop - len(self._read)
        if wanted is None or wanted > 0:
            self._read.extend(itertools.islice(self._rows, wanted))
        return self._read[start:stop]

    def __len__(self) -> int:
        return len(self._slice(0, None))

    def __iter__(self) -> Iterator[T]:
        yield from self._read
        for row in self._rows:
            self._read.append(row)
            yield row
