"""Helpers for the engine's tests: an emulator in process or on a loopback port, runs, and a v1 census.

The census reads the target only through the v1 surface (never the crosswalk) and lists every record of
every declared kind by its natural fields and what the bridge wrote of it, so two runs can be compared as
multisets: a duplicate shows as a count of two, a missing record as a count of zero.
"""

from __future__ import annotations

import json
import os
import re
import typing
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from bridge.clients.http import RunControls
from bridge.clients.limiter import AimdLimiter
from bridge.clients.retry import RetryBudget, Timing
from bridge.clients.v1_requests import BY_ID
from bridge.config import Secret, Settings
from bridge.engine.kinds import KINDS, KindSpec
from bridge.engine.points import WriteObserver
from bridge.engine.progress import Progress
from bridge.engine.run import Outcome, Transports, migrate
from mappings.kinds import Kind

# The smallest project of the seed-42 `small` workspace (62 lines, 100 actuals; archived, so its status
# PATCH is exercised too). Tests that migrate one project use it to stay fast.
SMALL_PROJECT = "prj_4f276ac9d964"
WRITE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})


async def no_wait(_seconds: float) -> None:
    """The retry policy's sleep in tests: nothing really waits."""


def fast_controls(concurrency: int = 8, retry_ratio: float = 5.0) -> RunControls:
    """Run controls that never sleep and allow many retries (fault tests retry a lot, instantly)."""
    timing = Timing(sleep=no_wait)
    return RunControls(
        timing=timing, budget=RetryBudget(ratio=retry_ratio), limiter=AimdLimiter(concurrency, timing=timing)
    )


@dataclass(slots=True)
class World:
    """One emulator (in process or served), its credentials, and a state file."""

    base_url: str
    legacy_key: str
    token: str
    state: Path | str
    """A state file, or a PostgreSQL URL (kept as text: Path() would fold its '//')."""
    transport: httpx.AsyncBaseTransport | None = None
    projects: tuple[str, ...] = (SMALL_PROJECT,)
    wrap: Callable[[httpx.AsyncBaseTransport], httpx.AsyncBaseTransport] | None = field(default=None)

    def settings(self, **overrides: object) -> Settings:
        values: dict[str, object] = {
            "legacy_url": f"{self.base_url}/api/v1",
            "legacy_key": Secret(self.legacy_key),
            "v1_url": f"{self.base_url}/v1",
            "token": Secret(self.token),
            "state": self.state,
            "projects": self.projects,
        }
        values.update(overrides)
        # The overrides name Settings fields; pydantic checks their values when it builds the settings.
        return Settings(**values)  # type: ignore[arg-type]

    def env(self, **extra: str) -> dict[str, str]:
        """The environment of a `bridge` subprocess against this world."""
        return {
            **os.environ,
            "BRIDGE_LEGACY_URL": f"{self.base_url}/api/v1",
            "BRIDGE_V1_URL": f"{self.base_url}/v1",
            "BRIDGE_LEGACY_KEY": self.legacy_key,
            "BRIDGE_V1_TOKEN": self.token,
            "BRIDGE_STATE": str(self.state),
            **extra,
        }

    def client(self, path: str, headers: dict[str, str] | None = None) -> httpx.AsyncClient:
        return httpx.AsyncClient(
            base_url=f"{self.base_url}{path}", transport=self.transport, headers=headers or {}, timeout=60
        )

    async def control(self, method: str, path: str, body: object = None) -> object:
        async with self.client("/_emulator") as control:
            response = await control.request(method, path, json=body)
            response.raise_for_status()
            return response.json() if response.content else None

    async def run(
        self,
        *,
        dry_run: bool = False,
        controls: RunControls | None = None,
        observer: WriteObserver | None = None,
        **overrides: object,
    ) -> Outcome:
        transport = self.transport
        if transport is not None and self.wrap is not None:
            transport = self.wrap(transport)
        return await migrate(
            self.settings(**overrides),
            dry_run=dry_run,
            progress=Progress(),
            transports=Transports(transport, transport),
            controls=controls or fast_controls(),
            observer=observer,
        )

    async def census(self) -> Counter[tuple[str, ...]]:
        async with self.client("/v1", {"Authorization": f"Bearer {self.token}"}) as v1:
            return await census(v1.get)


def v1_writes_by_route(stats: object) -> Counter[str]:
    """The v1 write requests (every POST/PUT/PATCH/DELETE, answered or not) per route, from /_emulator/stats."""
    assert isinstance(stats, dict)
    routes = stats["requests"]["byRoute"]
    return Counter(
        {route: int(n) for route, n in routes.items() if route.split(" ")[0] in WRITE_METHODS and " /v1/" in route}
    )


async def _pages(get: Callable[..., Awaitable[httpx.Response]], path: str, **params: str) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
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


Listed = tuple[KindSpec, str, dict[str, object]]
ID = re.compile(r"[\w-]+")
"""One record the target lists: its kind, the v1 id of the project it is in (empty for the workspace), its row."""


async def _listed(get: Callable[..., Awaitable[httpx.Response]]) -> list[Listed]:
    """Every record of every declared kind, as the kind's own v1 listing gives it (``KindSpec.natural``)."""
    found: list[Listed] = []
    projects = [str(row["id"]) for row in await _pages(get, "/projects")]
    transactions: list[str] = []
    for kind in KINDS:
        listing = BY_ID[kind.natural.listed_by]
        if kind.natural.rows is not None:  # listed inside each record of its parent (a transaction's items)
            for parent in transactions:
                response = await get(listing.render((parent,)))
                response.raise_for_status()
                rows = response.json()[kind.natural.rows]
                found += [(kind, parent, row) for row in rows]
            continue
        scopes = projects if listing.parameters else [""]
        for project in scopes:
            rows = await _pages(get, listing.render((project,) if project else ()))
            found += [(kind, project or str(row.get("projectId") or ""), row) for row in rows]
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
    rows = {str(row["id"]): (kind, row) for kind, _, row in listed}
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


class Timeline(httpx.AsyncBaseTransport):
    """Notes each request as it leaves and as its answer arrives: ("sent" | "answered", "METHOD /path")."""

    def __init__(self, inner: httpx.AsyncBaseTransport, seen: list[tuple[str, str]]) -> None:
        self.inner = inner
        self.seen = seen

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        route = f"{request.method} {request.url.path}"
        self.seen.append(("sent", route))
        response = await self.inner.handle_async_request(request)
        self.seen.append(("answered", route))
        return response
