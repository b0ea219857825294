"""The SQLite file under a state: location, durability pragmas, transactions and the clean-close check.

Durability: WAL journal with ``synchronous=FULL`` (a committed step survives an OS crash or power loss, not
only a process crash), a busy timeout so a concurrent reader or a second writer waits instead of failing,
and every write transaction starts with ``BEGIN IMMEDIATE`` so two writers never deadlock on a lock
upgrade. A new file is created with mode 0600; SQLite gives its -wal and -shm files the same mode. The bridge
never changes the mode of a file it did not create, and a path that is not a regular file (a device node, a
FIFO, a directory, through a symlink or not) is refused before SQLite opens it.

Readers (``bridge status``, ``bridge crosswalk``, ``bridge verify``) open the file through SQLite's read-only
mode (``mode=ro``): they cannot write a byte of it, nor set its journal mode; a reader of a WAL file may leave
SQLite's own -wal and -shm files beside it (shared memory for readers, same mode as the file).

Clean close: each writer adds a row to ``sessions`` and stamps ``closed_at`` when it closes. A row left
open by a process that is gone means the previous session stopped uncleanly, and the next writer runs
``PRAGMA integrity_check`` before it trusts the file. Schema versions are ``state.schema``'s business.

A ``postgresql://`` URL puts the state in a PostgreSQL schema of its own per migration instead; what stands in
there for the file lock, BEGIN IMMEDIATE and the integrity check is ``state.postgres``'s business.
"""

from __future__ import annotations

import contextlib
import os
import socket
import sqlite3
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.request import pathname2url

from sqlalchemy import Engine, create_engine, delete, event, text, update
from sqlalchemy.engine import URL, Connection, make_url
from sqlalchemy.exc import DatabaseError, DBAPIError, NoSuchModuleError, OperationalError
from sqlalchemy.pool import ConnectionPoolEntry, QueuePool, StaticPool
from sqlmodel import Session, SQLModel, col

from bridge.files import not_regular
from state.errors import (
    StateCorruptError,
    StateError,
    StateLocationError,
    StateLockedError,
    StateStorageError,
)
from state.models import SessionRow, utc_now
from state.postgres import is_postgres, make_pg_engine, pg_integrity_problems, pg_storage_error_kind, schema_for
from state.postgres import with_driver as with_pg_driver
from state.processes import process_alive

DEFAULT_STATE = "bridge-state.db"
_SESSIONS = SQLModel.metadata.tables[SessionRow.__tablename__]
BUSY_TIMEOUT_MS = 10_000


@dataclass(frozen=True, slots=True)
class Location:
    """Where a state lives: a SQLAlchemy URL and, for a SQLite file, its path (None for memory or a server).

    ``schema`` is the PostgreSQL schema of the migration (None for SQLite: one file is one migration).
    """

    url: URL
    path: Path | None
    schema: str | None = None

    def describe(self) -> str:
        """The location for messages: the file path, or the URL with any password masked (and the schema)."""
        if self.path:
            return str(self.path)
        shown = self.url.render_as_string(hide_password=True)
        return f"{shown} (schema {self.schema})" if self.schema else shown

    def mask(self, text: str) -> str:
        """``text`` without the URL's password, should a driver ever quote it."""
        password = self.url.password
        return text.replace(str(password), "***") if password else text


def resolve_location(url_or_path: str | os.PathLike[str] | None, migration: str = "default") -> Location:
    """A file path or a SQLAlchemy URL (anything containing '://'); None means ./bridge-state.db.

    For a PostgreSQL URL, ``migration`` picks the schema (``state.postgres.schema_for``); SQLite ignores it.
    """
    raw = os.fspath(url_or_path) if url_or_path is not None else DEFAULT_STATE
    if "://" not in raw:
        path = Path(raw).expanduser().resolve()
        return Location(URL.create("sqlite", database=str(path)), path)
    try:
        url = make_url(raw)
    except Exception as exc:
        raise StateLocationError(f"--state {raw!r} is neither a file path nor a SQLAlchemy URL: {exc}") from exc
    if url.get_backend_name() == "sqlite" and url.database and url.database != ":memory:":
        return Location(url, Path(url.database).expanduser().resolve())
    if is_postgres(url):
        return Location(with_pg_driver(url), None, schema_for(migration))
    return Location(url, None)


def storage_error(exc: DBAPIError, where: Location) -> StateError:
    """Translate a driver error into the state error an operator can act on."""
    detail = where.mask(str(exc.orig) if exc.orig is not None else str(exc))
    if where.schema is not None:
        return _pg_storage_error(exc, where, detail)
    lowered = detail.lower()
    if "locked" in lowered or "busy" in lowered:
        return StateLockedError(
            f"the state file {where.describe()} is locked by another bridge process ({detail}); "
            "wait for it to finish or stop it, then rerun the same command to resume"
        )
    if "malformed" in lowered or "not a database" in lowered or "corrupt" in lowered:
        return StateCorruptError(
            f"the state file {where.describe()} is damaged ({detail}); restore the newest *.bak copy next to it "
            "or a backup, and report this"
        )
    return StateStorageError(
        f"could not write the state file {where.describe()} ({detail}); the step being written was not saved. "
        "Free disk space or fix the storage, then rerun the same command to resume"
    )


