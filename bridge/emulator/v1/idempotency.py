"""The Idempotency-Key layer of the v1 surface, with Stripe's semantics.

A create carries a key of 16 to 255 characters. The first successful response under a key is kept for the
retention window (24 hours by default, A20; settable in seconds for tests) and replayed, status and body, to
every later request with the same key and the same request, marked ``Idempotency-Replayed: true``. The same
key with a different request is a 409 ``idempotency_conflict``. A request that fails (validation, missing
references, auth) stores nothing, so the caller may fix it and retry under the same key. Keys are scoped per
workspace of the token. Concurrent requests with one key are serialised, so the second sees the first's result
(A36).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from itertools import takewhile

from starlette.datastructures import URL
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import Scope

from bridge.emulator.v1.errors import IdempotencyConflictError, ValidationError

KEY_HEADER = "Idempotency-Key"
REPLAYED_HEADER = "Idempotency-Replayed"
MIN_KEY_LENGTH = 16
MAX_KEY_LENGTH = 255
DEFAULT_RETENTION_S = 24 * 3600.0
# What Starlette's URL is built from (``starlette.datastructures.URL(scope=...)``).
URL_KEYS = ("scheme", "server", "path", "query_string", "headers")


@dataclass(frozen=True, slots=True)
class Fingerprint:
    """What makes two requests 'the same': method, path and the JSON body's content (not its whitespace).

    The request is kept as sent and put in canonical form only when a repeat under its key differs from it
    byte for byte: nearly every request is a key's first use, and a bulk's body took longer to decode and
    re-encode than to handle. Equal bytes have equal canonical forms, so the answer is the one comparing the
    canonical forms every time would give. The path is Starlette's reading of the request's URL, kept as what
    that reading needs and read only on a repeat too (building the URL was a tenth of an item's handling)."""

    method: str
    target: Scope
    body: bytes

    @classmethod
    def of(cls, request: Request, body: bytes) -> Fingerprint:
        return cls(request.method, {name: request.scope[name] for name in URL_KEYS if name in request.scope}, body)

    @property
    def path(self) -> str:
        return URL(scope=self.target).path

    def same_request(self, other: Fingerprint) -> bool:
        if (self.method, self.path) != (other.method, other.path):
            return False
        return self.body == other.body or _canonical(self.body) == _canonical(other.body)


def _canonical(body: bytes) -> bytes:
    if not body:
        return b""
    try:
        return json.dumps(json.loads(body), sort_keys=True, separators=(",", ":")).encode()
    except ValueError:
        return body


@dataclass(frozen=True, slots=True)
class _Stored:
    fingerprint: Fingerprint
    status: int
    body: bytes
    media_type: str
    stored_at: float


def check_key(key: str | None) -> str:
    """The key if it is present and of a documented length, else the documented 400."""
    if key is None:
        raise ValidationError(
            f"This create needs an {KEY_HEADER} header (16 to 255 characters) so it can be retried safely.",
            fieldErrors={KEY_HEADER: ["is required"]},
        )
    if not MIN_KEY_LENGTH <= len(key) <= MAX_KEY_LENGTH:
        raise ValidationError(
            f"{KEY_HEADER} is {len(key)} characters long; it must be {MIN_KEY_LENGTH} to {MAX_KEY_LENGTH} characters.",
            fieldErrors={KEY_HEADER: [f"must be {MIN_KEY_LENGTH} to {MAX_KEY_LENGTH} characters"]},
        )
    return key


@dataclass(slots=True)
class IdempotencyStore:
    """First responses by (workspace, key), replayed within the retention window."""

    retention_s: float = DEFAULT_RETENTION_S
    clock: Callable[[], float] = time.time
    replays: int = 0
    _entries: dict[tuple[str, str], _Stored] = field(default_factory=dict)
    _locks: dict[tuple[str, str], asyncio.Lock] = field(default_factory=dict)

    def __getstate__(self) -> dict[str, object]:
        # A saved emulator (``control.persist``) keeps the first responses; the per-key locks belong to the
        # requests in progress in this process and cannot outlive it.
        return {
            "retention_s": self.retention_s,
            "clock": self.clock,
            "replays": self.replays,
            "_entries": self._entries,
        }

    def __setstate__(self, saved: dict[str, object]) -> None:
        for name, value in saved.items():
            object.__setattr__(self, name, value)
        self._locks = {}

    def clear(self) -> None:
        """Forget every key (the control API's reset)."""
        self._entries.clear()
        self._locks.clear()
        self.replays = 0

    def _expire(self) -> None:
        # Entries are stored in the order they were made, so the expired ones are a prefix: each request
        # looks at the expired keys and one more, not at every key the service holds.
        horizon = self.clock() - self.retention_s
        for scoped in [k for k, _ in takewhile(lambda kv: kv[1].stored_at <= horizon, self._entries.items())]:
            del self._entries[scoped]
            self._locks.pop(scoped, None)

    async def run(
        self,
        workspace: str,
        key: str | None,
        request_fingerprint: Fingerprint,
        produce: Callable[[], Awaitable[Response]],
    ) -> Response:
        """Replay the stored response for this key, or produce, store and return a new one."""
        scoped = (workspace, check_key(key))
        self._expire()
        lock = self._locks.setdefault(scoped, asyncio.Lock())
        async with lock:
            stored = self._entries.get(scoped)
            if stored is not None:
                if not stored.fingerprint.same_request(request_fingerprint):
                    raise IdempotencyConflictError(
                        f"{KEY_HEADER} {key!r} was first used for a different request; use a new key for new work."
                    )
                self.replays += 1
                return Response(
                    stored.body,
                    status_code=stored.status,
                    media_type=stored.media_type,
                    headers={REPLAYED_HEADER: "true"},
                )
            response = await produce()
            if 200 <= response.status_code < 300:
                self._entries[scoped] = _Stored(
                    request_fingerprint,
                    response.status_code,
                    bytes(response.body),
                    response.media_type or "application/json",
                    self.clock(),
                )
            return response
