"""The census: every object a migration writes, read through the v1 surface only (never the crosswalk).

It lists every record of every declared kind by its natural fields and what the bridge wrote of it, so two
runs can be compared as multisets: a duplicate shows as a count of two, a missing record as a count of zero.
Beside it, the v1 writes per route that the emulator counted, and the paged reads both use.
"""

from __future__ import annotations

import json
import re
import typing
from collections import Counter
from collections.abc import Awaitable, Callable
from typing import Any

import httpx

from bridge.clients.v1_requests import BY_ID
from bridge.engine.kinds import KINDS, KindSpec
from mappings.kinds import Kind

WRITE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})


def v1_writes_by_route(stats: object) -> Counter[str]:
    """The v1 write requests (every POST/PUT/PATCH/DELETE, answered or not) per route, from /_emulator/stats."""
    assert isinstance(stats, dict)
    routes = stats["requests"]["byRoute"]
    return Counter(
        {route: int(n) for route, n in routes.items() if route.split(" ")[0] in WRITE_METHODS and " /v1/" in route}
    )


async def pages(get: Callable[..., Awaitable[httpx.Response]], path: str, **params: str) -> list[dict[str, Any]]:
    """Every row of a paged v1 list (its ``nextCursor`` followed to the end), as the untyped JSON it is."""
    rows: list[dict[str, Any]] = []
    cursor: str | None = None
    while True:
        query = {**params, "limit": "100", **({"cursor": cursor} if cursor else {})}
        response = await get(path, params=query)
        response.raise_for_status()
        page = response.json()
        rows += page["data"]
        cursor = page.get("nextCursor")
        if not cursor:
            return rows


ID = re.compile(r"[\w-]+")
Listed = tuple[KindSpec, str, dict[str, object]]
"""One record the target lists: its kind, the v1 id of the project it is in (empty for the workspace), its row."""


async def _listed(get: Callable[..., Awaitable[httpx.Response]]) -> list[Listed]:
    """Every record of every declared kind, as the kind's own v1 listing gives it (``KindSpec.natural``)."""
    found: list[Listed] = []
    projects = [str(row["id"]) for row in await pages(get, "/projects")]
    transactions: list[str] = []
    listed_ids: dict[Kind, list[str]] = {}
    for kind in KINDS:
        listing = BY_ID[kind.natural.listed_by]
        if kind.within is not None:  # listed under each record of another kind (a rate pack's items)
            for parent in listed_ids.get(kind.within[0], []):
                found += [(kind, "", row) for row in await pages(get, listing.render((parent,)))]
            continue
        if kind.natural.rows is not None:  # listed inside each record of its parent (a transaction's items)
            for parent in transactions:
                response = await get(listing.render((parent,)))
                response.raise_for_status()
                rows = response.json()[kind.natural.rows]
                found += [(kind, parent, row) for row in rows]
            continue
        scopes = projects if listing.parameters else [""]
        holds = kind.natural.holds
        for project in scopes:
            rows = await pages(get, listing.render((project,) if project else ()))
            # One listing of several kinds (documents) is split by ``holds``; a row that holds none of the kind's
            # natural fields is not one of its records (a transaction not linked to a purchase order is no link).
            rows = [row for row in rows if holds is None or holds(row)]
            rows = [row for row in rows if any(row.get(name) is not None for name in kind.natural.fields)]
            found += [(kind, project or str(row.get("projectId") or ""), row) for row in rows]
            listed_ids.setdefault(kind.kind, []).extend(str(row["id"]) for row in rows)
            if kind.kind is Kind.ACTUAL:
                transactions += [str(row["id"]) for row in rows]
    return found


def _fields(kind: KindSpec) -> tuple[str, ...]:
    """What the bridge writes of a kind: every field its create and update shapes publish (wire names)."""
    names: set[str] = set()
    for operation in (kind.create, kind.update):
        shape = BY_ID[operation].body if operation is not None else None
        if operation is None or shape is None:
            continue
        listed = BY_ID[operation].list_field
        if listed is not None:  # a bulk: the shape of one entry
            shape = typing.get_args(shape.model_fields[listed].annotation)[0]
        names |= {info.alias or name for name, info in shape.model_fields.items()}
    return tuple(sorted(names))


async def census(get: Callable[..., Awaitable[httpx.Response]]) -> Counter[tuple[str, ...]]:
    """Every object a migration writes, read through the v1 surface, as a multiset of keys that hold no v1 id:
    (kind, the project's name, the natural fields, every written field), each reference to another record
    replaced by that record's own label. Two runs compare as multisets: a duplicate shows as a count of two, a
    missing record or a follow-up PATCH left undone as a key of its own."""
    listed = await _listed(get)
    rows: dict[str, tuple[KindSpec, dict[str, object]]] = {}
    for kind, _, row in listed:
        rows.setdefault(str(row["id"]), (kind, row))  # a link listed as its transaction: labelled as the latter
    labels: dict[str, str] = {}

    def label(v1_id: str) -> str:
        if v1_id not in labels:
            labels[v1_id] = "…"  # a cycle would be a service bug; the census still ends
            kind, row = rows[v1_id]
            labels[v1_id] = f"{kind.kind.value}:" + "|".join(shown(row.get(name)) for name in kind.natural.fields)
        return labels[v1_id]

    def shown(value: object) -> str:
        if isinstance(value, str):  # an id, or text naming ids (a rollup's formula)
            return ID.sub(lambda found: label(found[0]) if found[0] in rows else found[0], value)
        if isinstance(value, dict):
            return "{" + ",".join(f"{shown(k)}:{shown(v)}" for k, v in sorted(value.items())) + "}"
        if isinstance(value, list):
            return "[" + ",".join(shown(v) for v in value) + "]"
        return json.dumps(value)

    seen: Counter[tuple[str, ...]] = Counter()
    for kind, scope, row in listed:
        written = ",".join(f"{name}={shown(row.get(name))}" for name in _fields(kind))
        seen[kind.kind.value, shown(scope) if scope else "", label(str(row["id"])), written] += 1
    return seen
