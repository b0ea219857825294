"""The world a test migrates in: one emulator app (in process, or served on a loopback port), the key and admin
token of its target's workspace pair, and a state; runs, the control API and the census (``tests.support.census``)
against it.

``fresh_world`` is the one way to a fresh seeded emulator and a token; ``World.of`` is the world over an app a
test built itself (a planted source, a copy, a fleet's tenant); ``World.served`` puts either on a loopback port
(``tests.support.serving``) for the CLI, a subprocess or a forked run (``tests.support.forked``).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from fastapi import FastAPI

from bridge.clients.http import RunControls
from bridge.clients.limiter import AimdLimiter
from bridge.clients.retry import RetryBudget, Timing
from bridge.config import Secret, Settings
from bridge.emulator.app import create_app
from bridge.emulator.control.state import EmulatorState
from bridge.emulator.core.seed import Size, seeded_service
from bridge.emulator.core.store import Service
from bridge.engine.points import WriteObserver
from bridge.engine.progress import Progress
from bridge.engine.run import Outcome, Transports, migrate
from tests.support.census import census, pages
from tests.support.serving import serving

# The smallest project of the seed-42 `small` workspace (62 lines, 100 actuals; archived, so its status
# PATCH is exercised too). Tests that migrate one project use it to stay fast.
SMALL_PROJECT = "prj_4f276ac9d964"
IN_PROCESS = "http://emulator"
"""The base URL of a world in process (its transport hands every request to the app, whatever the host)."""


async def no_wait(_seconds: float) -> None:
    """The retry policy's sleep in tests: nothing really waits."""


def fast_controls(concurrency: int = 8, retry_ratio: float = 5.0) -> RunControls:
    """Run controls that never sleep and allow many retries (fault tests retry a lot, instantly)."""
    timing = Timing(sleep=no_wait)
    return RunControls(
        timing=timing, budget=RetryBudget(ratio=retry_ratio), limiter=AimdLimiter(concurrency, timing=timing)
    )


def run_settings(
    base_url: str,
    legacy_key: str,
    token: str,
    state: Path | str,
    projects: tuple[str, ...],
    *,
    migration: str = "default",
    **overrides: object,
) -> Settings:
    """The settings of a run against the emulator at ``base_url`` with these credentials, over ``state``."""
    values: dict[str, object] = {
        "legacy_url": f"{base_url}/api/v1",
        "legacy_key": Secret(legacy_key),
        "v1_url": f"{base_url}/v1",
        "token": Secret(token),
        "state": str(state),
        "migration": migration,
        "projects": projects,
    }
    values.update(overrides)
    # The overrides name Settings fields; pydantic checks their values when it builds the settings.
    return Settings(**values)  # type: ignore[arg-type]


