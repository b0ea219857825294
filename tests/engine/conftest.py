"""Engine fixtures: a fresh seeded emulator in process, and the census of a clean run to compare against."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from bridge.emulator.control.state import EmulatorState
from tests.support.census import v1_writes_by_route
from tests.support.world import World, fresh_world


@pytest.fixture
def world(tmp_path: Path) -> World:
    """A fresh emulator and an empty state file."""
    return fresh_world(tmp_path / "state.sqlite")


@pytest.fixture(scope="session")
def reference(tmp_path_factory: pytest.TempPathFactory) -> Counter[tuple[str, ...]]:
    """What a clean, uninterrupted run of the small project leaves on the target, read through v1."""
    return asyncio.run(fresh_world(tmp_path_factory.mktemp("reference") / "state.sqlite").clean_census())


@dataclass(frozen=True, slots=True)
class CleanRun:
    """What a clean, uninterrupted run of a whole workspace left on the target, and the v1 writes it sent."""

    census: Counter[tuple[str, ...]]
    writes_by_route: Counter[str]


@pytest.fixture(scope="session")
def workspace_reference(tmp_path_factory: pytest.TempPathFactory) -> CleanRun:
    """A clean run of every project of `small`: its v1 census and the emulator's count of writes per route."""
    clean = fresh_world(tmp_path_factory.mktemp("workspace") / "state.sqlite", projects=())

    async def once() -> CleanRun:
        census = await clean.clean_census()
        stats = await clean.control("GET", "/stats")
        return CleanRun(census, v1_writes_by_route(stats))

    return asyncio.run(once())


@pytest.fixture(scope="session")
def medium_reference(tmp_path_factory: pytest.TempPathFactory) -> Counter[tuple[str, ...]]:
    """What a clean run of the whole seeded `medium` workspace leaves on the target, read through v1.

    Run in process (the same engine as `bridge run`, without the loopback sockets, so about half the time);
    computed once per session for every test that compares a `medium` migration with a clean one.
    """
    clean = fresh_world(tmp_path_factory.mktemp("medium") / "state.sqlite", "medium", projects=())
    return asyncio.run(clean.clean_census())


@pytest.fixture
def medium(tmp_path: Path) -> Iterator[tuple[World, EmulatorState]]:
    """A fresh seeded `medium` emulator on a loopback port for forked runs (in-process runs and the census use
    the same app without the sockets), and its v1 context for the request counters."""
    with fresh_world(tmp_path / "state.sqlite", "medium", projects=()).served(in_process=True) as world:
        yield world, world.emulator
