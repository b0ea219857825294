"""A state in PostgreSQL: a schema per migration, the URL forms, masked passwords, read-only readers, damage found."""

from __future__ import annotations

import re

import pytest
from sqlalchemy import text
from sqlalchemy.pool import QueuePool

from bridge.cli import exit_code
from bridge.localpg import LocalPostgres, free_port
from state import (
    CrosswalkEntry,
    StateCorruptError,
    StateError,
    StateLocationError,
    StateStorageError,
    open_state,
    schema_for,
)
from state.db import resolve_location
from state.errors import StateInUseError
from state.models import SessionRow, utc_now
from tests.pg import StateTarget

PASSWORD = "hunter2-s3cret"


@pytest.mark.parametrize("migration", ["acme", "Acme Ltd / 2026 budget", "x" * 200, "东京", "", "a;DROP SCHEMA public"])
def test_a_migrations_schema_is_a_plain_identifier_under_63_characters(migration: str) -> None:
    """Any migration name gives a lower-case identifier of letters, digits and underscores, the same every time."""
    schema = schema_for(migration)
    assert re.fullmatch(r"bridge_[a-z0-9_]+", schema)
    assert len(schema) <= 63
    assert schema == schema_for(migration)


def test_names_that_slug_alike_get_different_schemas() -> None:
    """`Acme Ltd` and `acme-ltd` read alike in the slug; the hash of the whole name keeps them apart."""
    assert schema_for("Acme Ltd") != schema_for("acme-ltd")
    assert schema_for("Acme Ltd").startswith("bridge_acme_ltd_")


def test_migrations_sharing_a_database_see_only_their_own_state(pg: LocalPostgres) -> None:
    """Two migrations in one database each keep their own crosswalk; nothing lands in the public schema."""
    url = pg.create_database("shared_by_two")
    with open_state(url, migration="north") as north, open_state(url, migration="south") as south:
        north.crosswalk.put([CrosswalkEntry("space", "S1", "spc_north")])
        south.crosswalk.put([CrosswalkEntry("space", "S1", "spc_south")])
        assert north.crosswalk.lookup("space", "S1") == "spc_north"
        assert south.crosswalk.lookup("space", "S1") == "spc_south"
    engine = StateTarget("postgresql", url).engine()
    try:
        with engine.connect() as connection:
            public = connection.execute(text("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'")).scalar()
            schemas = set(connection.execute(text("SELECT nspname FROM pg_namespace")).scalars())
    finally:
        engine.dispose()
    assert public == 0
    assert {schema_for("north"), schema_for("south")} <= schemas


def test_a_migration_opened_again_in_one_process_reuses_its_engine(pg: LocalPostgres) -> None:
    """A fleet worker opens each migration at every step: the engine (its server settings, its compiled
    statements) is kept, each close still ends its connections, and the writer lock still keeps one writer."""
    url = pg.create_database("opened_again")
    with open_state(url, migration="acme") as first:
        first.crosswalk.put([CrosswalkEntry("space", "S1", "spc_1")])
        engine = first.database.engine
    assert isinstance(engine.pool, QueuePool)
    assert engine.pool.checkedout() == 0
    with open_state(url, migration="acme") as again:
        assert again.database.engine is engine
        assert again.crosswalk.lookup("space", "S1") == "spc_1"
        with pytest.raises(StateInUseError):
            open_state(url, migration="acme")
        with open_state(url, migration="acme", read_only=True) as reader:
            assert reader.database.engine is not engine
            assert reader.crosswalk.lookup("space", "S1") == "spc_1"
    with open_state(url, migration="other") as other:
        assert other.database.engine is not engine
        assert other.crosswalk.lookup("space", "S1") is None


