"""Running the alembic revisions of the state schema (imported only when a file must change, see schema.py)."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.script import ScriptDirectory
from sqlalchemy import Engine
from sqlalchemy.engine import Connection

MIGRATIONS = Path(__file__).resolve().parent / "migrations"


def alembic_config(connection: Connection) -> Config:
    """An alembic configuration that runs the state revisions on ``connection`` (no alembic.ini)."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["connection"] = connection
    return config


def apply(engine: Engine, target: str) -> None:
    """Upgrade the file from its revision to ``target``, one revision at a time, each in its own transaction
    (``transaction_per_migration`` in env.py): a stop anywhere leaves the file at its last whole revision.

    One alembic run for all of them: each run loads env.py and every revision script again, which for a new
    state (every revision) cost five times what its tables did.
    """
    with engine.connect() as connection:
        command.upgrade(alembic_config(connection), target)
        connection.commit()


def shipped_revisions() -> list[str]:
    """The revisions the alembic scripts define, oldest first."""
    script = ScriptDirectory(str(MIGRATIONS))
    return [rev.revision for rev in reversed(list(script.walk_revisions()))]
