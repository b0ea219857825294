"""The emulator on a loopback port: the one way the tests serve it over real HTTP.

``serving(app)`` runs the app under uvicorn in a thread (the emulator's own ``BackgroundServer``) for as long
as the ``with`` block lasts. The over-the-wire tests of the clients and of both surfaces, the CLI driven with
``CliRunner`` or in a subprocess, and the forked runs (``tests.support.forked``) all go through it;
``World.served`` and the ``served`` fixture are built on it.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator

from fastapi import FastAPI

from bridge.emulator.control.serving import BackgroundServer


@contextlib.contextmanager
def serving(app: FastAPI) -> Iterator[str]:
    """``app`` on an ephemeral loopback port, stopped on leaving; its base URL.

    A forked run killed mid-request leaves a request half read, and uvicorn logs the ClientDisconnect from its
    thread: a fork at that instant would copy the held stderr lock into the next child, which then hangs on its
    first write. The server's error log is therefore off while the app is served.
    """
    server_log = logging.getLogger("uvicorn.error")
    was_disabled = server_log.disabled
    with BackgroundServer(app) as base_url:
        server_log.disabled = True
        try:
            yield base_url
        finally:
            server_log.disabled = was_disabled
