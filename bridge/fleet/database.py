"""The fleet's one database: PostgreSQL, named by ``--state`` / BRIDGE_STATE like any run's state.

DBOS's tables (schema ``dbos``), the fleet's (``bridge_fleet``) and every migration's state (a schema each) live
in it, so every worker on every machine that reaches it sees the same queue, journals and crosswalks.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from sqlalchemy import Engine, create_engine
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError, DBAPIError

from bridge.errors import ConfigError
from state.db import resolve_location, storage_error

DRIVER = "postgresql+psycopg"


def fleet_url(state: str) -> URL:
    """The PostgreSQL URL of a fleet (psycopg 3 as its driver), or a ConfigError saying why not."""
    try:
        url = make_url(state) if "://" in state else None
    except ArgumentError:
        url = None
    if url is None or url.get_backend_name() != "postgresql":
        raise ConfigError(
            "a fleet keeps its queue and every workspace's state in one PostgreSQL database, which every worker "
            "reaches: pass --state postgresql://USER@HOST/DB (or set BRIDGE_STATE)"
        )
    return url.set(drivername=DRIVER)


def fleet_engine(url: URL) -> Engine:
    # pre_ping: a worker lives for hours, and a server restart must not cost it its heartbeat.
    return create_engine(url, pool_pre_ping=True, pool_size=2, max_overflow=2)


def secret_url(url: URL) -> str:
    """The URL as DBOS needs it, password included: handed to DBOS only, never printed or logged."""
    return url.render_as_string(hide_password=False)


@contextlib.contextmanager
def reaching(state: str) -> Iterator[None]:
    """A driver's error as the state error an operator acts on (a bad URL: 2; a server away: 3), password
    masked."""
    try:
        yield
    except DBAPIError as exc:
        raise storage_error(exc, resolve_location(state, "fleet")) from None
