"""Alembic environment for the state file: always run in process by ``state.db`` on its own connection.

The connection comes from ``config.attributes["connection"]``; there is no alembic.ini and no offline mode.
Each revision runs in its own transaction so an upgrade interrupted half-way leaves the file at the last
whole step, and the next open continues from there.
"""

from __future__ import annotations

from alembic import context
from sqlalchemy.engine import Connection


def run_migrations_online() -> None:
    connection = context.config.attributes["connection"]
    if not isinstance(connection, Connection):
        raise TypeError("state migrations run only through state.db.open_state (no connection was given)")
    context.configure(connection=connection, transaction_per_migration=True, render_as_batch=True)
    context.run_migrations()


run_migrations_online()
