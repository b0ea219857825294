"""One v1 write as the engine journals, sends, splits and completes it.

A ``Write`` is the exact request (its published operationId, method, path, JSON body, Idempotency-Key) plus
what the engine needs to book it: the legacy ids it carries in request order, their source hashes, and how to
read their v1 ids from the answer. Its ``step_key`` is deterministic, so a resumed run that rebuilds the same
request finds the same journal row. A bulk that the service rejects can be ``split`` in two; each half's
Idempotency-Key is derived from the parent's (``mappings.keys.child_key``), so a bisection resumed after a
crash replays the same halves instead of sending new ones.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from bridge.clients.v1_requests import BY_ID, operation_of
from mappings.keys import canonical_json, child_key, digest, part_key, request_key, text_digest
from mappings.kinds import Kind

JsonObject = dict[str, object]


@dataclass(frozen=True, slots=True)
class Derived:
    """A second crosswalk entry read from a single-object answer, e.g. a new project's default phase."""

    kind: str
    pointer: tuple[str, ...]


# A6: a new project answers defaultBudget.estimatePhaseId; the legacy project's first estimate phase maps onto
# it (kept under this crosswalk kind, scope = the legacy project id, legacy id = the legacy project id).
DEFAULT_PHASE = "default_phase"
DERIVED: dict[Kind, tuple[Derived, ...]] = {
    Kind.PROJECT: (Derived(DEFAULT_PHASE, ("defaultBudget", "estimatePhaseId")),)
}
# Split items have no bulk endpoint: one POST /transactions/{id}/items each. A fan-out journals up to
# FANOUT_LIMIT of them as ONE intent (one journal record and one completion instead of one per item) and sends
# each entry with its own key derived from the intent's, so a replay re-sends every entry under the same key
# and the target answers the ones it already made. Entries are {"transactionId", "item"}; the intent's
# operation is the one each entry is (transactions_createItem).
FANOUT_PATH = "/transactions/-/items"
FANOUT_LIST = "items"
FANOUT_LIMIT = 200


