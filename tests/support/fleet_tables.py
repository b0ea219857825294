"""What a fleet's database holds, as text: the fleet tests look there for secrets the fleet must not keep."""

from __future__ import annotations

import base64
import binascii
import contextlib

import sqlalchemy as sa


def _unwrapped(value: object) -> str:
    """A value as text, and what it holds once base64-decoded: DBOS stores a workflow's inputs, outputs and
    errors pickled and base64-encoded, so a secret inside them is plain only after decoding."""
    text = repr(value)
    if isinstance(value, str):
        with contextlib.suppress(binascii.Error, ValueError):  # not base64: the text as it is
            text += "\n" + base64.b64decode(value, validate=True).decode("latin-1")
    return text


def text_of_database(url: str) -> str:
    """Every value of every row of the fleet's and DBOS's tables, as text (base64-wrapped values unwrapped)."""
    engine = sa.create_engine(url)
    chunks: list[str] = []
    try:
        with engine.connect() as connection:
            for schema in ("dbos", "bridge_fleet"):
                tables = connection.execute(
                    sa.text("SELECT table_name FROM information_schema.tables WHERE table_schema = :s"), {"s": schema}
                ).scalars()
                for table in list(tables):
                    rows = connection.execute(sa.text(f'SELECT * FROM "{schema}"."{table}"')).all()  # noqa: S608
                    chunks += [_unwrapped(value) for row in rows for value in row]
    finally:
        engine.dispose()
    return "\n".join(chunks)
