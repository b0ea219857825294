from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.synced import synced
from tests.support.world import World


@pytest.fixture
def served(tmp_path: Path) -> Iterator[World]:
    """The `small` emulator on a loopback port, migrated once by `bridge run`, then synced once (the baseline)."""
    with synced(tmp_path / "state.sqlite") as world:
        yield world
