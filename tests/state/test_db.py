"""Opening states: location, file mode, durability pragmas, version refusal and the clean-close check.

Version refusal, the schema the revisions build and the clean-close check run on both backends; file modes,
paths and SQLite's pragmas and page damage are the SQLite file's own (PostgreSQL's are in test_postgres.py).
"""

from __future__ import annotations

import os
import sqlite3
import stat
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import Engine, MetaData, inspect, text
from sqlalchemy.exc import OperationalError
from sqlmodel import select

from bridge.cli import exit_code
from state import (
    SchemaTooNewError,
    StateCorruptError,
    StateLocationError,
    StateLockedError,
    StateStorageError,
    open_state,
    upgrade,
)
from state.db import DEFAULT_STATE, resolve_location, storage_error
from state.models import STATE_TABLES, RunRow, SessionRow, utc_now
from state.schema import REVISIONS
from state.upgrade import shipped_revisions
from tests.pg import Backend, StateTarget, state_target_in
from tests.test_files import null_device


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_new_state_file_and_its_wal_are_private(tmp_path: Path) -> None:
    """A new state file, its -wal and -shm are readable by the owner only (mode 0600)."""
    path = tmp_path / "state.db"
    with open_state(path) as store:
        store.runs.start("m", "src", "tgt", {})
        assert _mode(path) == 0o600
        assert _mode(Path(f"{path}-wal")) == 0o600
        assert _mode(Path(f"{path}-shm")) == 0o600


def test_an_existing_file_keeps_the_mode_its_owner_gave_it(tmp_path: Path) -> None:
    """The bridge chmods only files it creates: a writer opening an existing 0640 file leaves it 0640."""
    path = tmp_path / "state.db"
    open_state(path).close()
    path.chmod(0o640)
    with open_state(path) as store:
        store.runs.start("m", "src", "tgt", {})
    assert _mode(path) == 0o640


def test_state_uses_wal_full_sync_and_a_busy_timeout(store_path: Path) -> None:
    """Every connection runs in WAL mode with synchronous=FULL and waits on locks instead of failing."""
    with open_state(store_path) as store, store.database.engine.connect() as connection:
        assert connection.exec_driver_sql("PRAGMA journal_mode").scalar_one() == "wal"
        assert connection.exec_driver_sql("PRAGMA synchronous").scalar_one() == 2  # FULL
        assert connection.exec_driver_sql("PRAGMA busy_timeout").scalar_one() >= 1000


def test_default_location_is_bridge_state_db_in_the_working_directory(tmp_path: Path) -> None:
    """With no --state, the state is ./bridge-state.db."""
    where = resolve_location(None)
    assert where.path == Path.cwd().resolve() / DEFAULT_STATE


def test_a_sqlalchemy_url_is_accepted(tmp_path: Path) -> None:
    """--state may be a SQLAlchemy URL; a sqlite URL still gets the file handling of a path."""
    path = tmp_path / "via-url.db"
    with open_state(f"sqlite:///{path}") as store:
        store.runs.start("m", "src", "tgt", {})
    assert _mode(path) == 0o600
    with open_state(path, read_only=True) as store:
        assert store.runs.binding() == ("src", "tgt")


def test_a_missing_directory_is_a_location_error(tmp_path: Path) -> None:
    """A --state path in a directory that does not exist is refused, naming the directory."""
    missing = tmp_path / "nope" / "state.db"
    with pytest.raises(StateLocationError, match="does not exist"):
        open_state(missing)
    assert not missing.parent.exists()


@pytest.mark.parametrize("kind", ["directory", "FIFO", "device"])
def test_a_writer_refuses_a_path_that_is_not_a_regular_file(kind: str, tmp_path: Path) -> None:
    """`bridge run --state` naming a directory, a FIFO or a device is exit 2 naming what it is; its mode stays."""
    path = tmp_path / kind
    if kind == "directory":
        path.mkdir()
    elif kind == "FIFO":
        os.mkfifo(path, 0o644)
    else:
        path = null_device(tmp_path)
    before = path.stat().st_mode
    with pytest.raises(StateLocationError, match=f"is a {kind}") as caught:
        open_state(path)
    assert exit_code(caught.value) == 2
    assert path.stat().st_mode == before


