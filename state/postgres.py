"""A state in PostgreSQL: one schema per migration, one writer per schema, and the server's integrity check.

Many migrations share one database, each in its own schema (``schema_for``). Every connection of a store
starts with ``search_path`` set to that schema alone, so the models, the alembic revisions and their
``alembic_version`` table stay schema-agnostic (the same revisions run on SQLite) and nothing a store writes
can land in another migration's schema or in ``public``. (A ``schema_translate_map`` would have to be threaded
through alembic and every raw statement as well; the search path covers them all in one place.)

One writer per migration: a writer holds a session-level advisory lock keyed by its schema on a connection of
its own for as long as the store is open, in place of SQLite's sidecar ``flock``. The server drops the lock
with the connection, so a killed writer never leaves it behind (a refused writer waits a few seconds when the
holder is a dead process of its own host: the server notices a closed socket a moment late). That connection's
``application_name`` names the holder (pid and host), which is what a refused second writer is told. A server
restart ends the lock with every other connection of the store, so the writer's next statement fails
(StateStorageError, resumable) rather than writing unlocked for long.

Transactions: ``REPEATABLE READ`` throughout, so a read is one snapshot, as a SQLite read transaction is. A
store's write transactions run one at a time (a mutex around each, standing in for SQLite's ``BEGIN
IMMEDIATE``) and the advisory lock keeps every other process's writers out, so a write never races another:
the journal's read-modify-write steps (``attempts + 1``, record-if-absent) see every earlier commit and can
never meet a serialization failure.

Integrity (what ``PRAGMA integrity_check`` is on SQLite): the server keeps its own pages (checksums, WAL,
``amcheck`` are its administrator's tools, out of a client's reach), so the check verifies what a client can:
``alembic_version`` holds one row; every index is valid; every unique and foreign-key constraint the schema
declares is validated AND holds for the rows, re-read from the tables with index scans off (rows written
while triggers were disabled, or an index that lost entries, show up here); intent statuses are known ones.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import re
import socket
import time
from collections.abc import Mapping, Sequence

from sqlalchemy import (
    Engine,
    Insert,
    Table,
    Text,
    Update,
    bindparam,
    cast,
    create_engine,
    func,
    insert,
    literal_column,
    select,
    text,
    update,
)
from sqlalchemy.dialects.postgresql import JSON
from sqlalchemy.engine import URL, Connection
from sqlalchemy.exc import DBAPIError, SQLAlchemyError
from sqlalchemy.pool import NullPool
from sqlalchemy.sql.selectable import TableValuedAlias

from state.errors import StateInUseError
from state.models import INTENT_STATUSES, utc_now
from state.processes import process_alive

SCHEMA_PREFIX = "bridge_"
MAX_IDENTIFIER = 63  # PostgreSQL's NAMEDATALEN - 1
DRIVER = "postgresql+psycopg"
# A killed writer's server session ends when the server reads the closed socket: a moment, not at once.
DEAD_HOLDER_WAIT_S = 5.0
ENGINES_KEPT = 32
"""How many engines a process keeps for reuse (see ``make_pg_engine``): a fleet worker's workspaces at a time,
with room to spare; one kept without connections costs only its compiled statements."""


def is_postgres(url: URL) -> bool:
    """Whether a state URL names a PostgreSQL database."""
    return url.get_backend_name() == "postgresql"


def with_driver(url: URL) -> URL:
    """``postgresql://`` means psycopg 3 here (SQLAlchemy's default would be psycopg2, which is not installed)."""
    return url.set(drivername=DRIVER) if url.drivername == "postgresql" else url


def schema_for(migration: str) -> str:
    """The PostgreSQL schema of a migration: ``bridge_<slug>_<8 hex of sha256(name)>``, under 63 characters.

    The slug keeps the name readable in ``\\dn``; the hash of the whole name keeps two names that slug alike
    (``Acme Ltd`` and ``acme-ltd``) apart. Only lower-case letters, digits and underscores: no quoting needed.
    """
    digest = hashlib.sha256(migration.encode()).hexdigest()[:8]
    slug = re.sub(r"[^a-z0-9]+", "_", migration.lower()).strip("_")
    room = MAX_IDENTIFIER - len(SCHEMA_PREFIX) - len(digest) - 1
    slug = slug[:room].rstrip("_")
    return f"{SCHEMA_PREFIX}{slug}_{digest}" if slug else f"{SCHEMA_PREFIX}{digest}"


