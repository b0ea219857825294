"""Bridge mode's guard: never overwrite, nor delete, a v1 record someone changed since the bridge last wrote it.

After a cycle's writes the guard reads each touched scope's kinds back and keeps, per record, the mark of its
v1 row (``mark``: a digest of the row without the fields v1 computes from other records, A114). Before the next
update or delete of a record it reads the record's row again:

- the row's mark is the kept one: nobody changed it on v1, the write goes ahead;
- the row moved (or is gone, for an update): the record **drifted**, and since legacy changed it too this is a
  **conflict**: filed in the state's queue with both values and written by nobody until a person takes one
  side (`bridge conflicts resolve`);
- no mark is kept yet (a record written by `bridge run` before the first sync): a row whose ``updatedAt`` is
  later than the bridge's last write of it drifted; a kind without ``updatedAt`` (budget lines, phases)
  cannot tell, and the write goes ahead (A115).

Records whose rows moved while legacy did not change them are counted as drifted when the scope is read back,
and keep their old mark, so the drift stays visible until a person resolves it.

Kinds listed whole per scope are guarded (``guarded``), and a kind whose rows a guarded parent's rows hold (a
transaction's split items, read with ``expand``: no read of their own); documents and order links are not, and
A115 says so.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import structlog

from bridge.canonical import Json, canonical
from bridge.clients.v1 import V1Client
from bridge.clients.v1_requests import BY_ID
from bridge.engine.books import Books, state_scope
from bridge.engine.kinds import KINDS, KindSpec, Scope, spec
from bridge.engine.plan import Fate, Tally
from bridge.engine.tasks import run_all
from bridge.errors import NotFound, RecordError
from mappings.kinds import Kind
from mappings.refs import WORKSPACE
from state.store import StateStore
from state.sync import Conflict, Mark

log = structlog.get_logger("bridge.engine")

Row = Mapping[str, object]

# Fields of a v1 row that v1 computes from other records (totals rolled up from children and actuals, expanded
# relations, counters): a write to another record moves them, so they are not part of a record's own mark (A114).
COMPUTED = frozenset(
    {
        "phaseTotals",
        "contact",
        "account",
        "budgetLine",
        "purchaseOrder",
        "documents",
        "items",
        "transactions",
        "payments",
        "paymentRequests",
        "activity",
        "summary",
        "links",
        "replyCount",
        "reactions",
        "readByCurrentUser",
        # Where a row sits among its siblings and when anything in it last moved: v1 recomputes them when a
        # sibling is written (a line's rate patched re-sorts its siblings) and stamps a project on any write inside
        # it, so they say nothing of who edited this record.
        "sort",
        "path",
        "depth",
        "updatedAt",
    }
)
# A row stamped this long after the bridge's last write of it was changed by someone else (clock skew between
# the state's host and the service).
SKEW = timedelta(seconds=2)
# Rows of one kind in one scope a cycle reads one by one before it lists the kind instead (a listing is a page
# per hundred rows, read one after another: a project's transactions are some twenty pages).
SINGLE_READS = 20


MARKS = "m2:"
"""The version of ``mark``'s rule, leading every mark: a mark kept under another rule is no mark (the first cycle
under a new rule takes its baseline as after a `run`), never a false drift."""


def mark(row: Row) -> str:
    """The digest of a v1 row's own fields (RFC 8785 canonical JSON, SHA-256), under this rule's version."""
    own: dict[str, Json] = {key: _json(value) for key, value in row.items() if key not in COMPUTED}
    return MARKS + hashlib.sha256(canonical(own)).hexdigest()


def _current(kept: Mark | None) -> Mark | None:
    """A kept mark made under this rule, else None."""
    return kept if kept is not None and kept.mark.startswith(MARKS) else None


def _json(value: object) -> Json:
    """A decoded JSON value, typed as one."""
    return json.loads(json.dumps(value))  # type: ignore[no-any-return]


def _listed(kind: KindSpec) -> bool:
    """Whether ``kind`` is listed whole per scope (filtered by the project at most)."""
    natural = kind.natural
    return natural.rows is None and set(natural.filters) <= {"projectId"} and natural.holds is None


def parent(kind: KindSpec) -> KindSpec | None:
    """The kind whose rows hold ``kind``'s under ``natural.rows`` (a split item's transaction), when that kind is
    listed whole and read alone: its rows are read with the field expanded."""
    if kind.natural.rows is None or kind.parent_of is None or kind.natural.holds is not None:
        return None
    holder = spec(kind.needs[0])
    return holder if _listed(holder) and holder.fetch is not None else None


def guarded(kind: KindSpec) -> bool:
    """Whether the guard reads ``kind`` back: a kind bridge mode updates or deletes, listed whole per scope or
    held in the rows of a kind that is."""
    readable = _listed(kind) or parent(kind) is not None
    return readable and kind.within is None and (kind.update is not None or kind.delete is not None)


GUARDED: tuple[KindSpec, ...] = tuple(kind for kind in KINDS if guarded(kind))


@dataclass(frozen=True, slots=True)
class Verdict:
    """What the guard says of one write: go ahead, or not (``conflict``: filed in the queue)."""

    clear: bool
    gone: bool = False


def _expand(kind: KindSpec) -> list[tuple[str, str]]:
    """The query that expands the rows of the guarded kinds ``kind``'s rows hold."""
    fields = [held.natural.rows for held in GUARDED if held.natural.rows and parent(held) is kind]
    return [("expand", ",".join(fields))] if fields else []