def _execute(state_target: StateTarget, statement: str) -> None:
    """Run one statement on the state's tables behind the bridge's back (as a newer bridge or a crash would)."""
    engine = state_target.engine()
    try:
        with engine.begin() as connection:
            connection.execute(text(statement))
    finally:
        engine.dispose()


def test_a_file_from_a_newer_bridge_is_refused_untouched(state_target: StateTarget) -> None:
    """An unknown (newer) schema version is refused with both versions named, and the state is not written."""
    state_target.open().close()
    _execute(state_target, "UPDATE alembic_version SET version_num = '0099'")
    file = Path(state_target.location)
    before = file.read_bytes() if state_target.backend == "sqlite" else b""
    with pytest.raises(SchemaTooNewError) as caught:
        state_target.open()
    assert "0099" in str(caught.value)
    assert REVISIONS[-1] in str(caught.value)
    assert "Upgrade workspace-bridge" in str(caught.value)
    if state_target.backend == "sqlite":
        assert file.read_bytes() == before
    engine = state_target.engine()
    try:
        with engine.connect() as connection:
            opened = connection.execute(text("SELECT count(*) FROM sessions WHERE closed_at IS NULL")).scalar()
        assert opened == 0  # no writer registered
    finally:
        engine.dispose()


def test_file_records_the_current_schema_version(state_target: StateTarget) -> None:
    """The alembic version table holds the newest revision this bridge ships."""
    with state_target.open() as store:
        assert store.schema_version() == REVISIONS[-1]
    assert shipped_revisions() == list(REVISIONS)


def _by_revisions(target: StateTarget) -> Engine:
    """An empty state of ``target`` brought to the newest revision by running every revision on it."""
    engine = target.engine(create=True)
    upgrade.apply(engine, REVISIONS[-1])
    return engine


def test_migrations_build_exactly_the_tables_the_models_describe(state_target: StateTarget) -> None:
    """Applying every revision yields the schema of state.models (no drift between the two), on both backends."""
    engine = _by_revisions(state_target)
    try:
        with engine.connect() as connection:
            differences = compare_metadata(MigrationContext.configure(connection), _state_metadata())
    finally:
        engine.dispose()
    assert differences == []


def _schema(engine: Engine) -> dict[str, object]:
    """Every table's columns (type, nullability, default), keys, unique constraints and indexes, as the database
    describes them (alembic's comparison of defaults misreads SQLite's, so the two databases are compared)."""
    seen = inspect(engine)
    return {
        table: (
            {c["name"]: (str(c["type"]), c["nullable"], c["default"]) for c in seen.get_columns(table)},
            seen.get_pk_constraint(table)["constrained_columns"],
            sorted((u["name"], tuple(u["column_names"])) for u in seen.get_unique_constraints(table)),
            sorted((i["name"], tuple(i["column_names"]), i["unique"]) for i in seen.get_indexes(table)),
            sorted(
                (tuple(f["constrained_columns"]), f["referred_table"], tuple(f["referred_columns"]))
                for f in seen.get_foreign_keys(table)
            ),
        )
        for table in sorted(seen.get_table_names())
    }