def lock_key(schema: str) -> int:
    """The advisory lock key of a schema (a signed 64-bit integer, as pg_try_advisory_lock takes)."""
    return int.from_bytes(hashlib.sha256(f"bridge-writer:{schema}".encode()).digest()[:8], "big", signed=True)


@functools.lru_cache(maxsize=ENGINES_KEPT)
def make_pg_engine(url: URL, schema: str, *, read_only: bool) -> Engine:
    """An engine whose connections see only ``schema``, in REPEATABLE READ; read-only ones cannot write.

    The same engine again for the same arguments (the last ``ENGINES_KEPT``): a new engine asks the server for
    its version and settings on its first connection and compiles every statement afresh, which a fleet worker
    paid at each step of each workspace (a store's close disposes of the engine's connections, not of it).
    """
    options = f"-c search_path={schema}"
    if read_only:
        options += " -c default_transaction_read_only=on"
    return create_engine(
        url,
        isolation_level="REPEATABLE READ",
        connect_args={"options": options, "application_name": "workspace-bridge"},
    )


def create_schema(engine: Engine, schema: str) -> None:
    """Create the migration's schema if it is missing (a writer only, under the advisory lock)."""
    with engine.connect() as connection:
        exists = connection.execute(
            text("SELECT 1 FROM pg_namespace WHERE nspname = :schema"), {"schema": schema}
        ).scalar()
        if not exists:
            connection.exec_driver_sql(f'CREATE SCHEMA "{schema}"')
            connection.commit()


class AdvisoryLock:
    """The writer lock of one schema, held on a connection of its own; ``release`` or the connection's end frees it."""

    def __init__(self, connection: Connection) -> None:
        self._connection: Connection | None = connection

    @classmethod
    def acquire(cls, url: URL, schema: str, where: str) -> AdvisoryLock:
        """Take the schema's writer lock or raise StateInUseError naming the process that holds it."""
        started = utc_now().strftime("%Y-%m-%dT%H:%M:%SZ")
        # application_name is cut at 63 bytes by the server; pid and host come first so they survive.
        holder = f"pid {os.getpid()} on {socket.gethostname()} (since {started})"
        holder_name = f"bridge {holder}"[:63]
        engine = _lock_engine(url)
        connection = engine.connect()
        try:
            connection.execute(text("SELECT set_config('application_name', :name, false)"), {"name": holder_name})
            key = lock_key(schema)
            deadline = time.monotonic() + DEAD_HOLDER_WAIT_S
            while not connection.execute(text("SELECT pg_try_advisory_lock(:key)"), {"key": key}).scalar():
                other = _holder(connection, key)
                if _gone(other) and time.monotonic() < deadline:
                    time.sleep(0.02)
                    continue
                raise StateInUseError(
                    f"the state {where} is being written by {other}. Two runs on one migration would interleave "
                    "one journal: wait for that run to finish (`bridge status` shows its progress) or stop it, "
                    "then run again; a stopped run resumes where it stopped"
                )
        except BaseException:
            connection.close()
            raise
        return cls(connection)

    def release(self) -> None:
        """Free the lock, then close its connection. Closing alone frees it too (the server drops a session's
        advisory locks with it), but the server may end that session after this process's next writer asks
        for the lock, and a live holder of this very process is never waited for."""
        if self._connection is not None:
            try:
                with contextlib.suppress(SQLAlchemyError):
                    self._connection.execute(text("SELECT pg_advisory_unlock_all()"))
                self._connection.close()  # no pool (see _lock_engine): the server's session ends here
            finally:
                self._connection = None


