"""Schema versioning: which revision a state file is at, and bringing it to the one this bridge writes.

Schema versioning uses alembic (the well-kept migration tool for SQLAlchemy schemas): the revisions live in
``state/migrations/versions`` and the file's ``alembic_version`` table records the schema version. A writer
(``bridge plan``, ``bridge run``) opening a file from an older bridge upgrades it one revision at a time, each
in its own transaction, after a ``PRAGMA integrity_check`` and a backup copy next to it
(``<file>.v<old>.bak``, mode 0600); a reader never changes it and refuses it with ``SchemaTooOldError`` naming
those two commands. A file at a version this bridge does not know (a newer bridge wrote it) is refused with
``SchemaTooNewError`` before anything is written. alembic itself is imported only when a file must be created
or upgraded: it costs a fifth of a second at start-up, which every ``bridge status`` would otherwise pay.
A new state does not need it either: its tables are created from ``state.models`` in one transaction and the
version table alembic keeps says it is at the newest revision (a test checks that the revisions build that
same schema), so a run's first request no longer waits for every revision to run.

On PostgreSQL the same revisions run in the migration's schema, and there is no ``.bak`` copy: what stands in
for it is that each revision runs in its own transaction and PostgreSQL's DDL is transactional, so an upgrade
stopped anywhere leaves the schema at the last whole revision, its ``alembic_version`` agreeing, and the next
writer continues from there. A copy of a server database is its administrator's backup (``pg_dump``).
"""

from __future__ import annotations

import sqlite3

from sqlalchemy import Column, Engine, MetaData, PrimaryKeyConstraint, String, Table, inspect, text
from sqlmodel import SQLModel

from bridge.files import create_private
from state.db import Database, corrupt_error, integrity_problems
from state.errors import SchemaTooNewError, SchemaTooOldError, StateLocationError
from state.models import STATE_TABLES

REVISIONS = ("0001", "0002", "0003", "0004", "0005", "0006", "0007", "0008", "0009")
"""Every revision this bridge ships, oldest first (a test checks it against the alembic scripts)."""


def current_revision(engine: Engine) -> str | None:
    """The revision the file records, or None for a file no bridge has written yet."""
    if not inspect(engine).has_table("alembic_version"):
        return None
    with engine.connect() as connection:
        version = connection.execute(text("SELECT version_num FROM alembic_version")).scalar()
    return None if version is None else str(version)


def _refuse_newer(database: Database, current: str | None) -> None:
    if current is not None and current not in REVISIONS:
        raise SchemaTooNewError(
            f"the state file {database.where.describe()} has schema version {current}, written by a newer "
            f"workspace-bridge; this one knows versions up to {REVISIONS[-1]}. Upgrade workspace-bridge "
            "(never edit the file by hand)"
        )


# The version table as alembic creates it (alembic.runtime.migration), for a state created without alembic.
_VERSION_TABLE = Table(
    "alembic_version",
    MetaData(),
    Column("version_num", String(32), nullable=False),
    PrimaryKeyConstraint("version_num", name="alembic_version_pkc"),
)


def ensure_current_schema(database: Database) -> None:
    """Create the schema in a new file, upgrade an older one step by step, refuse a newer one."""
    current = current_revision(database.engine)
    if current == REVISIONS[-1]:
        return
    if current is None:
        _create(database)
        return
    _refuse_newer(database, current)
    problems = integrity_problems(database.engine)
    if problems:
        raise corrupt_error(database.where, problems)
    _backup(database, current)
    from state import upgrade  # noqa: PLC0415 -- alembic is loaded only when the schema must change (see above)

    upgrade.apply(database.engine, REVISIONS[-1])


def _create(database: Database) -> None:
    """A new state's tables, from the models, stamped at the newest revision: all of it or nothing."""
    with database.engine.begin() as connection:
        SQLModel.metadata.create_all(connection, tables=list(STATE_TABLES))
        _VERSION_TABLE.create(connection)
        connection.execute(_VERSION_TABLE.insert().values(version_num=REVISIONS[-1]))


def require_current_schema(database: Database) -> None:
    """For a reader: the file must already be at this bridge's version, since a reader never writes one."""
    current = current_revision(database.engine)
    if current == REVISIONS[-1]:
        return
    _refuse_newer(database, current)
    where = database.where.describe()
    if current is None:
        raise StateLocationError(
            f"the file {where} holds no bridge state (it is empty, or no run has written it yet); pass --state "
            "(or BRIDGE_STATE) naming the file a run wrote"
        )
    raise SchemaTooOldError(
        f"the state file {where} has schema version {current}, older than this bridge's {REVISIONS[-1]}, and "
        "this command only reads it; run `bridge plan` or `bridge run` with the same --state to upgrade it "
        "(a copy of the old file is kept beside it), then run this command again"
    )


def _backup(database: Database, version: str) -> None:
    """Copy an older file before upgrading it, with SQLite's online backup (consistent even under WAL).

    The copy is a new file of mode 0600 (a backup of the same version left by an earlier attempt is replaced,
    never written through: the name might be a symlink).
    """
    if database.where.path is None:
        return
    target = database.where.path.with_name(f"{database.where.path.name}.v{version}.bak")
    target.unlink(missing_ok=True)
    create_private(target, b"")
    source = sqlite3.connect(database.where.path)
    destination = sqlite3.connect(target)
    try:
        source.backup(destination)
    finally:
        destination.close()
        source.close()