def test_a_new_state_has_the_schema_the_revisions_build(
    backend: Backend, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """A new state is made from the models in one transaction, without alembic: it has every table, column,
    default, key and index that running each revision on an empty state gives, and alembic reads it at the
    newest revision."""
    made = state_target_in(backend, (tmp_path / "made").resolve(), request)
    revised = state_target_in(backend, (tmp_path / "revised").resolve(), request)
    for target in (made, revised):
        if target.backend == "sqlite":
            Path(target.location).parent.mkdir()
    made.open().close()
    engines = (made.engine(), _by_revisions(revised))
    try:
        assert _schema(engines[0]) == _schema(engines[1])
        for engine in engines:
            with engine.connect() as connection:
                assert MigrationContext.configure(connection).get_current_revision() == REVISIONS[-1]
    finally:
        for engine in engines:
            engine.dispose()


def _state_metadata() -> MetaData:
    # SQLModel's metadata is process-wide; only the state tables are this file's business.
    ours = MetaData()
    for table in STATE_TABLES:
        table.to_metadata(ours)
    return ours


def test_an_unclean_stop_triggers_an_integrity_check(state_target: StateTarget) -> None:
    """A writer that vanished without closing is noticed, and the next writer checks the state first."""
    with state_target.open() as store, store.database.write() as session:
        session.add(SessionRow(host="gone-host", pid=1, opened_at=utc_now()))
    # A clean close leaves no session behind; the row above imitates a writer killed on another machine.
    with state_target.open() as store, store.database.read() as session:
        rows = session.exec(select(SessionRow).where(SessionRow.host == "gone-host")).all()
        assert [row.checked_at is not None for row in rows] == [True]


def test_a_damaged_file_is_refused_after_an_unclean_stop(tmp_path: Path) -> None:
    """When integrity_check fails after an unclean stop, the open fails with what to do next."""
    # SQLite only: it scribbles over a page of the file (PostgreSQL's damage case is in test_postgres.py).
    path = tmp_path / "state.db"
    with open_state(path) as store, store.database.write() as session:
        for n in range(300):
            session.add(RunRow(migration=f"m{n}", source_identity="s", target_identity="t", started_at=utc_now()))
    with sqlite3.connect(path) as connection:
        connection.execute(
            "INSERT INTO sessions (host, pid, opened_at) VALUES ('gone-host', 1, '2026-01-01T00:00:00.000000Z')"
        )
    data = bytearray(path.read_bytes())
    page = 4096
    # Scribble over an interior page of the runs table, leaving the header and schema pages readable.
    data[page * 5 : page * 5 + 64] = b"\xff" * 64
    path.write_bytes(bytes(data))
    with pytest.raises(StateCorruptError, match=r"restore the newest \*\.bak copy"):
        open_state(path)


def test_a_reader_neither_checks_nor_hides_an_unclean_stop(state_target: StateTarget) -> None:
    """A read-only open (bridge status) leaves an unclean stop for the next writer to check."""
    state_target.open().close()
    _execute(
        state_target,
        "INSERT INTO sessions (host, pid, opened_at) VALUES ('gone-host', 1, '2026-01-01T00:00:00.000000Z')",
    )
    with state_target.open(read_only=True) as store, store.database.read() as session:
        row = session.exec(select(SessionRow).where(SessionRow.host == "gone-host")).one()
        assert row.checked_at is None
    with state_target.open() as store, store.database.read() as session:
        gone = session.exec(select(SessionRow).where(SessionRow.host == "gone-host")).one()
        assert gone.checked_at is not None


@pytest.mark.parametrize(
    ("driver_message", "error", "advice"),
    [
        ("database or disk is full", StateStorageError, "Free disk space"),
        ("disk I/O error", StateStorageError, "rerun the same command to resume"),
        ("database is locked", StateLockedError, "another bridge process"),
        ("database disk image is malformed", StateCorruptError, "restore the newest *.bak"),
        ("file is not a database", StateCorruptError, "restore the newest *.bak"),
    ],
)
def test_driver_errors_become_state_errors_with_a_remedy(
    driver_message: str, error: type[Exception], advice: str
) -> None:
    """Each SQLite failure maps to the state error whose message says what to do, naming the file."""
    where = resolve_location("/srv/bridge/state.db")
    translated = storage_error(OperationalError("COMMIT", {}, sqlite3.OperationalError(driver_message)), where)
    assert type(translated) is error
    assert advice in str(translated)
    assert "/srv/bridge/state.db" in str(translated)