@functools.lru_cache(maxsize=ENGINES_KEPT)
def _lock_engine(url: URL) -> Engine:
    """Lock connections to ``url``: never pooled, so closing one ends its server session and frees its lock;
    kept per server like ``make_pg_engine`` (the holder's name is set per connection, not per engine)."""
    return create_engine(
        url,
        poolclass=NullPool,
        isolation_level="AUTOCOMMIT",  # the lock is the session's: no transaction is left open around it
        connect_args={"options": "-c idle_session_timeout=0"},
    )


def _gone(holder: str) -> bool:
    """Whether the holder is a writer of this host that has died (its server session not yet ended)."""
    named = re.match(r"pid (\d+) on (\S+)", holder)
    return named is not None and not process_alive(named[2], int(named[1]))


def _holder(connection: Connection, key: int) -> str:
    """Who holds the advisory lock ``key``: the holder's application_name, else its server pid and address."""
    unsigned = key & 0xFFFF_FFFF_FFFF_FFFF
    row = connection.execute(
        text(
            "SELECT a.application_name, a.pid, a.client_addr FROM pg_locks l "
            "JOIN pg_stat_activity a ON a.pid = l.pid WHERE l.locktype = 'advisory' AND l.granted "
            "AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database()) "
            "AND l.classid::bigint = :high AND l.objid::bigint = :low AND l.objsubid = 1"
        ),
        {"high": unsigned >> 32, "low": unsigned & 0xFFFF_FFFF},
    ).first()
    if row is None:  # released between the attempt and this look
        return "another process"
    name, pid, address = row
    if name.startswith("bridge pid "):
        return str(name).removeprefix("bridge ")
    return f"another process (server pid {pid} from {address or 'a local socket'})"


_CONSTRAINTS = text(
    """
    SELECT c.conname, c.contype, t.relname, f.relname, c.convalidated,
      ARRAY(SELECT a.attname FROM unnest(c.conkey) WITH ORDINALITY k(n, i)
            JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.n ORDER BY k.i),
      ARRAY(SELECT a.attname FROM unnest(c.confkey) WITH ORDINALITY k(n, i)
            JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.n ORDER BY k.i)
    FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid
    LEFT JOIN pg_class f ON f.oid = c.confrelid
    WHERE t.relnamespace = current_schema()::regnamespace AND c.contype IN ('p', 'u', 'f')
    ORDER BY t.relname, c.conname
    """
)

_TABLES = text("SELECT tablename FROM pg_tables WHERE schemaname = current_schema()")
_INVALID_INDEXES = text(
    "SELECT x.relname FROM pg_index i JOIN pg_class x ON x.oid = i.indexrelid "
    "WHERE x.relnamespace = current_schema()::regnamespace AND NOT (i.indisvalid AND i.indisready)"
)


def pg_integrity_problems(engine: Engine) -> list[str]:
    """What breaks the schema's invariants (see the module docstring); empty when it is sound."""
    problems: list[str] = []
    with engine.connect() as connection:
        # Re-read the tables themselves: an index that lost entries must not vouch for its own constraint.
        connection.exec_driver_sql("SET LOCAL enable_indexscan = off")
        connection.exec_driver_sql("SET LOCAL enable_indexonlyscan = off")
        connection.exec_driver_sql("SET LOCAL enable_bitmapscan = off")
        tables = set(connection.execute(_TABLES).scalars())
        if "alembic_version" in tables:
            versions = connection.execute(text("SELECT count(*) FROM alembic_version")).scalar_one()
            if versions != 1:
                problems.append(f"alembic_version holds {versions} rows, not 1")
        problems += [f"index {name} is not valid" for name in connection.execute(_INVALID_INDEXES).scalars()]
        for name, kind, table, parent, validated, columns, parent_columns in connection.execute(_CONSTRAINTS):
            if not validated:
                problems.append(f"constraint {name} on {table} is not validated")
            count = connection.exec_driver_sql(_violations(kind, table, columns, parent, parent_columns)).scalar_one()
            if count:
                problems.append(f"{count} rows of {table} break constraint {name}")
        if "intents" in tables:
            unknown = connection.execute(
                text("SELECT count(*) FROM intents WHERE status <> ALL(:known)"), {"known": list(INTENT_STATUSES)}
            ).scalar_one()
            if unknown:
                problems.append(f"{unknown} intents have a status the journal does not know")
        connection.rollback()
    return problems


