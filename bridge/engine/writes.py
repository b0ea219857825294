"""One v1 write as the engine journals, sends, splits and completes it.

A ``Write`` is the exact request (its published operationId and path parameters, JSON body, Idempotency-Key;
the client renders the path) plus what the engine needs to book it: the legacy ids it carries in request
order, their source hashes, and how to read their v1 ids from the answer. Its ``step_key`` is deterministic,
so a resumed run that rebuilds the same request finds the same journal row. A bulk that the service rejects
can be ``split`` in two; each half's Idempotency-Key is derived from the parent's
(``mappings.keys.child_key``), so a bisection resumed after a crash replays the same halves instead of sending
new ones.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from bridge.clients.v1_requests import BY_ID, FanOut, Operation
from mappings.keys import canonical_json, child_key, digest, part_key, request_key, text_digest
from mappings.kinds import Kind

JsonObject = dict[str, object]


@dataclass(frozen=True, slots=True)
class Write:
    """One request of a run and the bookkeeping to complete it.

    Everything the engine needs is derived from what the journal stores (kind, scope, operation, path, body,
    members, key), so an intent read back from the journal is a complete ``Write`` again: its method, bulk list
    field and fan-out come from its operation, its path parameters from the path the client rendered, a
    PATCH's v1 id from its last parameter, each member's source hash from its entry.
    """

    kind: Kind
    scope: str
    operation: str
    params: tuple[str, ...]
    body: JsonObject
    members: tuple[str, ...]
    key: str | None = None
    # A create the service answers as an update (the project's default estimate phase) counts as a create.
    counts_as: str = field(default="create", compare=False)
    # Keyless writes (PATCH) are salted with the run, so patching a record back to an earlier value in a later
    # run is a new step, not a step the journal already holds as done. ``step`` pins a journalled step key.
    salt: str = ""
    step: str | None = None
    # Derived on first use and kept: one write is journalled, sent, completed and logged, and each of those
    # reads its body text, hashes or step key; serializing the body anew each time was a tenth of a run's CPU.
    # ``replace`` starts a new write with these empty.
    _text: str | None = field(default=None, init=False, repr=False, compare=False)
    _hashes: tuple[str, ...] | None = field(default=None, init=False, repr=False, compare=False)
    # A fan-out's entries' digests, from which each entry's own key is derived (``entry_key``).
    _entry_digests: tuple[str, ...] | None = field(default=None, init=False, repr=False, compare=False)
    _step_key: str | None = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not self.members:
            raise ValueError(f"{self.kind} write to {self.path} carries no legacy record")
        if self.list_field is not None and len(self.entries()) != len(self.members):
            raise ValueError(f"{self.kind} write: body list {self.list_field!r} and members differ in length")
        if self.list_field is None and len(self.members) != 1:
            raise ValueError(f"{self.kind} write to {self.path} is not a bulk but carries {len(self.members)} records")

    @property
    def op(self) -> Operation:
        """The published operation this write is."""
        return BY_ID[self.operation]

    @property
    def method(self) -> str:
        return self.op.method

    @property
    def path(self) -> str:
        """The request's path, as the client renders it (what the journal records)."""
        return self.op.render(self.params)

    @property
    def fan_out(self) -> FanOut | None:
        """One journalled intent for many single-record requests, when the operation is one (split items)."""
        return self.op.fan_out

    @property
    def fanout(self) -> bool:
        return self.op.fan_out is not None

    @property
    def list_field(self) -> str | None:
        """The body's list of entries, for bulk and fan-out operations."""
        fan_out = self.op.fan_out
        return fan_out.list_field if fan_out is not None else self.op.list_field

    @property
    def known_ids(self) -> tuple[str, ...]:
        """A keyless write's v1 id: the path parameter its operation books it under (``Operation.record``)."""
        if self.method not in ("PATCH", "PUT") or not self.params:
            return ()
        return (self.params[self.op.record],)

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
        elif self.fan_out is not None:
            # A split part's own fields, not its transaction's v1 id: what a PATCH of the part sends.
            field_name = self.fan_out.body
            items = [canonical_json(entry[field_name]) for entry in self.entries()]  # type: ignore[index]
            texts = [
                _object_text(entry, {field_name: item})  # type: ignore[arg-type]
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
        """This write under ``mappings.keys.request_key(namespace, key_kind, scope, members, digest(body))``, the
        digest taken from the text it journals: the body is serialized once for both, and the text is kept."""
        body_digest = text_digest(self.body_text)
        write = replace(self, key=request_key(namespace, key_kind, self.scope, self.members, body_digest))
        for cache in ("_text", "_hashes", "_entry_digests"):
            object.__setattr__(write, cache, getattr(self, cache))
        return write

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
        return self.subset(range(middle)), self.subset(range(middle, len(self.members)))

    def subset(self, indexes: Sequence[int]) -> Write:
        """The entries at ``indexes`` as a write of their own, keyed from this write's key (a bulk's half, or
        what is left of a create once the records the target already holds are adopted)."""
        if self.list_field is None:
            raise ValueError(f"{self.kind} write {self.step_key} carries one record; it has no subset")
        entries = self.entries()
        body: JsonObject = {**self.body, self.list_field: [entries[i] for i in indexes]}
        members = tuple(self.members[i] for i in indexes)
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
