"""Adopting what the target already holds: a state never decides alone that a record is new.

A state restored from an older copy does not know the records an earlier run wrote after the copy was taken,
and a lost state knows none; past the target's key retention (A20) creating them again makes second objects.
So where the target may hold records the state does not know, a create first lists its kind there and matches
its entries by their natural fields (``KindSpec.natural``, as the stale lookup does) to the rows no crosswalk
entry names. A match is adopted: booked with the target's id (and the derived entries its answer would have
named), and only the entries nothing matched are sent, as a subset keyed from the create's key.

Where the target may hold such records:
- the workspace, when preflight found v1 spaces, projects or contacts the state does not know;
- a project whose v1 project existed before the run (the state knew it, or the run adopted it). A project the
  run creates holds only what the run writes, so a first run lists nothing.

Each listing is read once per scope and kept without the rows the crosswalk already named when it was read
(a delta run's listing is mostly those, so little stays in memory), and a project's are dropped with its
crosswalk entries (``forget``). An adopted record whose row disagrees with the create entry on a field both
name is booked with no source hash: a kind with an update then brings it to the source's values.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import structlog

from bridge.clients.v1 import V1Client
from bridge.engine.books import Books
from bridge.engine.kinds import derived_from, spec
from bridge.engine.stale import LINK_READS, find_link, matches
from bridge.engine.wanted import PLACEHOLDER
from bridge.engine.writes import Write
from mappings.documents import CARRIED
from mappings.kinds import Kind
from mappings.refs import WORKSPACE

log = structlog.get_logger("bridge.engine")

Row = Mapping[str, object]


@dataclass(frozen=True, slots=True)
class Found:
    """One entry of a create that the target already holds: its row's id and the source hash to book it with:
    the entry's when the row agrees with it on every field both name, else none (the record is then patched)."""

    v1_id: str
    digest: str
    derived: tuple[tuple[str, str], ...] = ()


def agrees(entry: Row, row: Row) -> bool:
    """Whether ``row`` holds ``entry``'s value for every field it shows (a field shaped otherwise on reads
    counts as a difference: the record is patched, never wrongly left)."""
    return all(row[name] == value for name, value in entry.items() if name in row)


def _planned(values: Sequence[object]) -> bool:
    """Whether a value names a record a dry run would create (nothing to list under it yet)."""
    return any(isinstance(value, str) and value.startswith(PLACEHOLDER) for value in values)


