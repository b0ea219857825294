"""The clients over a real loopback socket (uvicorn): timeouts on a stall, dropped connections, both surfaces."""

from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import UTC, datetime

import httpx
import pytest
from fastapi import FastAPI

from bridge.clients.http import RunControls
from bridge.clients.legacy import open_legacy
from bridge.clients.retry import RetryPolicy
from bridge.clients.v1 import open_v1
from bridge.config import Secret
from bridge.emulator.app import create_app
from tests.clients.fakes import FakeClock, controls_for
from tests.support.serving import serving

pytestmark = pytest.mark.wire


@pytest.fixture(scope="module")
def app() -> FastAPI:
    return create_app(seed=42, size="small")


@pytest.fixture(scope="module")
def base_url(app: FastAPI) -> Iterator[str]:
    with serving(app) as url:
        yield url


@pytest.fixture
def run_controls() -> RunControls:
    controls = controls_for(FakeClock(wall_start=datetime.now(UTC)), policy=RetryPolicy(rng=random.Random(9)))
    controls.budget.floor = 1000
    return controls


def set_faults(base_url: str, *rules: dict[str, object]) -> None:
    response = httpx.post(f"{base_url}/_emulator/faults", json={"seed": 4, "rules": list(rules)})
    assert response.status_code == 200, response.text


@pytest.mark.anyio
async def test_stalled_reads_time_out_and_are_retried(app: FastAPI, base_url: str, run_controls: RunControls) -> None:
    """A request held past the client timeout fails as a network error and the read is sent again."""
    token = Secret(app.state.credentials.token)
    set_faults(base_url, {"kind": "stall", "rate": 0.5, "route": "/v1/me", "stallS": 1.0})
    try:
        async with open_v1(f"{base_url}/v1", token, run_controls, timeout=0.3) as v1:
            for _ in range(3):
                assert (await v1.me()).id
    finally:
        set_faults(base_url)
    assert run_controls.budget.retries > 0


@pytest.mark.anyio
async def test_dropped_connection_after_commit_is_replayed_once(
    app: FastAPI, base_url: str, run_controls: RunControls
) -> None:
    """The socket closes after the write landed (every write, here); the keyed retry gets the replay, which
    commits nothing and so is answered, and the project exists once."""
    token = Secret(app.state.credentials.token)
    set_faults(base_url, {"kind": "commit_then_drop", "rate": 1.0, "route": "/v1/projects", "methods": ["POST"]})
    async with open_v1(f"{base_url}/v1", token, run_controls) as v1:
        try:
            created = await v1.send_write("projects_create", (), {"name": "Wire"}, "project-wire-0123456789")
        finally:
            set_faults(base_url)
        assert isinstance(created, dict)
        assert created["name"] == "Wire"
        names = [project.name async for project in v1.projects()]
    assert names.count("Wire") == 1


@pytest.mark.anyio
async def test_legacy_reads_over_the_wire(app: FastAPI, base_url: str, run_controls: RunControls) -> None:
    """The legacy key reaches the service in its header over a real socket and reads work."""
    key = Secret(app.state.credentials.legacy_key)
    async with open_legacy(f"{base_url}/api/v1", key, run_controls) as legacy:
        projects = await legacy.projects()
        budget = await legacy.budget(projects[0].id)
    assert budget.lines
