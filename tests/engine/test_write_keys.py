"""Keys and hashes do not depend on how they are computed: a resumed or upgraded run derives the same ones.

A write serializes its body once for its journalled text, its members' hashes, its Idempotency-Key and (a
fan-out) each entry's key. Whatever the shortcut, every one of them must be, byte for byte, what the plain
definitions give (``request_key`` over the body's digest, ``child_key``, ``source_hash``, each digest over
``json.dumps`` with sorted keys), and what earlier versions of the bridge derived: otherwise a delta run after
an upgrade would see every record as changed and a resume would send known requests under new keys.
"""

from __future__ import annotations

import hashlib
import json
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bridge.engine.writes import JsonObject, Write
from mappings.keys import canonical_json, child_key, digest, request_key, source_hash
from mappings.kinds import Kind
from tests.mappings.json_values import JSON_OBJECTS, JSON_VALUES


def reference_text(value: object) -> str:
    """The canonical text by its definition: the standard library's encoder, sorted keys, no whitespace."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def reference_digest(value: object) -> str:
    return hashlib.sha256(reference_text(value).encode("utf-8", "surrogatepass")).hexdigest()


def reference_key(namespace: str, kind: str, scope: str, members: tuple[str, ...], body: object) -> str:
    """The Idempotency-Key by its definition: the request's identity over its body's reference digest."""
    return request_key(namespace, kind, scope, members, reference_digest(body))


@given(value=JSON_VALUES)
def test_canonical_text_is_the_standard_librarys(value: object) -> None:
    """Floats (1e16, 1.5e-05, -0.0), integers past 64 bits, non-ASCII and lone surrogates keep their text."""
    assert canonical_json(value) == reference_text(value)
    assert digest(value) == reference_digest(value)


@pytest.mark.parametrize("value", [math.nan, math.inf, {"rate": -math.inf}, [1, math.nan]])
def test_a_value_json_cannot_write_is_refused(value: object) -> None:
    """NaN and infinities have no JSON text: refused, never hashed as something else."""
    with pytest.raises(ValueError, match="JSON compliant"):
        canonical_json(value)


def _fanout(items: list[JsonObject]) -> Write:
    entries: list[object] = [{"transactionId": f"txn_{n % 2}", "item": item} for n, item in enumerate(items)]
    members = tuple(f"act_{n}#0" for n in range(len(items)))
    return Write(Kind.SPLIT, "prj_1", "transactions_createItem", (), {"items": entries}, members).keyed(
        "mig-1", "split.fanout"
    )


@given(items=st.lists(JSON_OBJECTS, min_size=1, max_size=4))
def test_a_fanout_keys_and_hashes_are_their_definitions(items: list[JsonObject]) -> None:
    """The intent's key, each entry's key and each member's hash, as if each were serialized on its own."""
    write = _fanout(items)
    body = write.body
    assert write.body_text == reference_text(body)
    assert write.key == reference_key("mig-1", "split.fanout", "prj_1", write.members, body)
    entries = write.entries()
    for index, entry in enumerate(entries):
        assert isinstance(entry, dict)
        assert write.hashes[index] == reference_digest(entry["item"])
        assert write.entry_key(index) == child_key(str(write.key), (write.members[index],), entry)


@given(entries=st.lists(JSON_OBJECTS, min_size=1, max_size=4), extra=JSON_OBJECTS)
def test_a_bulk_and_a_single_write_keys_are_their_definitions(entries: list[JsonObject], extra: JsonObject) -> None:
    """A bulk (whatever else its body holds) and a single create: key, text and hashes as defined."""
    body: JsonObject = {**{k: v for k, v in extra.items() if k != "lines"}, "lines": list(entries)}
    members = tuple(f"l{n}" for n in range(len(entries)))
    bulk = Write(Kind.LINE, "prj_1", "budget_createLinesBulk", ("prj_1",), body, members)
    bulk = bulk.keyed("mig-1", "line.bulk")
    assert bulk.body_text == reference_text(body)
    assert bulk.key == reference_key("mig-1", "line.bulk", "prj_1", members, body)
    assert bulk.hashes == tuple(reference_digest(entry) for entry in entries)
    single = Write(Kind.CONTACT, "workspace", "contacts_create", (), extra, ("c1",)).keyed("mig-1", "contact")
    assert single.key == reference_key("mig-1", "contact", "workspace", ("c1",), extra)
    assert single.hashes == (source_hash(extra),)


