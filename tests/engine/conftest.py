"""Engine fixtures: a fresh seeded emulator in process, and the census of a clean run to compare against."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from bridge.emulator.app import create_app
from bridge.emulator.control.state import EmulatorState
from bridge.emulator.core.seed import Size, seeded_service
from tests.support.serving import serving
from tests.support.world import World, v1_writes_by_route


def fresh_world(state: Path | str, size: Size = "small") -> World:
    """A new emulator (seed 42, `small` unless told) in process, with a token issued through its control API."""
    app = create_app(seeded_service(42, size))
    transport = httpx.ASGITransport(app=app)
    world = World("http://emulator", app.state.credentials.legacy_key, "", state, transport)

    async def issue() -> str:
        answer = await world.control("POST", "/tokens", {"workspace": "target", "role": "admin"})
        assert isinstance(answer, dict)
        return str(answer["token"])

    world.token = asyncio.run(issue())
    return world


@pytest.fixture
def world(tmp_path: Path) -> World:
    """A fresh emulator and an empty state file."""
    return fresh_world(tmp_path / "state.sqlite")


@pytest.fixture(scope="session")
def reference(tmp_path_factory: pytest.TempPathFactory) -> Counter[tuple[str, ...]]:
    """What a clean, uninterrupted run of the small project leaves on the target, read through v1."""
    clean = fresh_world(tmp_path_factory.mktemp("reference") / "state.sqlite")

    async def once() -> Counter[tuple[str, ...]]:
        outcome = await clean.run()
        assert not outcome.ledger.quarantine
        return await clean.census()

    return asyncio.run(once())


@dataclass(frozen=True, slots=True)
class CleanRun:
    """What a clean, uninterrupted run of a whole workspace left on the target, and the v1 writes it sent."""

    census: Counter[tuple[str, ...]]
    writes_by_route: Counter[str]


@pytest.fixture(scope="session")
def workspace_reference(tmp_path_factory: pytest.TempPathFactory) -> CleanRun:
    """A clean run of every project of `small`: its v1 census and the emulator's count of writes per route."""
    clean = fresh_world(tmp_path_factory.mktemp("workspace") / "state.sqlite")
    clean.projects = ()

    async def once() -> CleanRun:
        outcome = await clean.run()
        assert not outcome.ledger.quarantine
        stats = await clean.control("GET", "/stats")
        assert isinstance(stats, dict)
        return CleanRun(await clean.census(), v1_writes_by_route(stats))

    return asyncio.run(once())


@pytest.fixture(scope="session")
def medium_reference(tmp_path_factory: pytest.TempPathFactory) -> Counter[tuple[str, ...]]:
    """What a clean run of the whole seeded `medium` workspace leaves on the target, read through v1.

    Run in process (the same engine as `bridge run`, without the loopback sockets, so about half the time);
    computed once per session for every test that compares a `medium` migration with a clean one.
    """
    clean = fresh_world(tmp_path_factory.mktemp("medium") / "state.sqlite", "medium")
    clean.projects = ()

    async def once() -> Counter[tuple[str, ...]]:
        outcome = await clean.run()
        assert not outcome.ledger.quarantine
        return await clean.census()

    return asyncio.run(once())


@pytest.fixture
def medium(tmp_path: Path) -> Iterator[tuple[World, EmulatorState]]:
    """A fresh seeded `medium` emulator on a loopback port for forked runs (in-process runs and the census use
    the same app without the sockets), and its v1 context for the request counters."""
    app = create_app(seeded_service(42, "medium"))
    with serving(app) as base_url:
        token = httpx.post(f"{base_url}/_emulator/tokens", json={"workspace": "target"}).json()["token"]
        state = tmp_path / "state.sqlite"
        world = World(base_url, app.state.credentials.legacy_key, token, state, httpx.ASGITransport(app), ())
        yield world, app.state.emulator
