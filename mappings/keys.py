"""Deterministic Idempotency-Keys and change-detection hashes, derived only from what the request means.

A key is ``wb1-`` + SHA-256 over the canonical JSON of (migration namespace, kind, scope, sorted legacy ids,
digest of the body): 68 characters (inside v1's 16..255), the same in every process and on every machine,
different for any different logical request, and different when the body changes (so a changed request
never reuses a key and never meets 409 idempotency_conflict). A bulk split after a rejection derives each
half's key from the parent key and the half's ids, so a resumed bisection replays the same child keys.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from typing import Final

KEY_PREFIX: Final = "wb1-"
"""Versioned so a future change of derivation can never collide with keys already sent."""

MIN_KEY_LENGTH: Final = 16
MAX_KEY_LENGTH: Final = 255


# One encoder for every call: ``json.dumps`` with these arguments builds this same encoder on each call and
# encodes with it, so the text is the same, without constructing an encoder per value (a third of the cost of
# serializing a small body).
_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def canonical_json(value: object) -> str:
    """Sorted keys, no whitespace, UTF-8 kept, NaN refused: one text per JSON value, on every machine."""
    return _CANONICAL.encode(value)


def text_digest(text: str) -> str:
    """SHA-256 hex of a canonical text already serialized: ``digest(value)`` is ``text_digest(canonical_json(value))``.

    ``surrogatepass``: text holding a lone surrogate is refused by the mappings before it reaches a body, and
    should one slip through, hashing it must not be what stops a run (valid text encodes exactly as UTF-8).
    """
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def digest(value: object) -> str:
    """SHA-256 hex of a JSON value's canonical text."""
    return text_digest(canonical_json(value))


def request_key(namespace: str, kind: str, scope: str, legacy_ids: Iterable[str], body_digest: str) -> str:
    """The key of one logical request, from its body's ``digest``: the same inputs always give the same key,
    any difference another."""
    if not namespace:
        raise ValueError("an idempotency key needs the migration namespace; pass the run's namespace")
    ids = sorted(legacy_ids)
    if not ids:
        raise ValueError(f"a {kind} request in {scope!r} names no legacy ids; every request maps some record")
    return KEY_PREFIX + digest([namespace, kind, scope, ids, body_digest])


def part_key(parent_key: str, legacy_ids: Iterable[str], body_digest: str) -> str:
    """``child_key`` for a part whose body digest is known."""
    return KEY_PREFIX + digest([parent_key, sorted(legacy_ids), body_digest])


def child_key(parent_key: str, legacy_ids: Iterable[str], body: object) -> str:
    """The key of part of a split bulk: derived from the parent's key, the part's sorted ids and its body."""
    return part_key(parent_key, legacy_ids, digest(body))


def source_hash(body: object) -> str:
    """A stable hash of a record as mapped: the engine stores it and re-sends only what changed."""
    return digest(body)