@dataclass(frozen=True, slots=True)
class Write:
    """One request of a run and the bookkeeping to complete it.

    Everything the engine needs is derived from what the journal stores (kind, scope, operation, method,
    path, body, members, key), so an intent read back from the journal is a complete ``Write`` again: a bulk's
    list field comes from its operation, a PATCH's v1 id from its path, each member's source hash from its
    entry. ``operation`` is the published operationId; left empty, it is the one ``method path`` is.
    """

    kind: Kind
    scope: str
    method: str
    path: str
    body: JsonObject
    members: tuple[str, ...]
    key: str | None = None
    # A create the service answers as an update (the project's default estimate phase) counts as a create.
    counts_as: str = field(default="create", compare=False)
    # Keyless writes (PATCH) are salted with the run, so patching a record back to an earlier value in a later
    # run is a new step, not a step the journal already holds as done. ``step`` pins a journalled step key.
    salt: str = ""
    step: str | None = None
    operation: str = ""
    # Derived on first use and kept: one write is journalled, sent, completed and logged, and each of those
    # reads its body text, hashes or step key; serializing the body anew each time was a tenth of a run's CPU.
    # ``replace`` starts a new write with these empty.
    _text: str | None = field(default=None, init=False, repr=False, compare=False)
    _hashes: tuple[str, ...] | None = field(default=None, init=False, repr=False, compare=False)
    # A fan-out's entries' digests, from which each entry's own key is derived (``entry_key``).
    _entry_digests: tuple[str, ...] | None = field(default=None, init=False, repr=False, compare=False)
    _step_key: str | None = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not self.operation:
            object.__setattr__(self, "operation", operation_of(self.method, self.path).id)
        if not self.members:
            raise ValueError(f"{self.kind} write to {self.path} carries no legacy record")
        if self.list_field is not None and len(self.entries()) != len(self.members):
            raise ValueError(f"{self.kind} write: body list {self.list_field!r} and members differ in length")
        if self.list_field is None and len(self.members) != 1:
            raise ValueError(f"{self.kind} write to {self.path} is not a bulk but carries {len(self.members)} records")

    @property
    def list_field(self) -> str | None:
        """The body's list of bulk entries, for bulk endpoints."""
        if self.fanout:
            return FANOUT_LIST
        return BY_ID[self.operation].list_field

    @property
    def known_ids(self) -> tuple[str, ...]:
        """An update's v1 id: the last segment of its path."""
        return (self.path.rsplit("/", 1)[-1],) if self.method in ("PATCH", "PUT") else ()

    @property
    def hashes(self) -> tuple[str, ...]:
        """Each member's source hash: the digest of its entry as mapped (what a re-run compares)."""
        if self._hashes is None:
            self._encode()
        assert self._hashes is not None
        return self._hashes

    def _encode(self) -> None:
        """Serialize the body once for its text, its members' hashes and (fan-out) its entries' digests.

        A bulk's canonical text is its entries' canonical texts joined (``json.dumps`` writes a list as its
        items' texts between ``[`` ``,`` ``]``, and an object as its sorted keys' ``"key":value``), so the
        entries are serialized for their hashes and the body's text is put together from them: the same
        characters as ``canonical_json(body)``, each hash the same as ``source_hash(entry)``. A fan-out's entry
        is put together the same way around its item, whose hash is the member's.
        """
        if self.list_field is None:
            text = canonical_json(self.body)
            hashes: tuple[str, ...] = (text_digest(text),)
        elif self.fanout:
            # A split part's own fields, not its transaction's v1 id: what a PATCH of the part sends.
            items = [canonical_json(entry["item"]) for entry in self.entries()]  # type: ignore[index]
            texts = [
                _object_text(entry, {"item": item})  # type: ignore[arg-type]
                for entry, item in zip(self.entries(), items, strict=True)
            ]
            hashes = tuple(text_digest(item) for item in items)
            object.__setattr__(self, "_entry_digests", tuple(text_digest(entry) for entry in texts))
            text = _object_text(self.body, {self.list_field: "[" + ",".join(texts) + "]"})
        else:
            texts = [canonical_json(entry) for entry in self.entries()]
            hashes = tuple(text_digest(entry) for entry in texts)
            text = _object_text(self.body, {self.list_field: "[" + ",".join(texts) + "]"})
        object.__setattr__(self, "_text", text)
        object.__setattr__(self, "_hashes", hashes)

    def keyed(self, namespace: str, key_kind: str) -> Write:
        """This write under ``mappings.keys.idempotency_key(namespace, key_kind, scope, members, body)``, the body
        digest taken from the text it journals: the body is serialized once for both, and the text is kept."""
        body_digest = text_digest(self.body_text)
        write = replace(self, key=request_key(namespace, key_kind, self.scope, self.members, body_digest))
        for cache in ("_text", "_hashes", "_entry_digests"):
            object.__setattr__(write, cache, getattr(self, cache))
        return write

    @property
    def derived(self) -> tuple[Derived, ...]:
        return DERIVED.get(self.kind, ()) if self.method == "POST" else ()

    @property
    def step_key(self) -> str:
        """Deterministic journal key: the Idempotency-Key when there is one, else a digest of the request."""
        if self.step is not None:
            return self.step
        if self.key is not None:
            return f"{self.kind.value}:{self.key}"
        if self._step_key is None:
            request = [self.salt, self.scope, self.method, self.path, self.body, list(self.members)]
            object.__setattr__(self, "_step_key", f"{self.kind.value}:{digest(request)}")
        assert self._step_key is not None
        return self._step_key

    @property
    def body_text(self) -> str:
        """The exact JSON text that is journalled (the body's canonical JSON)."""
        if self._text is None:
            self._encode()
        assert self._text is not None
        return self._text

    def entries(self) -> list[object]:
        """The body's list of bulk entries (empty for a single-record write)."""
        if self.list_field is None:
            return []
        value = self.body.get(self.list_field)
        return list(value) if isinstance(value, list) else []

    @property
    def fanout(self) -> bool:
        """One journalled intent for many single-record requests (see FANOUT_PATH)."""
        return self.path == FANOUT_PATH

    def entry_key(self, index: int) -> str:
        """The Idempotency-Key of a fan-out's ``index``-th request, derived from the intent's own key.

        ``mappings.keys.child_key(key, (member,), entry)``, with the entry's digest kept from ``_encode``."""
        if self.key is None:
            raise ValueError(f"fan-out {self.step_key} has no key to derive its requests' keys from")
        if self._entry_digests is None:
            self._encode()
        assert self._entry_digests is not None  # _encode keeps them for a fan-out
        return part_key(self.key, (self.members[index],), self._entry_digests[index])

    @property
    def splittable(self) -> bool:
        # A fan-out is not all-or-nothing on the target: it is never split, each entry stands on its own.
        return self.list_field is not None and len(self.members) > 1 and not self.fanout

    def split(self) -> tuple[Write, Write]:
        """The two halves of a bulk, each with a key derived from this write's key."""
        if not self.splittable or self.list_field is None:
            raise ValueError(f"{self.kind} write {self.step_key} carries one record; it cannot be split")
        middle = len(self.members) // 2
        entries = self.entries()
        return (self._part(entries, slice(0, middle)), self._part(entries, slice(middle, None)))

    def _part(self, entries: Sequence[object], part: slice) -> Write:
        assert self.list_field is not None
        body: JsonObject = {**self.body, self.list_field: list(entries[part])}
        members = self.members[part]
        key = child_key(self.key, members, body) if self.key is not None else None
        return replace(self, body=body, members=members, key=key, step=None)

    def v1_ids(self, answer: object) -> list[str]:
        """The v1 id of every member, in member order, read from the service's answer."""
        if self.known_ids:
            return list(self.known_ids)
        if self.list_field is not None:
            data = answer.get("data") if isinstance(answer, Mapping) else answer
            if not isinstance(data, list) or len(data) != len(self.members):
                raise ValueError(f"{self.kind} bulk answer does not hold {len(self.members)} objects in order")
            return [id_of(item, self.kind) for item in data]
        return [id_of(answer, self.kind)]

    def derived_ids(self, answer: object) -> list[tuple[str, str]]:
        """(crosswalk kind, v1 id) pairs for the ``derived`` entries found in a single-object answer."""
        found: list[tuple[str, str]] = []
        for entry in self.derived:
            node: object = answer
            for part in entry.pointer:
                node = node.get(part) if isinstance(node, Mapping) else None
            if isinstance(node, str):
                found.append((entry.kind, node))
        return found


def id_of(item: object, kind: Kind) -> str:
    """The v1 id of one object the service answered."""
    if isinstance(item, Mapping) and isinstance(item.get("id"), str):
        return str(item["id"])
    raise ValueError(f"{kind} answer has no string id")


def _object_text(body: Mapping[str, object], known: Mapping[str, str]) -> str:
    """``canonical_json(body)`` with the texts of the ``known`` fields given rather than serialized again."""
    fields = (
        f"{canonical_json(name)}:{known[name] if name in known else canonical_json(value)}"
        for name, value in sorted(body.items())
    )
    return "{" + ",".join(fields) + "}"