def _pg_storage_error(exc: DBAPIError, where: Location, detail: str) -> StateError:
    kind = pg_storage_error_kind(exc)
    if kind == "location":
        return StateLocationError(
            f"cannot use the state database {where.describe()} ({detail}); fix the user, password or database "
            "in --state (or BRIDGE_STATE), then run again"
        )
    if kind == "locked":
        return StateLockedError(
            f"the state database {where.describe()} is busy ({detail}); rerun the same command to resume"
        )
    if kind == "corrupt":
        return StateCorruptError(
            f"the state database {where.describe()} reports damage ({detail}); do not resume on it: restore it "
            "from a backup, and report this"
        )
    return StateStorageError(
        f"could not reach or write the state database {where.describe()} ({detail}); the step being written was "
        "not saved. Check that the server is up and has room, then rerun the same command to resume"
    )


def check_regular_file(path: Path) -> None:
    """Refuse a state path that does not exist or is not a regular file, before SQLite opens (or blocks on) it."""
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        raise StateLocationError(
            f"there is no state file at {path}; pass --state (or BRIDGE_STATE) naming the file a run wrote"
        ) from None
    except OSError as exc:
        raise StateLocationError(f"cannot read the state file {path}: {exc.strerror}") from exc
    kind = not_regular(mode)
    if kind is not None:
        raise StateLocationError(
            f"--state {path} is {kind}, not a state file; pass --state (or BRIDGE_STATE) naming a regular file"
        )


def prepare_file(path: Path) -> None:
    """Create a missing state file with mode 0600; an existing one must be a regular file and keeps its mode."""
    if not path.parent.is_dir():
        raise StateLocationError(f"cannot create the state file {path}: the directory {path.parent} does not exist")
    try:
        fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    except FileExistsError:
        # Someone else made it (an earlier run, or the operator): its mode is theirs to choose.
        check_regular_file(path)
        return
    except OSError as exc:
        raise StateLocationError(f"cannot create the state file {path}: {exc.strerror}") from exc
    os.close(fd)


def _immutable(path: Path) -> str:
    """``&immutable=1`` for a state in a folder we may not write, else nothing.

    Reading a WAL database takes a ``-shm`` file beside it, which SQLite cannot make in a read-only folder (it
    answers "attempt to write a readonly database"). Without a ``-wal`` file no writer has it open and every
    change is in the file itself, so reading it as immutable is exact; with one, a run may be writing it (or
    stopped before folding its journal in), and what the file alone holds could be stale: refused, saying what
    to do instead of "free disk space"."""
    if os.access(path.parent, os.W_OK):
        return ""
    if path.with_name(path.name + "-wal").exists():
        raise StateLocationError(
            f"the state file {path} is in a folder this user may not write, and a run is writing it or stopped "
            "before closing it (its -wal file is there): read it when that run has finished, or copy the state "
            "file with its -wal file into a folder you may write and read the copy"
        )
    return "&immutable=1"


def make_engine(where: Location, *, read_only: bool = False) -> Engine:
    """An engine whose every SQLite connection uses WAL, synchronous=FULL, a busy timeout and foreign keys.

    ``read_only`` opens a SQLite file in SQLite's read-only mode (``mode=ro``), which keeps the journal mode
    the file already has; a server URL is used as given (its own permissions decide).
    """
    if where.url.get_backend_name() != "sqlite":
        try:
            if where.schema is not None:
                return make_pg_engine(where.url, where.schema, read_only=read_only)
            return create_engine(where.url)
        except (NoSuchModuleError, ImportError) as exc:
            # A database this install has no dialect or driver for: a setting to fix, not a bug.
            raise StateLocationError(
                f"--state {where.describe()!r}: this bridge has no driver for {where.url.drivername!r} databases "
                f"({exc}); use a file path or sqlite:///FILE"
            ) from exc
    if where.path is None:
        engine = create_engine(where.url, poolclass=StaticPool, connect_args={"check_same_thread": False})
    elif read_only:
        uri = f"file:{pathname2url(str(where.path))}?mode=ro{_immutable(where.path)}"
        engine = create_engine(
            "sqlite://",
            poolclass=QueuePool,  # "sqlite://" alone would mean one in-memory connection per thread
            creator=lambda: sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_MS / 1000, check_same_thread=False),
        )
    else:
        engine = create_engine(where.url, connect_args={"timeout": BUSY_TIMEOUT_MS / 1000})

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: sqlite3.Connection, _record: ConnectionPoolEntry) -> None:
        # SQLAlchemy emits BEGIN itself (below), so the driver's legacy implicit transactions are off.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        if not read_only:  # setting it is a write (an empty file would get a header)
            cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=FULL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(connection: Connection) -> None:
        immediate = connection.get_execution_options().get("immediate", False)
        connection.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")

    return engine


