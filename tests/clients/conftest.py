"""Fixtures of the client tests."""

from __future__ import annotations

import pytest

from bridge.clients.http import RunControls
from tests.clients.fakes import FakeClock, controls_for


@pytest.fixture
def clock() -> FakeClock:
    """Time that moves only when the code under test sleeps."""
    return FakeClock()


@pytest.fixture
def controls(clock: FakeClock) -> RunControls:
    """Run controls on the fake clock."""
    return controls_for(clock)
