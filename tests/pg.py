"""The state backends the tests run on: a SQLite file, or a schema (or database) of a throw-away PostgreSQL.

``pg`` starts one ``LocalPostgres`` per test process (per xdist worker) for the session. It never skips: a
server that cannot start fails every PostgreSQL test with the reason (``make test`` installs the server).
``state_target`` is parametrized over both backends; each PostgreSQL case gets a migration (a schema) of its
own in the server's shared database, as many migrations share one database in production. ``run_state`` is
for code that opens the default migration (the engine): each PostgreSQL case gets a database of its own.
"""

from __future__ import annotations

import sqlite3
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import pytest
import sqlalchemy as sa
from sqlalchemy import Engine

from bridge.localpg import LocalPostgres
from state import StateStore, open_state
from state.db import make_engine, resolve_location
from state.postgres import create_schema

Backend = Literal["sqlite", "postgresql"]
BACKENDS: tuple[Backend, ...] = ("sqlite", "postgresql")


@dataclass(frozen=True, slots=True)
class StateTarget:
    """Where one test's state lives: a file path or a URL, and the migration (the schema on PostgreSQL)."""

    backend: Backend
    location: str
    migration: str = "default"

    def open(self, *, read_only: bool = False) -> StateStore:
        """``open_state`` on this state."""
        return open_state(self.location, read_only=read_only, migration=self.migration)

    def for_world(self) -> Path | str:
        """The location as ``tests.support.world.World.state`` holds it: a file's Path, or the URL as text."""
        return Path(self.location) if self.backend == "sqlite" else self.location

    def engine(self, *, create: bool = False) -> Engine:
        """An engine straight onto the state's tables (no store, no lock): to age, damage or inspect rows."""
        where = resolve_location(self.location, self.migration)
        engine = make_engine(where)
        if create and where.schema is not None:
            create_schema(engine, where.schema)
        return engine


@pytest.fixture(scope="session")
def pg() -> Iterator[LocalPostgres]:
    """One PostgreSQL server for this test process (fails, never skips, when it cannot start)."""
    with LocalPostgres() as server:
        yield server


def state_target_in(backend: Backend, directory: Path, request: pytest.FixtureRequest) -> StateTarget:
    """A new, empty state of ``backend``: a file in ``directory``, or a migration of its own on ``pg``."""
    if backend == "sqlite":
        return StateTarget("sqlite", str(directory / "bridge-state.db"))
    server: LocalPostgres = request.getfixturevalue("pg")
    return StateTarget("postgresql", server.url, f"test {request.node.name} {uuid.uuid4().hex[:8]}")


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> Backend:
    """Each state backend in turn."""
    chosen: Backend = request.param
    return chosen


@pytest.fixture
def state_target(backend: Backend, tmp_path: Path, request: pytest.FixtureRequest) -> StateTarget:
    """A new, empty state on each backend in turn."""
    return state_target_in(backend, tmp_path, request)


@pytest.fixture
def run_state(backend: Backend, tmp_path: Path, request: pytest.FixtureRequest) -> StateTarget:
    """A new, empty state of the default migration on each backend in turn (what `bridge run` opens).

    The engine opens the default migration, so each PostgreSQL case gets a new database of its own.
    """
    if backend == "sqlite":
        return StateTarget("sqlite", str(tmp_path / "state.sqlite"))
    server: LocalPostgres = request.getfixturevalue("pg")
    return StateTarget("postgresql", server.create_database(f"t_{uuid.uuid4().hex[:12]}"))


def load_sqlite_file(source: Path, into: StateTarget, revision: str) -> None:
    """Build ``into`` at ``revision`` and copy every row of the SQLite state file ``source`` (of that revision).

    How the tests get an older PostgreSQL state: the committed SQLite fixtures are the only record of what
    an older bridge wrote, and the same revisions build both.
    """
    from state import upgrade

    engine = into.engine(create=True)
    try:
        upgrade.apply(engine, revision)
        with sqlite3.connect(source) as old:
            old.row_factory = sqlite3.Row
            names = [
                row[0]
                for row in old.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY rootpage")
                if row[0] != "alembic_version" and not row[0].startswith("sqlite_")
            ]
            metadata = sa.MetaData()
            tables = [sa.Table(name, metadata, autoload_with=engine) for name in names]
            with engine.begin() as connection:
                for table in sorted(tables, key=lambda t: len(t.foreign_keys)):
                    rows = [dict(row) for row in old.execute(f'SELECT * FROM "{table.name}"')]  # noqa: S608
                    if rows:
                        connection.execute(table.insert(), rows)
                    if "id" in table.c and into.backend == "postgresql":  # explicit ids leave the sequence behind
                        sequence = f"pg_get_serial_sequence('{table.name}', 'id')"
                        setval = f'SELECT setval({sequence}, max(id)) FROM "{table.name}"'  # noqa: S608
                        connection.execute(sa.text(setval))
    finally:
        engine.dispose()
