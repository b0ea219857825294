"""Bridge mode's tests: a served emulator migrated and synced once, driven through the CLI and both surfaces."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
from click.testing import CliRunner

from bridge.cli import cli
from state import open_state
from tests.support.census import v1_writes_by_route
from tests.support.world import SMALL_PROJECT, World, fresh_world


@contextmanager
def synced(state: Path) -> Iterator[World]:
    """The `small` emulator on a loopback port, migrated once by `bridge run`, then synced once (the baseline)."""
    with fresh_world(state).served() as world:
        assert bridge(world, "run", "--project", SMALL_PROJECT)[0] == 0
        code, output = bridge(world, "sync", "--once", "--project", SMALL_PROJECT)
        assert code == 0, output
        yield world


def bridge(world: World, *args: str) -> tuple[int, str]:
    """`bridge ARGS` against ``world``: its exit code and everything it printed."""
    result = CliRunner().invoke(cli, list(args), env=world.env(), catch_exceptions=False)
    return result.exit_code, result.output


def writes(world: World) -> int:
    """The v1 write requests the emulator has answered so far."""
    return sum(v1_writes_by_route(httpx.get(f"{world.base_url}/_emulator/stats").json()).values())


def legacy(world: World) -> httpx.Client:
    return httpx.Client(base_url=world.legacy_url, headers={"X-API-Key": world.legacy_key})


def v1(world: World) -> httpx.Client:
    return httpx.Client(base_url=world.v1_url, headers={"Authorization": f"Bearer {world.token}"})


def entry(world: World, kind: str, *, index: int = 5) -> tuple[str, str, str]:
    """(legacy id, v1 id, v1 project id) of one crosswalked record of ``kind`` in the small project."""
    store = open_state(str(world.state), read_only=True)
    try:
        rows = sorted(r for r in store.crosswalk.mappings(SMALL_PROJECT) if r[0] == kind)
        project = store.crosswalk.get("project", SMALL_PROJECT)
        assert project is not None
        return rows[index][1], rows[index][2], project.v1_id
    finally:
        store.close()
