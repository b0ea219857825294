"""The state store: one object the engine, the verifier and the CLI open and share.

::

    store = open_state("bridge-state.db")           # path or SQLAlchemy URL; None -> ./bridge-state.db
    store = open_state("postgresql://host/db", migration="acme")   # one PostgreSQL schema per migration
    run = store.runs.start(migration, source, target, options, plan_fingerprint)
    intent = store.journal.record(IntentSpec(step_key, kind, "POST", path, key, body, members, scope, run.id))
    store.journal.mark_sent(step_key)
    store.journal.complete(step_key, [CrosswalkEntry(kind, legacy_id, v1_id, scope, source_hash)], summary)
    store.journal.fail(step_key, code, request_id) / store.journal.quarantine(step_key, [QuarantineEntry(...)])
    store.crosswalk.lookup(kind, legacy_id, scope) / lookup_many / export("csv" | "json")
    store.journal.in_flight()                        # replay first on resume (oldest first, with created_at)
    store.journal.record_many(specs) / complete_many([(step_key, entries), ...])   # group commit: one fsync
    store.runs.finish(run.id, "completed")
    store.source.recognise(records, where) / check(records, where)   # the legacy workspace, by its records
    store.close()                                    # or use the store as a context manager

Every call is synchronous and is one transaction (milliseconds with synchronous=FULL); async callers
may call it directly or through ``anyio.to_thread``. The store is safe to share between threads.
"""

from __future__ import annotations

import os
from types import TracebackType

from sqlalchemy.exc import DBAPIError

from state.crosswalk import Crosswalk
from state.db import (
    Database,
    check_regular_file,
    close_database,
    integrity_problems,
    make_engine,
    prepare_file,
    register_writer,
    resolve_location,
    storage_error,
)
from state.journal import Journal
from state.postgres import AdvisoryLock, create_schema
from state.quarantine import Quarantine
from state.runs import Runs
from state.schema import current_revision, ensure_current_schema, require_current_schema
from state.source import SourceWorkspace
from state.sync import Conflicts, Cutovers, Marks
from state.writer_lock import WriterLock


class StateStore:
    """An open state file: runs, crosswalk, journal, quarantine and the source's records over one database."""

    def __init__(
        self, database: Database, session_id: int | None, lock: WriterLock | AdvisoryLock | None = None
    ) -> None:
        self.database = database
        self.runs = Runs(database)
        self.crosswalk = Crosswalk(database)
        self.journal = Journal(database)
        self.quarantine = Quarantine(database)
        self.source = SourceWorkspace(database)
        self.marks = Marks(database)
        self.conflicts = Conflicts(database)
        self.cutovers = Cutovers(database)
        self._session_id = session_id
        self._lock = lock
        self._closed = False

    @property
    def location(self) -> str:
        """Where the state lives, for messages (a path, or a URL with its password masked)."""
        return self.database.where.describe()

    def schema_version(self) -> str | None:
        """The schema revision the file records."""
        return current_revision(self.database.engine)

    def integrity_problems(self) -> list[str]:
        """What ``PRAGMA integrity_check`` reports beyond 'ok' (empty for a sound file); reads the whole file."""
        return integrity_problems(self.database.engine)

    def close(self) -> None:
        """Mark a clean close (so the next open skips the integrity check) and release the file."""
        if not self._closed:
            self._closed = True
            try:
                close_database(self.database, self._session_id)
            finally:
                if self._lock is not None:
                    self._lock.release()

    def __enter__(self) -> StateStore:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.close()


def open_state(
    url_or_path: str | os.PathLike[str] | None = None, *, read_only: bool = False, migration: str = "default"
) -> StateStore:
    """Open a state file (creating it with mode 0600, or upgrading an older schema one step at a time).

    A ``postgresql://`` (psycopg 3) or ``postgresql+psycopg://`` URL opens the schema of ``migration`` in that
    database instead (``state.postgres.schema_for``; created by the first writer); the writer lock is an
    advisory lock there, and a reader's session is read-only (``default_transaction_read_only``). A SQLite
    file ignores ``migration``: one file is one migration.

    ``read_only`` is for commands that only look (status, export, lookup, verify): they open the file in
    SQLite's read-only mode and change nothing in it or about it (no file created, no mode changed, no schema
    created or upgraded: an older file is refused with SchemaTooOldError naming the command that upgrades it).
    They do not register as a writer, so they neither trigger nor suppress the integrity check after an unclean
    stop, and they may look while a run writes. A writer holds the file's writer lock until it closes
    (``writer_lock``): a second writer is refused with StateInUseError.
    Raises SchemaTooNewError, SchemaTooOldError, StateCorruptError, StateLocationError, StateStorageError or
    StateLockedError.
    """
    where = resolve_location(url_or_path, migration)
    if where.path is not None:
        if read_only:
            check_regular_file(where.path)
        else:
            prepare_file(where.path)
    lock: WriterLock | AdvisoryLock | None = None
    if where.path is not None and not read_only:
        lock = WriterLock.acquire(where.path)
    engine = make_engine(where, read_only=read_only)
    database = Database(engine, where)
    try:
        if where.schema is not None and not read_only:
            lock = AdvisoryLock.acquire(where.url, where.schema, where.describe())
            create_schema(engine, where.schema)
        if read_only:
            require_current_schema(database)
            session_id = None
        else:
            ensure_current_schema(database)
            session_id = register_writer(database)
    except BaseException as exc:
        engine.dispose()
        if lock is not None:
            lock.release()
        if isinstance(exc, DBAPIError):
            raise storage_error(exc, where) from exc
        raise
    return StateStore(database, session_id, lock)
