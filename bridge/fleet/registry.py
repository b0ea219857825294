"""The fleet's own two tables, beside DBOS's and the migrations' in one PostgreSQL database (schema ``bridge_fleet``).

- ``workspaces``: each submitted workspace (its manifest entry, never a secret), the target it writes to (the
  queue partition that keeps one migration per target), and its current attempt: the workflow id is derived
  from these, so submitting the same manifest again finds the workflow it already started.
- ``workers``: each worker process, with a heartbeat. DBOS recovers a dead process's workflows when that same
  process starts again; a worker that never comes back needs another to declare it dead and re-enqueue its
  workflows (what DBOS's hosted Conductor does). A worker's heartbeat older than ``LEASE_S`` is that
  declaration, taken by one live worker in one ``UPDATE ... RETURNING`` so two never take the same one.

The tables are created if missing (``create_all``): they hold only what the fleet can rebuild by submitting
the manifest again, so they carry no versioned migrations of their own.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from sqlalchemy import (
    Column,
    DateTime,
    Engine,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    case,
    func,
    insert,
    inspect,
    select,
    update,
)
from sqlalchemy.dialects.postgresql import insert as pg_insert

from bridge.fleet.manifest import WorkspaceSpec

SCHEMA = "bridge_fleet"
BEAT_S = 3.0
"""How often a worker stamps its heartbeat and looks for dead workers."""
LEASE_S = 15.0
"""A worker silent this long is dead: its workflows go back on the queue (well within the minute promised)."""

metadata = MetaData(schema=SCHEMA)
workspaces = Table(
    "workspaces",
    metadata,
    Column("name", String(63), primary_key=True),
    Column("spec_json", Text, nullable=False),
    Column("target", String(500), nullable=False),
    # What the legacy key opens, recognised by its records (``control.source_of``); "" when it holds none.
    Column("source", String(500), nullable=False, server_default=""),
    Column("attempt", Integer, nullable=False, default=1),
    Column("submitted_at", DateTime(timezone=True), nullable=False, server_default=func.now()),
)
workers = Table(
    "workers",
    metadata,
    Column("executor_id", String(200), primary_key=True),
    Column("host", String(255), nullable=False),
    Column("pid", Integer, nullable=False),
    Column("concurrency", Integer, nullable=False),
    Column("started_at", DateTime(timezone=True), nullable=False, server_default=func.now()),
    Column("beat_at", DateTime(timezone=True), nullable=False, server_default=func.now()),
    # alive, left (stopped cleanly) or dead (silent, declared so by taken_over_by)
    Column("state", String(16), nullable=False, default="alive"),
    Column("taken_over_by", String(200)),
)


@dataclass(frozen=True, slots=True)
class Submitted:
    """A workspace the fleet knows: its entry, its target and which attempt is current."""

    spec: WorkspaceSpec
    target: str
    attempt: int
    source: str = ""

    @property
    def workflow_id(self) -> str:
        """Derived from the migration (name, both URLs) and the attempt: the same submission, the same id."""
        identity = "\n".join((self.spec.name, self.spec.legacy_url, self.spec.v1_url))
        digest = hashlib.sha256(identity.encode()).hexdigest()[:12]
        return f"bridge-{self.spec.name}-{digest}-{self.attempt}"


@dataclass(frozen=True, slots=True)
class Worker:
    executor_id: str
    host: str
    pid: int
    concurrency: int
    state: str
    silent_s: float
    """Seconds since its last heartbeat, by the database's clock."""
    taken_over_by: str | None


def ensure_tables(engine: Engine) -> None:
    """Create the schema and tables if missing (idempotent; safe from several processes at once)."""
    with engine.begin() as connection:
        # Two first workers at once would both try to create the schema: the lock makes the second wait.
        connection.exec_driver_sql("SELECT pg_advisory_xact_lock(hashtext('bridge_fleet.schema'))")
        connection.exec_driver_sql(f"CREATE SCHEMA IF NOT EXISTS {SCHEMA}")
        metadata.create_all(connection, checkfirst=True)
        # A fleet submitted before sources were recorded: its table gains the column (create_all adds none).
        connection.exec_driver_sql(
            f"ALTER TABLE {SCHEMA}.workspaces ADD COLUMN IF NOT EXISTS source VARCHAR(500) NOT NULL DEFAULT ''"
        )


def exists(engine: Engine) -> bool:
    """Whether a fleet was ever submitted to this database."""
    return inspect(engine).has_table("workspaces", schema=SCHEMA)


