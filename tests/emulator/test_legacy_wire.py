"""The legacy surface over real HTTP (uvicorn on a loopback port), and the `bridge emulate` command."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from bridge.emulator.app import create_app
from bridge.emulator.core.seed import seeded_service
from tests.support.serving import serving
from tests.support.world import World

pytestmark = pytest.mark.wire


def test_every_documented_status_is_served_over_the_wire(served: World) -> None:
    """200, 201, 204, 401, 403 and 404 come back from the served app exactly as in process."""
    key = {"X-API-Key": served.legacy_key}
    with httpx.Client(base_url=served.legacy_url, headers=key, timeout=10) as client:
        assert client.get("/projects").status_code == 200
        created = client.post("/spaces", json={"name": "Wire test"})
        assert created.status_code == 201
        assert client.delete(f"/spaces/{created.json()['id']}").status_code == 204
        assert client.get("/projects/missing").status_code == 404
        assert client.get("/projects", headers={"X-API-Key": "wrong"}).status_code == 401
        served.service.restrict_api_key(served.legacy_key)
        forbidden = client.get("/projects")
        assert forbidden.status_code == 403
        assert forbidden.json()["code"] == "forbidden"


def test_the_rate_limit_answers_429_with_retry_after_over_the_wire() -> None:
    """With a legacy rate limit, a burst beyond it gets 429 and a Retry-After in seconds (A02)."""
    app = create_app(seeded_service(42, "small"), legacy_key="k", legacy_rate_limit=2)
    with serving(app) as base_url, httpx.Client(base_url=f"{base_url}/api/v1", timeout=10) as client:
        statuses = [client.get("/spaces", headers={"X-API-Key": "k"}) for _ in range(6)]
    limited = [r for r in statuses if r.status_code == 429]
    assert limited, [r.status_code for r in statuses]
    assert int(limited[0].headers["Retry-After"]) >= 1
    assert limited[0].json()["code"] == "rate_limited"


@pytest.mark.slow
@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM])
def test_bridge_emulate_prints_its_urls_and_exits_cleanly_on_a_signal(stop: signal.Signals) -> None:
    """`bridge emulate` prints base URLs and how to authenticate (a key from the environment by its variable, not
    its value), serves, and exits 0 on SIGINT or SIGTERM."""
    command = [str(Path(sys.executable).parent / "bridge"), "emulate", "--port", "0"]
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "EMULATOR_LEGACY_KEY": "wire-key"}
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env) as process:
        try:
            assert process.stdout is not None
            banner = [process.stdout.readline() for _ in range(3)]
            match = re.search(r"(http://127\.0\.0\.1:\d+)/api/v1", banner[0])
            assert match, banner
            assert "<from EMULATOR_LEGACY_KEY>" in banner[0]
            assert "wire-key" not in "".join(banner)
            assert "Bearer" in banner[1]
            assert "/_emulator" in banner[2]
            assert _get_when_up(f"{match.group(1)}/api/v1/spaces", "wire-key").status_code == 200
            process.send_signal(stop)
            assert process.wait(timeout=20) == 0
        finally:
            if process.poll() is None:
                process.kill()


def _get_when_up(url: str, key: str) -> httpx.Response:
    """GET ``url`` once the server accepts connections (bounded wait)."""
    deadline = time.monotonic() + 20
    while True:
        try:
            return httpx.get(url, headers={"X-API-Key": key}, timeout=5)
        except httpx.TransportError:
            assert time.monotonic() < deadline, "the emulator never answered"
            time.sleep(0.1)
