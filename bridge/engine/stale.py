"""Finding on the target what an old intent may have created, when its Idempotency-Key may be forgotten.

Past the target's key retention window (A20) a replay could create a second object, so the engine first
looks for the intent's records on the target by their natural fields (a space's name and slug, a line's
parent, description, account and type, a transaction's date, amount and references...). Every record
found: the intent completes with the target's ids. None found: the write never happened and is sent again.
Some but not all of a bulk (which is all-or-nothing on the target): a person must look, so the run stops.

A split-item fan-out is different: its entries are independent requests, so any of them may have landed.
``find_fan_out_items`` reads each of its transactions once and says which entries' items are there; the
replay books those with the target's ids and sends only the others.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from bridge.clients.http import Call, json_body
from bridge.clients.pages import iterate_pages
from bridge.clients.v1 import V1Client
from bridge.engine.writes import Write
from bridge.errors import FatalError

# Per create operation (published operationId): the fields that identify its records on the target, as the
# create body names them.
NATURAL_FIELDS: dict[str, tuple[str, ...]] = {
    "spaces_create": ("name", "slug"),
    "projects_create": ("name", "slug"),
    "contacts_create": ("name", "email"),
    "library_createTag": ("name",),
    "library_createCurrency": ("code",),
    "library_createFringe": ("name",),
    "library_createGlobal": ("symbol",),
    "budget_createPhase": ("name", "type"),
    "budget_createLinesBulk": ("parentId", "description", "accountId", "type"),
    "transactions_createBulk": ("timestamp", "amount", "description", "number", "ref", "projectId"),
}
# A split item's fields as a fan-out entry sends them and GET /transactions/{id} lists them under `items` (A16).
ITEM_FIELDS = ("description", "budgetLineId", "amount", "tagIds")


def _list_path(write: Write) -> str:
    """Where a create's records are listed: its own path, or for a bulk the collection it adds to."""
    return write.path.removesuffix("/bulk") if write.list_field is not None else write.path


def _matches(entry: Mapping[str, object], row: Mapping[str, object], fields: Sequence[str]) -> bool:
    return all(entry.get(name) == row.get(name) for name in fields if name in entry)


async def find_on_target(v1: V1Client, write: Write) -> list[str] | None:
    """The v1 ids of ``write``'s records if all are on the target, None if none is; FatalError otherwise."""
    fields = NATURAL_FIELDS.get(write.operation)
    if fields is None:
        return None
    list_path = _list_path(write)
    params: list[tuple[str, str]] = []
    if write.operation == "transactions_createBulk":
        project = write.entries()[0]
        if isinstance(project, Mapping) and isinstance(project.get("projectId"), str):
            params.append(("projectId", str(project["projectId"])))
    entries = write.entries() if write.list_field else [write.body]
    found: list[str | None] = [None] * len(entries)
    claimed: set[str] = set()
    async for rows in iterate_pages(v1.session, list_path, params):
        for row in rows:
            if not isinstance(row, Mapping) or not isinstance(row.get("id"), str) or row["id"] in claimed:
                continue
            for index, entry in enumerate(entries):
                if found[index] is None and isinstance(entry, Mapping) and _matches(entry, row, fields):
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


async def find_fan_out_items(v1: V1Client, write: Write) -> dict[int, str]:
    """For a fan-out past key retention: entry index -> the target's id of its item, for each entry whose item
    is already on its transaction.

    Each transaction is read once. Its entries were sent in order, so they are matched to its items in order,
    by their fields: an entry claims the first unclaimed item after the one the previous entry claimed, and an
    entry with no such item (never sent, or refused) claims nothing. Two equal entries (two equal parts of one
    actual) therefore need two items.
    """
    entries = write.entries()
    by_transaction: dict[str, list[int]] = {}
    for index, entry in enumerate(entries):
        if isinstance(entry, Mapping):
            by_transaction.setdefault(str(entry.get("transactionId")), []).append(index)
    found: dict[int, str] = {}
    for transaction, indexes in by_transaction.items():
        path = f"/transactions/{transaction}"
        answer = json_body(await v1.session.send(Call("GET", path)), f"GET {path}")
        listed = answer.get("items") if isinstance(answer, Mapping) else None
        items = [item for item in listed or [] if isinstance(item, Mapping) and isinstance(item.get("id"), str)]
        start = 0
        for index in indexes:
            wanted = entries[index]
            body = wanted.get("item") if isinstance(wanted, Mapping) else None
            if not isinstance(body, Mapping):
                continue
            position = next(
                (n for n in range(start, len(items)) if _matches(body, items[n], ITEM_FIELDS)),
                None,
            )
            if position is not None:
                found[index] = str(items[position]["id"])
                start = position + 1
    return found
