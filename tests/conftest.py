"""Fixtures shared by every test package. Area-specific fixtures live in that area's conftest.py."""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, settings

import tests.respx_bridge  # noqa: F401 - registers respx.mock(using="bridge")

# One hypothesis profile for the whole suite; CI derandomizes so a red run can be replayed exactly.
settings.register_profile("default", deadline=None, max_examples=100, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("ci", parent=settings.get_profile("default"), derandomize=True)
settings.load_profile("ci" if os.environ.get("CI") else "default")


@pytest.fixture
def anyio_backend() -> str:
    """Async tests run on asyncio, the loop the bridge itself uses."""
    return "asyncio"


# Emulator fixtures (in-process app, uvicorn on a loopback port, credentials) are shared by every area.
# The state backends (a SQLite file, a throw-away PostgreSQL) for the state and engine tests.
pytest_plugins = ("tests.support.emulator", "tests.pg")