class Adoption:
    """Which scopes may hold records the state does not know, and the lookups that find them there."""

    def __init__(self, v1: V1Client, books: Books, scopes: set[str], *, rebuild: bool = False) -> None:
        self.v1 = v1
        self.books = books
        self.scopes = scopes
        # `bridge crosswalk rebuild`: every scope, whatever preflight saw, and what is found goes into the state
        # though nothing is sent (a dry run otherwise keeps its findings in memory).
        self.everywhere = rebuild
        self.keep = rebuild
        # The v1 ids this run created of the kinds whose children are looked up one parent at a time (the
        # records documents hang on, the transactions split items go on, the orders transactions are linked
        # to): nothing hung on them before the run, so their children need no lookup (a project written by an
        # earlier step of a fleet reads nothing per receipt, transaction or order).
        self.watched = frozenset({*(carried.target for carried in CARRIED), Kind.PURCHASE_ORDER})
        self._made: set[str] = set()
        self._listings: dict[tuple[str, str, tuple[str, ...], tuple[tuple[str, str], ...]], list[Row]] = {}
        self._kinds: dict[tuple[str, str, tuple[str, ...], tuple[tuple[str, str], ...]], Kind] = {}
        # The target's ids adopted so far: two listings may hold one row (a kind listed with other parameters),
        # and a row is adopted once.
        self._claimed: set[str] = set()
        # Per kind, the ids of dropped listings' rows that no record of the source matched (yet).
        self._left: dict[Kind, set[str]] = {}

    def covers(self, scope: str) -> bool:
        """Whether the target may hold records of ``scope`` that the state does not know."""
        return self.everywhere or scope in self.scopes

    def adopts(self, write: Write) -> bool:
        """Whether ``write`` is a keyed create in a scope where the target may hold what it would create."""
        return (
            (write.key is not None or write.operation in LINK_READS)
            and spec(write.kind).create == write.operation
            and self.covers(write.scope)
            and not _planned(write.params)
        )

    def forget(self, scope: str) -> None:
        """Drop a finished project's listings (counting the rows nothing matched)."""
        for key in [key for key in self._listings if key[0] == scope]:
            self._left.setdefault(self._kinds.pop(key), set()).update(str(row["id"]) for row in self._listings.pop(key))

    def unmatched(self) -> dict[Kind, int]:
        """Per kind, the target's rows the run listed that no record the run read matched (and no crosswalk
        entry names): left as they are, and said."""
        left = {kind: set(ids) for kind, ids in self._left.items()}
        for key, rows in self._listings.items():
            left.setdefault(self._kinds[key], set()).update(str(row["id"]) for row in rows)
        counts = {kind: len(ids - self._claimed) for kind, ids in left.items()}
        return {kind: count for kind, count in counts.items() if count}

    async def find(self, write: Write) -> dict[int, Found]:
        """The entries of ``write`` the target already holds, by index."""
        if write.key is None:
            # A link (a keyless PUT): there when its parent, read back, holds it.
            if write.params[0] in self._made:
                return {}
            linked = await find_link(self.v1, write)
            return {0: Found(linked[0], write.hashes[0])} if linked else {}
        entries = write.entries() if write.list_field else [write.body]
        # Members the crosswalk already names (a step that sends a bulk again) are never matched anew.
        known = self.books.known(write)
        fresh = [(index, entry) for index, entry in enumerate(entries) if write.members[index] not in known]
        fan_out = write.fan_out
        if fan_out is None:
            found = await self._match(write, write.params, fresh)
        else:
            by_parent: dict[str, list[tuple[int, object]]] = {}
            for index, entry in fresh:
                if isinstance(entry, Mapping):
                    by_parent.setdefault(str(entry.get(fan_out.param)), []).append((index, entry.get(fan_out.body)))
            found = {}
            for parent, indexed in by_parent.items():
                if not _planned((parent,)) and parent not in self._made:
                    found |= await self._match(write, (parent,), indexed)
        if write.kind == Kind.PROJECT:
            # An adopted project may hold anything its pipeline writes.
            self.scopes |= {write.members[index] for index in found}
        if found:
            log.info("bridge.adopt.found", kind=write.kind.value, scope=write.scope, records=len(found))
        return found

    async def _match(
        self, write: Write, params: tuple[str, ...], indexed: Sequence[tuple[int, object]]
    ) -> dict[int, Found]:
        natural = spec(write.kind).natural
        first = next((entry for _, entry in indexed if isinstance(entry, Mapping)), {})
        query = [(name, str(first[name])) for name in natural.filters if isinstance(first.get(name), str)]
        rows = await self._rows(write, params, (*query, *natural.query))
        found: dict[int, Found] = {}
        for index, entry in indexed:
            if not isinstance(entry, Mapping):
                continue
            position = next(
                (
                    n
                    for n, row in enumerate(rows)
                    if row["id"] not in self._claimed and matches(entry, row, natural.fields)
                ),
                None,
            )
            if position is None:
                continue
            row = rows.pop(position)
            v1_id = str(row["id"])
            self._claimed.add(v1_id)
            # The project's row names its default phase as its create's answer did.
            derived = derived_from(write.kind, row)
            found[index] = Found(v1_id, write.hashes[index] if agrees(entry, row) else "", tuple(derived))
        return found

    async def _rows(self, write: Write, params: tuple[str, ...], query: tuple[tuple[str, str], ...]) -> list[Row]:
        """The rows of the kind's listing under ``params`` that no crosswalk entry names, read once."""
        natural = spec(write.kind).natural
        key = (write.scope, natural.listed_by, params, query)
        rows = self._listings.get(key)
        if rows is None:
            known = self.books.v1_ids(spec(write.kind).stored, write.scope)
            if natural.rows is None:
                listed = [row async for page in self.v1.rows(natural.listed_by, params, query) for row in page]
            else:
                answer = await self.v1.read(natural.listed_by, params, query)
                held = answer.get(natural.rows) if isinstance(answer, Mapping) else None
                listed = list(held) if isinstance(held, list) else []
            rows = [
                row
                for row in listed
                if isinstance(row, Mapping) and isinstance(row.get("id"), str) and row["id"] not in known
            ]
            self._listings[key] = rows
            self._kinds[key] = write.kind
        return rows

    def made(self, write: Write, ids: Sequence[str]) -> None:
        """A create of this run went through: remember its records' ids if documents hang on their kind."""
        if write.kind in self.watched and write.operation == spec(write.kind).create:
            self._made.update(ids)

    async def linked(self, write: Write, link: str, target: str) -> str | None:
        """The v1 id of a document ``write`` uploads that the target holds linked to ``target`` already (its
        upload and link both happened in a run the state forgot): matched by name among the documents linked
        there, so a file of the same name on another record is never taken."""
        if target in self._made:
            return None
        known = self.books.v1_ids(spec(write.kind).stored, write.scope)
        name = write.body.get("name")
        async for page in self.v1.rows("documents_list", (), [("linkedTo", f"{link}:{target}")]):
            for row in page:
                if isinstance(row, Mapping) and row.get("name") == name and row.get("id") not in known:
                    return str(row["id"])
        return None


def scopes_to_adopt(books: Books, unknown_on_target: Mapping[str, int]) -> set[str]:
    """The scopes where a run may meet records the state does not know, as it starts: the workspace when
    preflight counted unknown v1 objects, and every project the state already maps to a v1 project."""
    known_projects = books.legacy_ids(Kind.PROJECT.value, WORKSPACE)
    return known_projects | ({WORKSPACE} if unknown_on_target else set())