def _held(kind: KindSpec, row: Row | None) -> dict[str, Row]:
    """The rows of ``kind`` a parent's ``row`` holds (under ``natural.rows``), by id."""
    held = row.get(kind.natural.rows or "") if row is not None else None
    found = held if isinstance(held, list) else []
    return {str(item["id"]): item for item in found if isinstance(item, Mapping) and isinstance(item.get("id"), str)}


def _updated_after(row: Row, written: datetime | None) -> bool:
    """Whether ``row`` says it was updated after ``written`` (plus ``SKEW``)."""
    stamp = row.get("updatedAt")
    if written is None or not isinstance(stamp, str):
        return False
    try:
        updated = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        return False
    if updated.tzinfo is None:
        updated = updated.replace(tzinfo=UTC)
    return updated > written + SKEW


class Guard:
    """The drift checks of one cycle and the marks it keeps after its writes."""

    def __init__(self, v1: V1Client, books: Books, store: StateStore, *, live: bool) -> None:
        self.v1 = v1
        self.books = books
        self.store = store
        self.live = live
        self._rows: dict[tuple[str, str], dict[str, Row]] = {}
        self._singles: Counter[tuple[str, str]] = Counter()
        self._marks: dict[str, dict[tuple[str, str], Mark]] = {}
        self._open: dict[str, set[tuple[str, str]]] = {}
        self.conflicts: Counter[Kind] = Counter()

    def _where(self, kind: KindSpec, scope: str) -> tuple[tuple[str, ...], list[tuple[str, str]]] | None:
        """The path parameters and query that list ``kind`` in ``scope``; None when its project is not on v1."""
        natural = kind.natural
        if scope == WORKSPACE:
            return (), list(natural.query)
        project = self.books.lookup(Kind.PROJECT.value, WORKSPACE, scope)
        if project is None:
            return None
        params = (project,) if BY_ID[natural.listed_by].parameters else ()
        return params, [*((name, project) for name in natural.filters), *natural.query]

    async def row(self, kind: KindSpec, scope: str, v1_id: str, legacy_id: str) -> Row | None:
        """One record's v1 row (None when gone): read alone while few of its kind in ``scope`` are (a cycle that
        changed one record reads one row, not its project's listing), from the kind's listing after that. A row
        held by a parent's is read with its parent's."""
        holder = parent(kind)
        key = ((holder or kind).kind.value, scope)
        if (holder or kind).fetch is None or key in self._rows or self._singles[key] >= SINGLE_READS:
            return (await self.rows(kind, scope)).get(v1_id)
        self._singles[key] += 1
        if holder is None:
            return await self._fetch(kind, scope, v1_id)
        return _held(kind, await self._fetch(holder, scope, self._parent_id(kind, scope, legacy_id))).get(v1_id)

    def _parent_id(self, kind: KindSpec, scope: str, legacy_id: str) -> str:
        """The v1 id of the parent a record of ``kind`` is held by ("" when the crosswalk knows none)."""
        return self.books.parent(kind, scope, legacy_id) or ""

    async def _fetch(self, kind: KindSpec, scope: str, v1_id: str) -> Row | None:
        """One row read alone (the kind declares its ``fetch``); None when v1 no longer holds it."""
        where = self._where(kind, scope)
        if kind.fetch is None or where is None or not v1_id:
            return None
        params = (*where[0], v1_id) if BY_ID[kind.fetch].parameters > 1 else (v1_id,)
        try:
            found = await self.v1.read(kind.fetch, params, _expand(kind))
        except NotFound:
            return None
        return found if isinstance(found, Mapping) else None

    async def rows(self, kind: KindSpec, scope: str, *, fresh: bool = False) -> dict[str, Row]:
        """``kind``'s v1 rows in ``scope`` by id, read once per cycle (again when ``fresh``); a kind held by a
        parent's rows, from them."""
        holder = parent(kind)
        if holder is not None:
            found = await self.rows(holder, scope, fresh=fresh)
            return {v1_id: row for held in found.values() for v1_id, row in _held(kind, held).items()}
        key = (kind.kind.value, scope)
        if fresh or key not in self._rows:
            where = self._where(kind, scope)
            listed: dict[str, Row] = {}
            if where is not None:
                async for page in self.v1.rows(kind.natural.listed_by, where[0], [*where[1], *_expand(kind)]):
                    for row in page:
                        if isinstance(row, Mapping) and isinstance(row.get("id"), str):
                            listed[str(row["id"])] = row
            self._rows[key] = listed
        return self._rows[key]

    def _kept(self, scope: str) -> dict[tuple[str, str], Mark]:
        if scope not in self._marks:
            self._marks[scope] = self.store.marks.of(state_scope(scope))
        return self._marks[scope]

    def _opened(self, scope: str) -> set[tuple[str, str]]:
        if scope not in self._open:
            self._open[scope] = self.store.conflicts.open_records(state_scope(scope))
        return self._open[scope]

    async def check(
        self,
        kind: Kind,
        scope: str,
        legacy_id: str,
        v1_id: str,
        *,
        change: str,
        body: Mapping[str, object],
        digest: str,
    ) -> Verdict:
        """Whether the ``change`` (update or delete) of one record may be written; a conflict is filed if not."""
        declared = spec(kind)
        if not guarded(declared):
            return Verdict(clear=True)
        stored = declared.stored
        row = await self.row(declared, scope, v1_id, legacy_id)
        kept = _current(self._kept(scope).get((stored, legacy_id)))
        if (stored, legacy_id) in self._opened(scope):
            drifted = True
        elif row is None:
            # Gone from v1: a delete has nothing left to do; an update would undo a person's delete (a conflict).
            if change == "delete":
                return Verdict(clear=True, gone=True)
            drifted = True
        elif kept is not None:
            drifted = kept.mark != mark(row)
        else:
            entry = self.store.crosswalk.get(stored, legacy_id, state_scope(scope))
            drifted = _updated_after(row, entry.updated_at if entry is not None else None)
        if not drifted:
            return Verdict(clear=True)
        self.conflicts[kind] += 1
        log.warning("bridge.sync.conflict", kind=kind.value, scope=scope, legacy_id=legacy_id, change=change)
        if self.live:
            self.store.conflicts.file(
                [
                    Conflict(
                        stored,
                        state_scope(scope),
                        legacy_id,
                        v1_id,
                        change,
                        json.dumps(dict(body), sort_keys=True),
                        digest,
                        json.dumps(dict(row) if row is not None else None, sort_keys=True),
                    )
                ]
            )
            self._opened(scope).add((stored, legacy_id))
        return Verdict(clear=False)

    async def delete(self, kind: Kind, scope: str, params: tuple[str, ...], legacy_id: str) -> Tally:
        """A record gone from the source: deleted from v1 when the bridge wrote it and nobody changed it there
        since (``Fate.DELETED``), else left on the target (a conflict is filed when it drifted)."""
        declared = spec(kind)
        v1_id = self.books.lookup(declared.stored, scope, legacy_id)
        if declared.delete is None or v1_id is None:
            return Tally.of(kind, Fate.REMOVED)
        verdict = await self.check(kind, scope, legacy_id, v1_id, change="delete", body={}, digest="")
        if not verdict.clear:
            return Tally.of(kind, Fate.REMOVED)
        sent = 0
        if self.live and not verdict.gone:
            try:
                await self.v1.send_write(declared.delete, (*params, v1_id), {}, None)
            except RecordError as error:
                # A 404 is a delete already done (a stopped cycle's, or a cascade from its parent's); any other
                # refusal (a transaction v1 will not delete) leaves it on the target, said in the log.
                if error.status != 404:
                    log.warning("bridge.sync.delete_refused", kind=kind.value, legacy_id=legacy_id, code=error.code)
                    return Tally.of(kind, Fate.REMOVED, requests=1)
            sent = 1
        elif not verdict.gone:
            sent = 1
        if self.live:
            await self.books.drop(declared.stored, scope, legacy_id)
            self.store.marks.remove(declared.stored, state_scope(scope), legacy_id)
            if self.books.written is not None:  # a write like any other: its scope is read back and verified
                self.books.written.add((scope, declared.stored, v1_id))
        return Tally.of(kind, Fate.DELETED, requests=sent)

    async def remark(
        self, written: Sequence[tuple[str, str, str]], read: Sequence[str], scan: Sequence[str] = ()
    ) -> dict[str, Counter[Kind]]:
        """Keep the marks of what this cycle wrote (``written``: scope, crosswalk kind, v1 id), read back one by
        one while few are. Scopes read whole instead, every guarded kind: the scopes it ``read`` that hold no
        mark yet (the first sync after a `run`), and the ``scan`` ones; there the records never marked are
        marked too, and the others whose rows moved are counted per scope (drift; a record with an open
        conflict is counted there, not here)."""
        whole = {scope for scope in read if not self.store.marks.held(state_scope(scope))} | set(scan)
        by_scope: dict[str, set[tuple[str, str]]] = {scope: set() for scope in whole}
        for scope, kind, v1_id in written:
            by_scope.setdefault(scope, set()).add((kind, v1_id))
        # Drift is said of a scope read whole; a kind listed for the many rows written in it counts for nothing.
        drifted: dict[str, Counter[Kind]] = {scope: Counter() for scope in whole}
        for scope in sorted(by_scope):
            moved = drifted.get(scope, Counter())
            reread: set[Kind] = set()
            # The kinds side by side (a listing is pages read one after another, and a project has several); the
            # kinds held in another's rows after it, from its rows when they were just read again.
            for kinds in (
                [declared for declared in GUARDED if parent(declared) is None],
                [declared for declared in GUARDED if parent(declared) is not None],
            ):
                reads = []
                for declared in kinds:
                    if (declared.scope is Scope.WORKSPACE) != (scope == WORKSPACE):
                        continue
                    touched = {v1_id for kind, v1_id in by_scope[scope] if kind == declared.stored}
                    holder = parent(declared)
                    alone = (holder or declared).fetch is not None
                    if scope in whole or len(touched) > SINGLE_READS or not alone:
                        fresh = holder is None or holder.kind not in reread
                        reads.append(self._reread(declared, scope, touched, moved, fresh=fresh))
                        reread.add(declared.kind)
                    elif touched:
                        reads.append(self._fetched(declared, scope, touched))
                self.store.marks.put([found for marks in await run_all(reads) for found in marks])
            self._marks.pop(scope, None)
        return drifted

    async def _reread(
        self, declared: KindSpec, scope: str, touched: set[str], moved: Counter[Kind], *, fresh: bool = True
    ) -> list[Mark]:
        """A kind read back whole in ``scope`` (its listing read again when ``fresh``): the marks to keep, and its
        drift counted into ``moved``."""
        kept = self._kept(scope)
        opened = self._opened(scope)
        names = {v: legacy for legacy, v in self._v1_ids(declared, scope).items()}
        marks: list[Mark] = []
        for v1_id, row in (await self.rows(declared, scope, fresh=fresh)).items():
            legacy_id = names.get(v1_id)
            if legacy_id is None:
                continue
            now = mark(row)
            old = _current(kept.get((declared.stored, legacy_id)))
            if old is None or v1_id in touched or old.v1_id != v1_id:
                marks.append(Mark(declared.stored, state_scope(scope), legacy_id, v1_id, now))
            elif old.mark != now and (declared.stored, legacy_id) not in opened:
                moved[declared.kind] += 1
        return marks

    async def _fetched(self, declared: KindSpec, scope: str, touched: set[str]) -> list[Mark]:
        """The marks of the few records of a kind this cycle wrote in ``scope``, each read alone."""
        names = {v: legacy for legacy, v in self._v1_ids(declared, scope).items()}
        ids = sorted(v1_id for v1_id in touched if v1_id in names)
        holder = parent(declared)
        if holder is None:
            rows = await run_all(self._fetch(declared, scope, v1_id) for v1_id in ids)
        else:  # each parent read once, with the rows it holds
            parents = sorted({self._parent_id(declared, scope, names[v1_id]) for v1_id in ids})
            found = await run_all(self._fetch(holder, scope, parent_id) for parent_id in parents)
            held = {v1_id: row for one in found for v1_id, row in _held(declared, one).items()}
            rows = [held.get(v1_id) for v1_id in ids]
        return [
            Mark(declared.stored, state_scope(scope), names[v1_id], v1_id, mark(row))
            for v1_id, row in zip(ids, rows, strict=True)
            if row is not None
        ]

    def _v1_ids(self, declared: KindSpec, scope: str) -> dict[str, str]:
        """legacy id -> v1 id of ``declared``'s records the crosswalk knows in ``scope``."""
        return {
            legacy: v1_id
            for legacy, v1_id in (
                (legacy, self.books.lookup(declared.stored, scope, legacy))
                for legacy in self.books.legacy_ids(declared.stored, scope)
            )
            if v1_id is not None
        }
