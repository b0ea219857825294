"""The target objects of one kind in one project, kept as one number each while the source is compared.

Verification reads a project's v1 transactions (and their split items) page by page before its legacy actuals
window by window; each legacy actual then looks its v1 copy up here. A dict of ids to models cost about 9 KB
a transaction, a dict of small ints still about 130 bytes. Here an object is one int in a list (about 70
bytes), packing from the top: the 64-bit hash of its v1 id, the hash of its natural key (what a duplicate of
it would share, ``ledger.py``), its currency and line as positions in a table of the few distinct ones, and
its amount. Sorting the list (``seal``) sorts by id hash, in place, so a lookup is a bisection; a byte per
object says whether a source record claimed it.

``hash`` of a string is stable within a process, which is as long as an index lives. Two v1 ids of one project
sharing a hash (about one chance in 10^9 for 100,000 transactions) would read as one object.
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass

HASH_BITS = 64
NAME_BITS = 20  # currency and line positions: a project has far fewer distinct ones than a million
AMOUNT_BITS = 80
AMOUNT_BIAS = 1 << (AMOUNT_BITS - 1)  # amounts are stored offset by this, so a negative one stays in its field
ID_SHIFT = HASH_BITS + 2 * NAME_BITS + AMOUNT_BITS
KEY_SHIFT = 2 * NAME_BITS + AMOUNT_BITS


def _unsigned(value: int) -> int:
    return value % (1 << HASH_BITS)


def _field(packed: int, shift: int, bits: int) -> int:
    return (packed >> shift) & ((1 << bits) - 1)


@dataclass(frozen=True, slots=True)
class Held:
    """What the index holds of one object besides its identity: what a transaction is compared by."""

    amount: int = 0
    currency: str | None = None
    line_id: str | None = None


class TargetIndex:
    """One kind's target objects in one project: ``add`` while listing, ``seal``, then ``find`` and ``claim``."""

    def __init__(self) -> None:
        self._rows: list[int] = []
        self._claimed = bytearray()
        self._names: dict[str | None, int] = {None: 0}
        self._by_position: list[str | None] = [None]
        # An amount beyond the packed field (no transaction's, but v1's schema bounds none): kept whole, by id hash.
        self._large: dict[int, int] = {}

    def __len__(self) -> int:
        return len(self._rows)

    def _name(self, name: str | None) -> int:
        if name not in self._names:
            self._names[name] = len(self._by_position)
            self._by_position.append(name)
        return self._names[name]

    def add(self, v1_id: str, natural_key: str, held: Held = Held()) -> None:
        """One object as it is listed (before ``seal``)."""
        identity = _unsigned(hash(v1_id))
        amount = held.amount + AMOUNT_BIAS
        if not 0 <= amount < 1 << AMOUNT_BITS:
            self._large[identity] = held.amount
            amount = 0
        names = self._name(held.currency) << NAME_BITS | self._name(held.line_id)
        self._rows.append(
            identity << ID_SHIFT | _unsigned(hash(natural_key)) << KEY_SHIFT | names << AMOUNT_BITS | amount
        )

    def seal(self) -> None:
        """Sort by id hash (in place) once every object is added: lookups bisect from here on."""
        self._rows.sort()
        self._claimed = bytearray(len(self._rows))

    def find(self, v1_id: str) -> int | None:
        """The object's position, None when the target does not hold it."""
        identity = _unsigned(hash(v1_id))
        position = bisect_left(self._rows, identity << ID_SHIFT)
        found = position < len(self._rows) and self._rows[position] >> ID_SHIFT == identity
        return position if found else None

    def held(self, position: int) -> Held:
        row = self._rows[position]
        large = self._large.get(row >> ID_SHIFT)
        amount = large if large is not None else _field(row, 0, AMOUNT_BITS) - AMOUNT_BIAS
        currency = self._by_position[_field(row, AMOUNT_BITS + NAME_BITS, NAME_BITS)]
        return Held(amount, currency, self._by_position[_field(row, AMOUNT_BITS, NAME_BITS)])

    def claim(self, position: int) -> None:
        """A source record's v1 copy is this object."""
        self._claimed[position] = 1

    def is_claimed(self, v1_id: str) -> bool:
        position = self.find(v1_id)
        return position is not None and bool(self._claimed[position])

    @property
    def unclaimed(self) -> int:
        """How many objects no source record claimed."""
        return self._claimed.count(0)

    def unclaimed_keys(self) -> frozenset[int]:
        """The natural-key hashes of the unclaimed objects: what they and their twins share (``key_of``)."""
        return frozenset(
            _field(row, KEY_SHIFT, HASH_BITS)
            for row, claimed in zip(self._rows, self._claimed, strict=True)
            if not claimed
        )


def key_of(natural_key: str) -> int:
    """A natural key as ``unclaimed_keys`` holds it."""
    return _unsigned(hash(natural_key))
