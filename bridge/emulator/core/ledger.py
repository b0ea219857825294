"""A project's actuals: a mapping by id that keeps them in date order too, so a page is sliced, not sorted.

The v1 surface lists transactions newest first (date descending, then id) a page at a time; the legacy surface
reads actuals in date windows, each answered in creation order. Both scanned and sorted every actual of the
project on every request (0.3 s a page at 100,000 actuals in one project). A ``Ledger`` keeps an ordered index
beside the mapping, updated as actuals are stored and removed: a page costs its own rows and a window the rows
dated in it (plus bisections), whatever the project holds.

An actual's date is read when it is stored. The store replaces an actual whose date changes (it rebuilds it
whole), so the index follows; code that edits a stored actual's ``date`` in place must store it again.
"""

from __future__ import annotations

import bisect
import itertools
from abc import abstractmethod
from collections.abc import Iterator, KeysView, MutableMapping, Sequence, ValuesView
from datetime import datetime
from typing import TYPE_CHECKING, TypeVar, overload

if TYPE_CHECKING:  # the model holds ledgers: at run time this module needs no more of an actual than its fields
    from bridge.emulator.core.model import Actual

T = TypeVar("T")
# (-timestamp, id): ascending is newest first, equal moments by id, as the v1 list orders them.
OrderKey = tuple[float, str]
# Where a stored actual stands in a ledger's order: its order key, then when its mapping key was first stored
# (as a dict keeps them: what a stable sort left equal keys in), then that mapping key (an actual stored under
# a key that is not its id, as hostile data may be, is still found).
Position = tuple[float, str, int, str]
FIRST: Position = (-float("inf"), "", -1, "")
# A window's bounds are compared as timestamps (floats) first and exactly after: this much slack keeps every
# actual a float's rounding could misplace among the candidates.
SLACK_S = 1.0


def order_key(actual: Actual) -> OrderKey:
    return (-actual.date.timestamp(), actual.id)


class SortedKeys:
    """Positions ascending, in chunks of at most ``2 * LOAD``: an insert or a removal moves one chunk's worth
    of references, and the i-th key is found by bisecting the chunks' running lengths."""

    LOAD = 512

    def __init__(self) -> None:
        self._chunks: list[list[Position]] = []
        self._maxes: list[Position] = []
        self._starts: list[int] | None = [0]  # position of each chunk's first key; None until needed again
        self._len = 0

    def __len__(self) -> int:
        return self._len

    def add(self, key: Position) -> None:
        self._len += 1
        self._starts = None
        if not self._chunks:
            self._chunks.append([key])
            self._maxes.append(key)
            return
        at = min(bisect.bisect_left(self._maxes, key), len(self._chunks) - 1)
        chunk = self._chunks[at]
        bisect.insort(chunk, key)
        self._maxes[at] = chunk[-1]
        if len(chunk) > 2 * self.LOAD:
            self._chunks[at : at + 1] = [chunk[: self.LOAD], chunk[self.LOAD :]]
            self._maxes[at : at + 1] = [chunk[self.LOAD - 1], chunk[-1]]

    def remove(self, key: Position) -> None:
        at = bisect.bisect_left(self._maxes, key)
        chunk = self._chunks[at]
        del chunk[bisect.bisect_left(chunk, key)]
        self._len -= 1
        self._starts = None
        if chunk:
            self._maxes[at] = chunk[-1]
        else:
            del self._chunks[at], self._maxes[at]

    def clear(self) -> None:
        self._chunks.clear()
        self._maxes.clear()
        self._starts = [0]
        self._len = 0

    def slice(self, start: int, stop: int) -> list[Position]:
        """The keys at positions ``start`` to ``stop`` (0 <= start, exclusive stop)."""
        if self._starts is None:
            self._starts = [0, *itertools.accumulate(len(chunk) for chunk in self._chunks)]
        taken: list[Position] = []
        at = max(0, bisect.bisect_right(self._starts, start) - 1)
        offset = start - self._starts[at]
        while len(taken) < stop - start and at < len(self._chunks):
            taken.extend(self._chunks[at][offset : offset + stop - start - len(taken)])
            at, offset = at + 1, 0
        return taken

    def from_key(self, low: Position) -> Iterator[Position]:
        """The positions from ``low`` on, ascending."""
        at = bisect.bisect_left(self._maxes, low)
        if at == len(self._chunks):
            return
        yield from self._chunks[at][bisect.bisect_left(self._chunks[at], low) :]
        for chunk in self._chunks[at + 1 :]:
            yield from chunk


