"""Idempotency keys: deterministic, within v1's length limits, distinct per logical request."""

from __future__ import annotations

import hashlib
import subprocess
import sys
from collections.abc import Sequence

from hypothesis import given
from hypothesis import strategies as st

from mappings.keys import MAX_KEY_LENGTH, MIN_KEY_LENGTH, child_key, digest, request_key, source_hash
from mappings.kinds import Kind
from mappings.refs import RecordRef
from mappings.results import Mapped
from tests.strategies import key_requests

Request = tuple[str, str, str, tuple[str, ...], dict[str, object]]


def body_key(namespace: str, kind: str, scope: str, ids: Sequence[str], body: object) -> str:
    """The Idempotency-Key of a request with this body, as the engine derives it (``Write.keyed``)."""
    return request_key(namespace, kind, scope, ids, digest(body))


@given(request=key_requests())
def test_key_is_deterministic_and_within_limits(request: Request) -> None:
    """The same request always gets the same key, whatever the order of its legacy ids, 16..255 chars."""
    namespace, kind, scope, ids, body = request
    key = body_key(namespace, kind, scope, ids, body)
    assert key == body_key(namespace, kind, scope, tuple(reversed(ids)), dict(reversed(body.items())))
    assert MIN_KEY_LENGTH <= len(key) <= MAX_KEY_LENGTH
    assert key.isascii()


@given(requests=st.lists(key_requests(), min_size=2, max_size=20))
def test_different_logical_requests_never_share_a_key(requests: list[Request]) -> None:
    """Keys collide only when namespace, kind, scope, id set and body are all equal."""
    seen: dict[str, tuple[object, ...]] = {}
    for namespace, kind, scope, ids, body in requests:
        key = body_key(namespace, kind, scope, ids, body)
        identity = (namespace, kind, scope, tuple(sorted(ids)), source_hash(body))
        assert seen.setdefault(key, identity) == identity


def test_a_changed_body_gets_a_new_key() -> None:
    """A request whose content changed never reuses the old key (no 409 idempotency_conflict)."""
    first = body_key("mig", "phase", "p1", ["ph1"], {"name": "Estimate"})
    assert first != body_key("mig", "phase", "p1", ["ph1"], {"name": "Estimate v2"})


def test_child_keys_derive_from_the_parent_and_differ_per_half() -> None:
    """A split bulk's halves get stable keys of their own, different from each other and from the parent."""
    parent = body_key("mig", "line.bulk", "p1", ["a", "b"], {"lines": [1, 2]})
    left = child_key(parent, ["a"], [1])
    right = child_key(parent, ["b"], [2])
    assert len({parent, left, right}) == 3
    assert left == child_key(parent, ["a"], [1])
    assert MIN_KEY_LENGTH <= len(left) <= MAX_KEY_LENGTH


def test_keys_are_stable_across_processes() -> None:
    """Another interpreter (another hash seed) derives the same key: nothing depends on process state."""
    code = (
        "from mappings.keys import digest, request_key as k; "
        "print(k('mig', 'tag', 'workspace', ['VFX'], digest({'n': 'é'})))"
    )
    other = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env={"PYTHONHASHSEED": "123"}
    )
    assert other.stdout.strip() == body_key("mig", "tag", "workspace", ["VFX"], {"n": "é"})


def test_source_hash_changes_exactly_when_the_mapped_body_changes() -> None:
    """A re-run patches a record only when what it maps to changed, not when key order did."""
    ref = RecordRef(Kind.PHASE, "ph1", "p1")
    first = Mapped(ref, {"name": "Estimate", "isHidden": False})
    assert first.source_hash == Mapped(ref, {"isHidden": False, "name": "Estimate"}).source_hash
    assert first.source_hash != Mapped(ref, {"name": "Estimate", "isHidden": True}).source_hash


def test_a_lone_surrogate_in_a_body_still_gets_a_key() -> None:
    """Key derivation never raises on text that is not valid Unicode; valid text keeps its key."""
    key = body_key("ns", "line", "p1", ["l1"], {"description": "Crew \ud800"})
    assert key != body_key("ns", "line", "p1", ["l1"], {"description": "Crew "})
    assert digest({"a": "é"}) == hashlib.sha256('{"a":"é"}'.encode()).hexdigest()