def _violations(kind: str, table: str, columns: list[str], parent: str | None, parent_columns: list[str]) -> str:
    """A query counting the rows of ``table`` that break one constraint.

    The names come from the server's catalog of the store's own schema (never from input), each quoted.
    """
    quoted = [f'"{c}"' for c in columns]
    if kind in {"p", "u"}:
        not_null = " AND ".join(f"{c} IS NOT NULL" for c in quoted)
        group = ", ".join(quoted)
        having = "HAVING count(*) > 1"
        return f'SELECT count(*) FROM (SELECT 1 FROM "{table}" WHERE {not_null} GROUP BY {group} {having}) d'  # noqa: S608
    joined = " AND ".join(f'p."{pc}" = c.{c}' for pc, c in zip(parent_columns, quoted, strict=True))
    present = " AND ".join(f"c.{c} IS NOT NULL" for c in quoted)
    orphan = f'NOT EXISTS (SELECT 1 FROM "{parent}" p WHERE {joined})'  # noqa: S608
    return f'SELECT count(*) FROM "{table}" c WHERE {present} AND {orphan}'  # noqa: S608


def recordset_insert(table: Table, columns: Sequence[str], shared: Sequence[str]) -> Insert:
    """``INSERT INTO table (columns..., shared...) SELECT r.column..., :shared... FROM
    json_populate_recordset(NULL::table, :rows) r``: many rows in one statement.

    ``rows`` is bound as one JSON text (``recordset_rows``), each of ``shared`` (a value every row has) once under
    its own name. psycopg sends an executemany row by row, and its per-row work (and SQLAlchemy's) was most of the
    client's CPU in a batch of new intents or crosswalk entries. The json module's C encoder writes the rows;
    arrays of text per column (``unnest``) went through psycopg's escaping of every quote of every request body,
    in Python.
    """
    given = _recordset(table)
    values = [bindparam(name, type_=table.c[name].type) for name in shared]
    rows = select(*(given.c[name] for name in columns), *values)
    return insert(table).from_select([*columns, *shared], rows)


def recordset_update(table: Table, key: str, columns: Sequence[str]) -> Update:
    """``UPDATE table SET column = r.column... FROM json_populate_recordset(NULL::table, :rows) r WHERE
    table.key = r.key``: many rows' new values in one statement (bound as in ``recordset_insert``); ``.values``
    adds the shared ones."""
    given = _recordset(table)
    return update(table).where(table.c[key] == given.c[key]).values({name: given.c[name] for name in columns})


def recordset_rows(rows: Sequence[Mapping[str, object]]) -> str:
    """The ``rows`` parameter: the rows as a JSON array of objects (text, numbers and None only). Characters are
    written as themselves, not as \\u escapes, so the server converts them as it converts any text it is sent (a
    database whose encoding is not UTF-8 refuses escapes beyond ASCII in JSON)."""
    return json.dumps(rows, ensure_ascii=False)


def _recordset(table: Table) -> TableValuedAlias:
    """The rows of the ``rows`` parameter typed as ``table``'s rows: the server reads each column by name with its
    type (a missing one is NULL) through the same input conversion as a bound value."""
    rows = cast(bindparam("rows", type_=Text), JSON)
    return func.json_populate_recordset(literal_column(f"NULL::{table.name}"), rows).table_valued(*table.c.keys())


def pg_storage_error_kind(exc: DBAPIError) -> str:
    """Which state error a PostgreSQL driver error is: location, locked, corrupt or storage (by SQLSTATE first)."""
    sqlstate = getattr(exc.orig, "sqlstate", None) or ""
    detail = str(exc.orig).lower()
    if sqlstate.startswith("28") or sqlstate in {"3D000", "42501"} or "authentication failed" in detail:
        return "location"  # who or where: a setting to fix (role, password, database, permission)
    if "does not exist" in detail and ("database" in detail or "role" in detail):
        return "location"
    if sqlstate in {"40001", "40P01", "55P03"}:
        return "locked"
    if sqlstate.startswith("XX"):
        return "corrupt"
    return "storage"