class Sliced(Sequence[T]):
    """A read-only sequence read a slice at a time. A subclass gives ``__len__`` and ``_slice(start, stop)``
    (``0 <= start``, ``stop`` None for the end); indexing asks it for no more than the index needs, so a page
    near the front never makes it read (or count) the rest."""

    @abstractmethod
    def _slice(self, start: int, stop: int | None) -> list[T]: ...

    @overload
    def __getitem__(self, index: int) -> T: ...

    @overload
    def __getitem__(self, index: slice) -> list[T]: ...

    def __getitem__(self, index: int | slice) -> T | list[T]:
        if isinstance(index, slice):
            start, stop = index.start or 0, index.stop
            if index.step in (None, 1) and start >= 0 and (stop is None or stop >= 0):
                return self._slice(start, stop)
            return self._slice(0, None)[index]
        found = self._slice(index, index + 1) if index >= 0 else self._slice(0, None)[index:][:1]
        if not found:
            raise IndexError(index)
        return found[0]


class NewestFirst(Sliced["Actual"]):
    """A ledger's actuals newest first, read by position without walking the ones before."""

    def __init__(self, ledger: Ledger) -> None:
        self._ledger = ledger

    def __len__(self) -> int:
        return len(self._ledger)

    def _slice(self, start: int, stop: int | None) -> list[Actual]:
        keys = self._ledger.order.slice(start, len(self._ledger) if stop is None else stop)
        return [self._ledger[key[3]] for key in keys]

    def __iter__(self) -> Iterator[Actual]:
        return (self._ledger[key[3]] for key in self._ledger.order.from_key(FIRST))


class Ledger(MutableMapping[str, "Actual"]):
    """Actuals by id, in the order they were first stored (as a dict keeps them), and by date."""

    __slots__ = ("_next_seq", "_positions", "_rows", "order")

    def __init__(self) -> None:
        self._rows: dict[str, Actual] = {}
        self._positions: dict[str, Position] = {}
        self._next_seq = 0
        self.order = SortedKeys()

    # Reads go straight to the dict: they are most of what the store and the totals ask of a project's actuals.
    def __getitem__(self, actual_id: str) -> Actual:
        return self._rows[actual_id]

    def __contains__(self, actual_id: object) -> bool:
        return actual_id in self._rows

    def __iter__(self) -> Iterator[str]:
        return iter(self._rows)

    def __len__(self) -> int:
        return len(self._rows)

    def get(self, actual_id: str, default: Actual | None = None) -> Actual | None:  # type: ignore[override]
        return self._rows.get(actual_id, default)

    def keys(self) -> KeysView[str]:
        return self._rows.keys()

    def values(self) -> ValuesView[Actual]:
        return self._rows.values()

    def __setitem__(self, actual_id: str, actual: Actual) -> None:
        held = self._positions.get(actual_id)
        if held is None:
            seq, self._next_seq = self._next_seq, self._next_seq + 1
        else:
            seq = held[2]
        position = (*order_key(actual), seq, actual_id)
        if held != position:
            if held is not None:
                self.order.remove(held)
            self.order.add(position)
            self._positions[actual_id] = position
        self._rows[actual_id] = actual

    def __delitem__(self, actual_id: str) -> None:
        del self._rows[actual_id]
        self.order.remove(self._positions.pop(actual_id))

    def clear(self) -> None:
        self._rows.clear()
        self._positions.clear()
        self.order.clear()

    def newest_first(self) -> NewestFirst:
        """Every actual, newest first (equal moments by id): the v1 list's order, sliced by position."""
        return NewestFirst(self)

    def dated_between(self, start: datetime | None, end: datetime | None) -> list[Actual]:
        """The actuals dated from ``start`` to ``end`` (both inclusive, either open), in the order they were first
        stored: what a legacy window read answers, found without reading the others."""
        low = -float("inf") if end is None else -end.timestamp() - SLACK_S
        high = float("inf") if start is None else -start.timestamp() + SLACK_S
        found: list[tuple[int, Actual]] = []
        for key in self.order.from_key((low, "", -1, "")):
            if key[0] > high:
                break
            actual = self[key[3]]
            if (start is None or actual.date >= start) and (end is None or actual.date <= end):
                found.append((key[2], actual))
        found.sort(key=lambda entry: entry[0])
        return [actual for _, actual in found]