def submitted(engine: Engine, name: str | None = None) -> list[Submitted]:
    """Every workspace submitted (or the one named), by name."""
    statement = select(workspaces).order_by(workspaces.c.name)
    if name is not None:
        statement = statement.where(workspaces.c.name == name)
    with engine.connect() as connection:
        rows = connection.execute(statement).mappings().all()
    return [
        Submitted(WorkspaceSpec.model_validate_json(r["spec_json"]), r["target"], r["attempt"], r["source"])
        for r in rows
    ]


def find(engine: Engine, name: str) -> Submitted | None:
    found = submitted(engine, name)
    return found[0] if found else None


def add(engine: Engine, spec: WorkspaceSpec, target: str, source: str) -> tuple[Submitted, bool]:
    """Record a new workspace at attempt 1; or, when a racing submit of the same name recorded it first, that
    entry and False (the caller compares the entries: one name is one migration)."""
    row = {"name": spec.name, "spec_json": spec.model_dump_json(), "target": target, "source": source}
    statement = pg_insert(workspaces).values(**row).on_conflict_do_nothing(index_elements=["name"])
    with engine.begin() as connection:
        inserted = connection.execute(statement.returning(workspaces.c.name)).first() is not None
    found = find(engine, spec.name)
    assert found is not None  # just inserted, or inserted by the racing submit; rows are never deleted
    return found, inserted


@contextmanager
def enqueuing(engine: Engine, name: str) -> Iterator[None]:
    """Hold the one lock on starting ``name``'s workflow (a transaction-scoped advisory lock): racing submits
    of one name check for the workflow and enqueue it one after another, so only the first says it started
    it. The server frees the lock however the holder ends."""
    with engine.begin() as connection:
        connection.execute(select(func.pg_advisory_xact_lock(func.hashtext(f"bridge-fleet-enqueue:{name}"))))
        yield


def next_attempt(engine: Engine, name: str) -> Submitted:
    """Move a workspace to its next attempt (a retry gets a new workflow id, on the same partition)."""
    with engine.begin() as connection:
        connection.execute(update(workspaces).where(workspaces.c.name == name).values(attempt=workspaces.c.attempt + 1))
    found = find(engine, name)
    assert found is not None
    return found


def join(engine: Engine, executor_id: str, host: str, pid: int, concurrency: int) -> None:
    with engine.begin() as connection:
        connection.execute(insert(workers).values(executor_id=executor_id, host=host, pid=pid, concurrency=concurrency))


def beat(engine: Engine, executor_id: str) -> bool:
    """Stamp a live worker's heartbeat; False when it is no longer alive (another declared it dead)."""
    with engine.begin() as connection:
        stamped = connection.execute(
            update(workers)
            .where(workers.c.executor_id == executor_id, workers.c.state == "alive")
            .values(beat_at=func.now())
            .returning(workers.c.executor_id)
        ).first()
    return stamped is not None


def rejoin(engine: Engine, executor_id: str) -> None:
    """A worker declared dead that is alive after all: alive again, and again open to being taken over."""
    with engine.begin() as connection:
        connection.execute(
            update(workers)
            .where(workers.c.executor_id == executor_id)
            .values(state="alive", taken_over_by=None, beat_at=func.now())
        )


def leave(engine: Engine, executor_id: str) -> None:
    with engine.begin() as connection:
        connection.execute(update(workers).where(workers.c.executor_id == executor_id).values(state="left"))


def claim_dead(engine: Engine, taker: str) -> list[str]:
    """Take over every worker silent for LEASE_S (by the database's clock): an alive one is declared dead, one
    that left keeps its state; the ones this call took."""
    with engine.begin() as connection:
        rows = connection.execute(
            update(workers)
            .where(
                workers.c.taken_over_by.is_(None),
                workers.c.executor_id != taker,
                workers.c.beat_at < func.now() - func.make_interval(0, 0, 0, 0, 0, 0, LEASE_S),
            )
            # A worker that left cleanly stays "left"; its unfinished workflows are taken over all the same.
            .values(state=case((workers.c.state == "alive", "dead"), else_=workers.c.state), taken_over_by=taker)
            .returning(workers.c.executor_id)
        ).all()
    return [str(row[0]) for row in rows]


def all_workers(engine: Engine) -> dict[str, Worker]:
    with engine.connect() as connection:
        silent = func.extract("epoch", func.now() - workers.c.beat_at).label("silent_s")
        rows = connection.execute(select(workers, silent)).mappings().all()
    return {
        r["executor_id"]: Worker(
            executor_id=r["executor_id"],
            host=r["host"],
            pid=r["pid"],
            concurrency=r["concurrency"],
            state=r["state"],
            silent_s=float(r["silent_s"]),
            taken_over_by=r["taken_over_by"],
        )
        for r in rows
    }