# Values whose text is easy to get wrong, and the keys and hashes the bridge has always derived for them.
ODD: JsonObject = {
    "description": 'Caf\u00e9 \u2014 "q"\n\t\U0001f3ac \\',
    "rate": 1e16,
    "small": 1.5e-05,
    "neg": -0.0,
    "big": 2**70,
    "z": None,
    "flag": True,
    "phaseData": {"b": {"y": 1, "x": "2"}, "a": [1, 2.5]},
}
PART: JsonObject = {"amount": {"amount": 306802, "currency": "USD"}, "description": "Part 1", "budgetLineId": "lin_2"}
BAD_TEXT: JsonObject = {"description": "Crew \ud800", "amount": {"amount": 1, "currency": "USD"}}


def test_keys_and_hashes_are_those_earlier_versions_derived() -> None:
    """Pinned values: an upgrade that changed any of them would re-send and re-patch a whole workspace."""
    entries: list[object] = [
        {"transactionId": "txn_1", "item": PART},
        {"transactionId": "txn_1", "item": ODD},
        {"transactionId": "txn_2", "item": BAD_TEXT},
    ]
    members = ("a1#0", "a1#1", "a2#0")
    fanout = Write(Kind.SPLIT, "prj_1", "transactions_createItem", (), {"items": entries}, members).keyed(
        "mig-1", "split.fanout"
    )
    assert fanout.key == "wb1-9df7f274bf138e0cbfe3e47fcb43a4838591053e8c1dff5f4cdc3c360e5d6d81"
    assert [fanout.entry_key(n) for n in range(3)] == [
        "wb1-6409cb008f39d169c4bb23b8f7dbbfab931d73bd847d90e10047b65d95cf2fc8",
        "wb1-2eba34cc0581824f29c6c3fe7cee31d2d0fe4370b961c4bf99e6772c402d5f3d",
        "wb1-3d30ac93950504b55bf2f72331fad80bb2ae05ce24d0473aad499381a8b89fa5",
    ]
    odd_hash = "9a6d7d30256580857cea3414dd77c9d9bf739c6a9b0201bc5019ed3213981828"
    assert fanout.hashes == (
        "3f819581d963b173f95aacd1ac4f619602c61afb5ca88bc6dfe5971920efe80c",
        odd_hash,
        "7cda1938140d14c085fbe3e9920881b3f86053c09598e3c9858339e6907fdd09",
    )
    body: JsonObject = {"lines": [ODD, {"description": "x", "type": "line"}], "zAfter": "\u00fc"}
    assert (
        reference_key("mig-1", "line.bulk", "prj_1", ("l2", "l1"), body)
        == "wb1-59c4d87a48906f161af916bf571605e43c02bf3629fd32fa64e1ab84e645f260"
    )
    bulk = Write(Kind.LINE, "prj_1", "budget_createLinesBulk", ("prj_1",), body, ("l2", "l1"))
    assert bulk.keyed("mig-1", "line.bulk").key == reference_key("mig-1", "line.bulk", "prj_1", ("l2", "l1"), body)
    assert bulk.hashes == (odd_hash, "fd7cbf3bdac5fd50c940aa31e22e67a46e6d54561cb8734566f8051b433bdff9")
    assert (
        reference_key("mig-1", "contact", "workspace", ("c1",), ODD)
        == "wb1-124a112328869ba0e4449a4052ac01cfefeaa61f302d9e5e8f534fa77b29da3b"
    )
    assert source_hash(ODD) == odd_hash
    assert (
        child_key("wb1-parent", ["l1"], [ODD]) == "wb1-a937052fd987e223e8d0471167a754c0d400a807dc0b08488e757741c1d90cdb"
    )
