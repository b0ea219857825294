"""Helpers for the engine's tests: an emulator in process or on a loopback port, runs, and a v1 census.

The census reads the target only through the v1 surface (never the crosswalk) and lists every migrated
object by its natural fields, so two runs can be compared as multisets: a duplicate shows as a count of
two, a missing record as a count of zero.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from bridge.clients.http import RunControls
from bridge.clients.limiter import AimdLimiter
from bridge.clients.retry import RetryBudget, Timing
from bridge.config import Secret, Settings
from bridge.engine.points import WriteObserver
from bridge.engine.progress import Progress
from bridge.engine.run import Outcome, Transports, migrate

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


async def census(get: Callable[..., Awaitable[httpx.Response]]) -> Counter[tuple[str, ...]]:
    """Every object a migration writes, by kind and natural fields, read through the v1 surface."""
    seen: Counter[tuple[str, ...]] = Counter()
    for space in await _pages(get, "/spaces"):
        seen["space", str(space["name"]), str(space.get("archived"))] += 1
    for contact in await _pages(get, "/contacts"):
        seen["contact", str(contact["name"])] += 1
    for kind, name_field in (("currencies", "code"), ("fringes", "name"), ("globals", "symbol"), ("tags", "name")):
        for item in await _pages(get, f"/library/{kind}"):
            seen[kind, str(item[name_field])] += 1
    for project in await _pages(get, "/projects"):
        name, pid = str(project["name"]), str(project["id"])
        seen["project", name, str(project.get("status"))] += 1
        for kind in ("currencies", "fringes", "globals"):
            for item in await _pages(get, f"/projects/{pid}/library/{kind}"):
                seen[f"project {kind}", name, str(item.get("sourceId") is not None)] += 1
        for phase in await _pages(get, f"/projects/{pid}/budget/phases"):
            seen["phase", name, str(phase["name"]), str(phase["type"])] += 1
        lines = {str(line["id"]): line for line in await _pages(get, f"/projects/{pid}/budget/lines")}
        for line in lines.values():
            parent = lines.get(str(line.get("parentId")), {})
            seen["line", name, str(parent.get("description")), str(line["description"]), str(line["type"])] += 1
        for txn in await _pages(get, "/transactions", projectId=pid):
            amount = txn["amount"]
            items = txn.get("items")
            assert isinstance(amount, dict)
            assert isinstance(items, list | None)
            when, what = str(txn.get("timestamp")), str(txn.get("description"))
            seen["transaction", name, when, str(amount["amount"]), what, str(len(items or []))] += 1
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