@dataclass(slots=True)
class World:
    """One emulator app (in process or served), the credentials of one of its workspace pairs, and a state."""

    app: FastAPI
    legacy_key: str
    token: str
    state: Path | str
    """A state file, or a PostgreSQL URL (kept as text: Path() would fold its '//')."""
    base_url: str = IN_PROCESS
    transport: httpx.AsyncBaseTransport | None = None
    """The app in process; None sends the world's own requests and runs over the wire to ``base_url``."""
    projects: tuple[str, ...] = (SMALL_PROJECT,)
    """The projects a run migrates (every one when empty)."""
    migration: str = "default"
    wrap: Callable[[httpx.AsyncBaseTransport], httpx.AsyncBaseTransport] | None = None
    """Wraps the transport of a run (a fault, a stall, a timeline between the bridge and the app)."""

    @classmethod
    def of(
        cls,
        app: FastAPI,
        state: Path | str,
        *,
        tenant: int = 0,
        projects: tuple[str, ...] = (SMALL_PROJECT,),
        migration: str = "default",
    ) -> World:
        """The world over ``app`` in process, with the legacy key and the admin token of its ``tenant``-th
        workspace pair (the only one unless the app serves a fleet)."""
        emulator: EmulatorState = app.state.emulator
        credentials = emulator.tenants[tenant].credentials
        transport = httpx.ASGITransport(app=app)
        return cls(app, credentials.legacy_key, credentials.token, state, IN_PROCESS, transport, projects, migration)

    @property
    def emulator(self) -> EmulatorState:
        """The app's state: its service, tokens, faults and request counters."""
        emulator: EmulatorState = self.app.state.emulator
        return emulator

    @property
    def service(self) -> Service:
        return self.emulator.service

    @property
    def project_id(self) -> str:
        """The one project this world migrates."""
        (project,) = self.projects
        return project

    @property
    def legacy_url(self) -> str:
        return f"{self.base_url}/api/v1"

    @property
    def v1_url(self) -> str:
        return f"{self.base_url}/v1"

    @contextlib.contextmanager
    def served(self, *, in_process: bool = False) -> Iterator[World]:
        """This world on a loopback port: its URLs point there, and its own requests and runs go over the wire
        too, unless ``in_process`` keeps them on the app in process (the served URL is then for subprocesses)."""
        with serving(self.app) as base_url:
            yield dataclasses.replace(self, base_url=base_url, transport=self.transport if in_process else None)

    def settings(self, **overrides: object) -> Settings:
        """The settings of a run against this world; ``overrides`` name other ``Settings`` fields."""
        return run_settings(
            self.base_url, self.legacy_key, self.token, self.state, self.projects, migration=self.migration, **overrides
        )

    def env(self, **extra: str) -> dict[str, str]:
        """The environment of a `bridge` subprocess against this world."""
        return {
            **os.environ,
            "BRIDGE_LEGACY_URL": self.legacy_url,
            "BRIDGE_V1_URL": self.v1_url,
            "BRIDGE_LEGACY_KEY": self.legacy_key,
            "BRIDGE_V1_TOKEN": self.token,
            "BRIDGE_STATE": str(self.state),
            **extra,
        }

    def transports(self) -> Transports:
        """What a run sends through: the world's transport (wrapped by ``wrap`` if set) on both surfaces."""
        transport = self.transport
        if transport is not None and self.wrap is not None:
            transport = self.wrap(transport)
        return Transports(transport, transport)

    def client(self, path: str, headers: dict[str, str] | None = None) -> httpx.AsyncClient:
        return httpx.AsyncClient(
            base_url=f"{self.base_url}{path}", transport=self.transport, headers=headers or {}, timeout=60
        )

    def legacy_client(self) -> httpx.AsyncClient:
        """A client of the legacy surface holding the world's key."""
        return self.client("/api/v1", {"X-API-Key": self.legacy_key})

    def v1_client(self) -> httpx.AsyncClient:
        """A client of the v1 surface holding the world's token."""
        return self.client("/v1", {"Authorization": f"Bearer {self.token}"})

    async def control(self, method: str, path: str, body: object = None) -> object:
        async with self.client("/_emulator") as control:
            response = await control.request(method, path, json=body)
            response.raise_for_status()
            return response.json() if response.content else None

    def call(
        self,
        method: str,
        path: str,
        *,
        json: object = None,
        headers: Mapping[str, str] | None = None,
        params: Mapping[str, str] | None = None,
    ) -> httpx.Response:
        """One request to the v1 surface (or ``/_emulator`` with a path starting there), as the target's admin,
        from a test that is not itself async."""

        async def send() -> httpx.Response:
            async with self.client("", {"Authorization": f"Bearer {self.token}"}) as client:
                url = path if path.startswith("/_emulator") else f"/v1{path}"
                return await client.request(method, url, json=json, headers=headers, params=params)

        return asyncio.run(send())

    def list_all(self, path: str, params: dict[str, str] | None = None) -> list[dict[str, Any]]:
        """Every item of a paged v1 list, as the untyped JSON it is, from a test that is not itself async."""

        async def read() -> list[dict[str, Any]]:
            async with self.v1_client() as v1:
                return await pages(v1.get, path, **(params or {}))

        return asyncio.run(read())

    async def run(
        self,
        *,
        dry_run: bool = False,
        controls: RunControls | None = None,
        observer: WriteObserver | None = None,
        **overrides: object,
    ) -> Outcome:
        """A run (or plan) of this world as `bridge run` runs it; ``overrides`` name other settings."""
        return await migrate(
            self.settings(**overrides),
            dry_run=dry_run,
            progress=Progress(),
            transports=self.transports(),
            controls=controls or fast_controls(),
            observer=observer,
        )

    async def census(self) -> Counter[tuple[str, ...]]:
        async with self.v1_client() as v1:
            return await census(v1.get)

    async def clean_census(self) -> Counter[tuple[str, ...]]:
        """Run to the end, nothing quarantined; then the census: what a clean run leaves on the target."""
        outcome = await self.run()
        assert not outcome.ledger.quarantine
        return await self.census()


def fresh_world(
    state: Path | str,
    size: Size = "small",
    *,
    dirty: bool = False,
    hostile: bool = False,
    projects: tuple[str, ...] = (SMALL_PROJECT,),
) -> World:
    """A new emulator seeded 42 (`small` unless told; the dirty and hostile catalogues if asked) in process,
    with its generated legacy key and admin token, over ``state``."""
    return World.of(create_app(seeded_service(42, size, dirty=dirty, hostile=hostile)), state, projects=projects)


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