def test_a_plain_postgresql_url_uses_psycopg_3(pg: LocalPostgres) -> None:
    """`postgresql://` (SQLAlchemy would pick psycopg2, not installed) opens through psycopg 3."""
    plain = pg.url.replace("postgresql+psycopg://", "postgresql://")
    with open_state(plain, migration="plain") as store:
        assert store.database.engine.driver == "psycopg"
        assert "schema bridge_plain_" in store.location


def test_a_reader_cannot_write_and_a_writer_is_not_a_reader(state_target: StateTarget) -> None:
    """A read-only open refuses a write (nothing is stored), on both backends; the writer then still can write."""
    state_target.open().close()
    with state_target.open(read_only=True) as reader, pytest.raises(StateStorageError):
        reader.runs.start("m", "legacy:a", "v1:b", {})
    with state_target.open() as writer:
        assert writer.runs.last_runs() == []
        writer.runs.start("m", "legacy:a", "v1:b", {})


def test_a_reader_of_a_migration_never_written_creates_nothing(pg: LocalPostgres) -> None:
    """`bridge status` on a migration no run wrote: exit 2 saying so, and no schema is created for it."""
    with pytest.raises(StateLocationError, match="holds no bridge state") as refused:
        open_state(pg.url, read_only=True, migration="never-written")
    assert exit_code(refused.value) == 2
    engine = StateTarget("postgresql", pg.url).engine()
    try:
        with engine.connect() as connection:
            found = connection.execute(
                text("SELECT count(*) FROM pg_namespace WHERE nspname = :name"), {"name": schema_for("never-written")}
            ).scalar()
    finally:
        engine.dispose()
    assert found == 0


def _refusal(url: str) -> StateError:
    with pytest.raises(StateError) as refused:
        open_state(url, migration="m")
    return refused.value


@pytest.mark.parametrize(
    ("where", "error", "code"),
    [
        ("nobody-listens", StateStorageError, 3),
        ("no-such-database", StateLocationError, 2),
        ("no-such-role", StateLocationError, 2),
    ],
)
def test_an_unusable_server_is_a_state_error_without_the_password(
    pg: LocalPostgres, where: str, error: type[StateError], code: int
) -> None:
    """A refused connection, an unknown database or role: the state error naming the URL, its password masked."""
    port = free_port() if where == "nobody-listens" else pg.port
    user = "nobody_here" if where == "no-such-role" else "bridge"
    database = "absent" if where == "no-such-database" else "postgres"
    refused = _refusal(f"postgresql://{user}:{PASSWORD}@127.0.0.1:{port}/{database}")
    assert type(refused) is error
    assert exit_code(refused) == code
    assert PASSWORD not in str(refused)
    assert PASSWORD not in repr(refused.args)
    assert f"127.0.0.1:{port}/{database}" in str(refused)


def test_rows_that_break_a_constraint_are_refused_after_an_unclean_stop(pg: LocalPostgres) -> None:
    """Orphan rows restored with triggers off, then a writer that never closed: the next open refuses the state."""
    url = pg.create_database("damaged")
    where = resolve_location(url, "damaged")
    with open_state(url, migration="damaged") as store, store.database.write() as session:
        session.add(SessionRow(host="gone-host", pid=1, opened_at=utc_now()))
        # How such rows get in: a restore (pg_restore --disable-triggers) or a hand edit skips the FK triggers.
        session.execute(text("SET LOCAL session_replication_role = replica"))
        session.execute(
            text(
                "INSERT INTO crosswalk (kind, scope, legacy_id, v1_id, source_hash, run_id, created_at, updated_at) "
                "VALUES ('space', '', 'S1', 'spc_1', '', 4242, 'now', 'now')"
            )
        )
    with pytest.raises(StateCorruptError, match="fails the integrity check") as refused:
        open_state(url, migration="damaged")
    assert "1 rows of crosswalk break constraint" in str(refused.value)
    assert where.describe() in str(refused.value)
    with open_state(url, migration="damaged", read_only=True) as reader:  # `bridge status --check` sees it too
        assert any("crosswalk" in problem for problem in reader.integrity_problems())