def integrity_problems(engine: Engine) -> list[str]:
    """The rows of PRAGMA integrity_check other than 'ok' (empty when the file is sound).

    On PostgreSQL, the invariants ``state.postgres.pg_integrity_problems`` checks instead.
    """
    if engine.dialect.name == "postgresql":
        return pg_integrity_problems(engine)
    try:
        with engine.connect() as connection:
            rows = connection.exec_driver_sql("PRAGMA integrity_check").fetchall()
    except DatabaseError as exc:
        # Damage where the check starts (the schema, a table's root page) stops the check itself.
        if not isinstance(exc.orig, sqlite3.DatabaseError) or isinstance(exc.orig, sqlite3.OperationalError):
            raise
        return [f"integrity_check could not finish: {exc.orig}"]
    return [str(row[0]) for row in rows if str(row[0]) != "ok"]


class Database:
    """An opened state: the engine, its location, and sessions for reading or writing in one transaction."""

    def __init__(self, engine: Engine, where: Location) -> None:
        self.engine = engine
        self.where = where
        self._writer = engine.execution_options(immediate=True)
        # PostgreSQL has no BEGIN IMMEDIATE: the store's writes take turns here instead (see state.postgres).
        self._turn: contextlib.AbstractContextManager[object] = (
            threading.Lock() if where.schema is not None else contextlib.nullcontext()
        )
        self.open_quarantine: bool | None = None
        """Whether the quarantine may hold open entries; None until the crosswalk first asks. Only the writer
        holding the state's lock files entries, and it files them through this store, so a "no" read once
        stays true until it files one (``state.quarantine.add_entries`` sets it)."""

    @contextlib.contextmanager
    def write(self) -> Iterator[Session]:
        """One write transaction (BEGIN IMMEDIATE ... COMMIT); any failure rolls all of it back."""
        try:
            with self._turn, Session(self._writer, expire_on_commit=False) as session, session.begin():
                yield session
        except DBAPIError as exc:
            raise storage_error(exc, self.where) from exc

    @contextlib.contextmanager
    def read(self) -> Iterator[Session]:
        """One read transaction: a consistent snapshot, never blocked by a writer (WAL)."""
        try:
            with Session(self.engine, expire_on_commit=False) as session, session.begin():
                yield session
        except DBAPIError as exc:
            raise storage_error(exc, self.where) from exc


def corrupt_error(where: Location, problems: list[str]) -> StateCorruptError:
    """The error for a file that fails integrity_check, naming the first problems and the remedy."""
    shown = "; ".join(problems[:5])
    if where.schema is not None:
        return StateCorruptError(
            f"the state database {where.describe()} fails the integrity check ({shown}); do not resume on it: "
            "restore it from a backup, and report this"
        )
    return StateCorruptError(
        f"the state file {where.describe()} fails PRAGMA integrity_check ({shown}); do not resume on it: "
        "restore the newest *.bak copy next to it or a backup, and report this"
    )


def _check_after_unclean_stop(database: Database) -> None:
    """Run integrity_check when a previous writer left without closing; remember that it was checked."""
    c = _SESSIONS.c
    # Core on three columns: every open of a state asks this, and almost always of no row at all.
    with database.read() as session:
        open_rows = session.execute(
            _SESSIONS.select()
            .with_only_columns(c.id, c.host, c.pid)
            .where(c.closed_at.is_(None), c.checked_at.is_(None))
        )
        stale = [
            row_id
            for row_id, host, pid in open_rows
            if not (host == socket.gethostname() and pid == os.getpid()) and not process_alive(host, pid)
        ]
    if not stale:
        return
    problems = integrity_problems(database.engine)
    if problems:
        raise corrupt_error(database.where, problems)
    with database.write() as session:
        session.execute(update(_SESSIONS).where(c.id.in_(stale)).values(checked_at=utc_now()))


def register_writer(database: Database) -> int:
    """Check the file if a previous writer stopped uncleanly, then record this writer as open."""
    _check_after_unclean_stop(database)
    with database.write() as session:
        # Cleanly closed sessions carry no information any more; unclean ones stay as the record of a crash.
        session.execute(delete(SessionRow).where(col(SessionRow.closed_at).is_not(None)))
        row = SessionRow(host=socket.gethostname(), pid=os.getpid(), opened_at=utc_now())
        session.add(row)
        session.flush()
        assert row.id is not None
        return row.id


def close_database(database: Database, session_id: int | None) -> None:
    """Stamp this writer's clean close, fold the WAL back into the file, and release the connections."""
    try:
        if session_id is not None:
            with database.write() as session:
                row = session.get(SessionRow, session_id)
                if row is not None:
                    row.closed_at = utc_now()
            if database.where.path is not None:
                with contextlib.suppress(OperationalError), database.engine.connect() as connection:
                    connection.execute(text("PRAGMA wal_checkpoint(TRUNCATE)"))
    finally:
        database.engine.dispose()
