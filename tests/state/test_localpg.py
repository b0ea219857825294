"""The throw-away PostgreSQL the tests, the fleet demo and the bench start: found, reachable, gone when stopped."""

from __future__ import annotations

from pathlib import Path

import psycopg
import pytest

from bridge.cli import exit_code
from bridge.localpg import LocalPostgres, LocalPostgresUnavailable


def test_missing_server_binaries_name_the_fix(tmp_path: Path) -> None:
    """No initdb where it looked: exit 2 naming where it looked and that `make test` installs the server."""
    with pytest.raises(LocalPostgresUnavailable) as missing:
        LocalPostgres(bindir=tmp_path).start()
    assert str(tmp_path) in str(missing.value)
    assert "`make test`" in str(missing.value)
    assert exit_code(missing.value) == 2


def test_a_server_serves_fresh_databases_and_leaves_nothing_when_stopped() -> None:
    """A new database is reachable at the URL it returns; stopping ends the server and removes its directory."""
    with LocalPostgres() as server:
        directory = server.directory
        url = server.create_database("fresh_one")
        assert url.startswith("postgresql+psycopg://bridge@127.0.0.1:")
        with psycopg.connect(url.replace("postgresql+psycopg", "postgresql")) as connection:
            assert connection.execute("SELECT current_database()").fetchone() == ("fresh_one",)
    assert directory is not None
    assert not directory.exists()
    with pytest.raises(psycopg.OperationalError):
        psycopg.connect(url.replace("postgresql+psycopg", "postgresql"), connect_timeout=2)
