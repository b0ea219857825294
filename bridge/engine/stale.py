"""Finding on the target what an old intent may have created, when its Idempotency-Key may be forgotten.

Past the target's key retention window (A20) a replay could create a second object, so the engine first
looks for the intent's records on the target by their natural fields (a space's name and slug, a line's
parent, description, account and type, a transaction's date, amount and references...). Every record
found: the intent completes with the target's ids. None found: the write never happened and is sent again.
Some but not all of a bulk (which is all-or-nothing on the target): a person must look, so the run stops.

A link (a keyless PUT of one object onto another: a transaction onto a purchase order) has no key to replay
its first answer, so a lost answer is settled by reading the parent back (``find_link``) before anything is
sent again.

A split-item fan-out is different: its entries are independent requests, so any of them may have landed.
``find_fan_out_items`` reads each of its transactions once and says which entries' items are there; the
replay books those with the target's ids and sends only the others.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

from bridge.clients.v1 import V1Client
from bridge.engine.kinds import spec
from bridge.engine.writes import Write
from bridge.errors import FatalError

# Per keyless link operation, how its parent is read with its children: what a lost answer is settled from.
# A link not named here (a document's link: "linking the same target again has no effect") is sent again.
LINK_READS: dict[str, tuple[str, str]] = {"purchase-orders_linkTransaction": ("purchase-orders_get", "transactions")}
SHA256_DIGITS = 64
HEX = frozenset("0123456789abcdef")


def matches(entry: Mapping[str, object], row: Mapping[str, object], fields: Sequence[str]) -> bool:
    """Whether a listed ``row`` is the record ``entry`` creates, by the natural ``fields`` the entry names."""
    return all(entry.get(name) == row.get(name) for name in fields if name in entry)


def same_bytes(entry: Mapping[str, object], row: Mapping[str, object], hashed: str | None) -> bool:
    """Whether a listed row's hash of its bytes (the ``hashed`` field) is the entry's SHA-256, when both hold one:
    a hash not shaped as a SHA-256 (64 hex digits, maybe after ``sha256:``) says nothing (A103)."""
    listed = row.get(hashed) if hashed else None
    wanted = entry.get(hashed) if hashed else None
    if not isinstance(listed, str) or not isinstance(wanted, str) or not wanted:
        return True
    digest = listed.lower().removeprefix("sha256:")
    if len(digest) != SHA256_DIGITS or any(c not in HEX for c in digest):
        return True
    return digest == wanted


async def find_on_target(
    v1: V1Client, write: Write, known: Mapping[str, object] | None = None, taken: Collection[str] = ()
) -> list[str] | None:
    """The v1 ids of ``write``'s records if all are on the target, None if none is; FatalError otherwise.
    ``known``: natural fields of a one-record write its body does not hold (an upload's file size and SHA-256,
    from the spool: the body names the file alone); ``taken``: v1 ids the crosswalk names for other records
    (one file uploaded for two records: the second lookup skips the first's document)."""
    declared = spec(write.kind)
    if declared.create != write.operation:
        return None
    fields = declared.natural.fields
    entries = write.entries() if write.list_field else [{**write.body, **(known or {})}]
    first = entries[0] if entries and isinstance(entries[0], Mapping) else {}
    filters = (*declared.natural.filters, *declared.natural.narrow)
    query = [(name, str(first[name])) for name in filters if isinstance(first.get(name), str)]
    query += declared.natural.query
    found: list[str | None] = [None] * len(entries)
    claimed: set[str] = set(taken)
    # The kind's list takes the path parameters its create took (a project kind's v1 project).
    async for rows in v1.rows(declared.natural.listed_by, write.params, query):
        for row in rows:
            if not isinstance(row, Mapping) or not isinstance(row.get("id"), str) or row["id"] in claimed:
                continue
            for index, entry in enumerate(entries):
                if (
                    found[index] is None
                    and isinstance(entry, Mapping)
                    and matches(entry, row, fields)
                    and same_bytes(entry, row, declared.natural.hashed)
                ):
                    found[index] = str(row["id"])
                    claimed.add(str(row["id"]))
                    break
    ids = [v for v in found if v is not None]
    if not ids:
        return None
    if len(ids) == len(entries):
        return ids
    raise FatalError(
        f"{write.kind.value} intent {write.step_key} is older than the target's key retention and only "
        f"{len(ids)} of its {len(entries)} records are on the target; a bulk is all-or-nothing, so these may "
        "be look-alikes. Compare them by hand before resuming"
    )


async def find_derived(v1: V1Client, write: Write, v1_id: str) -> list[tuple[str, str]]:
    """(crosswalk kind, v1 id) of what ``write``'s lost answer would have named besides its record (a new
    project's default phase), found in each ``Derived`` listing of the record; FatalError when the listing holds
    more than one candidate (a person must say which the service made)."""
    found: list[tuple[str, str]] = []
    for derived in spec(write.kind).derived:
        candidates = [
            str(row["id"])
            async for rows in v1.rows(derived.listed_by, (v1_id,))
            for row in rows
            if isinstance(row, Mapping) and all(row.get(name) == value for name, value in derived.where)
        ]
        if len(candidates) > 1:
            raise FatalError(
                f"{write.kind.value} intent {write.step_key} is older than the target's key retention, and its "
                f"record {v1_id} holds {len(candidates)} candidates for its {derived.kind}; pick the one the "
                "service made by hand before resuming"
            )
        found += [(derived.kind, v1_id) for v1_id in candidates]
    return found


async def find_fan_out_items(v1: V1Client, write: Write) -> dict[int, str]:
    """For a fan-out past key retention: entry index -> the target's id of its item, for each entry whose item
    is already on its transaction.

    Each transaction is read once. Its entries were sent in order, so they are matched to its items in order,
    by their fields: an entry claims the first unclaimed item after the one the previous entry claimed, and an
    entry with no such item (never sent, or refused) claims nothing. Two equal entries (two equal parts of one
    actual) therefore need two items.
    """
    fan_out = write.fan_out
    if fan_out is None:
        raise ValueError(f"{write.kind} intent {write.step_key} is no fan-out")
    natural = spec(write.kind).natural
    entries = write.entries()
    by_parent: dict[str, list[int]] = {}
    for index, entry in enumerate(entries):
        if isinstance(entry, Mapping):
            by_parent.setdefault(str(entry.get(fan_out.param)), []).append(index)
    found: dict[int, str] = {}
    for parent, indexes in by_parent.items():
        answer = await v1.read(natural.listed_by, (parent,))
        listed = answer.get(natural.rows) if isinstance(answer, Mapping) and natural.rows else None
        items = [item for item in listed or [] if isinstance(item, Mapping) and isinstance(item.get("id"), str)]
        start = 0
        for index in indexes:
            wanted = entries[index]
            body = wanted.get(fan_out.body) if isinstance(wanted, Mapping) else None
            if not isinstance(body, Mapping):
                continue
            position = next(
                (n for n in range(start, len(items)) if matches(body, items[n], natural.fields)),
                None,
            )
            if position is not None:
                found[index] = str(items[position]["id"])
                start = position + 1
    return found


async def find_link(v1: V1Client, write: Write) -> list[str] | None:
    """A link's v1 id (its child: the last path parameter) when the parent (the first) already holds it, read
    through the parent's get with the children expanded; None when it does not, or when the link is not one
    whose parent can be read so (the PUT is sent again)."""
    read = LINK_READS.get(write.operation)
    if read is None:
        return None
    operation, expand = read
    parent, child = write.params[0], write.params[-1]
    answer = await v1.read(operation, (parent,), [("expand", expand)])
    children = answer.get(expand) if isinstance(answer, Mapping) else None
    held = {str(row.get("id")) for row in children or [] if isinstance(row, Mapping)}
    return [child] if child in held else None
