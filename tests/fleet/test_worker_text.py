"""What a fleet worker stores in DBOS and prints is masked and escaped as a single run's log is: a secret the
server echoes (raw, base64 or hex) never reaches `dbos.workflow_status` or the terminal, nor does an escape
sequence or a traceback."""

from __future__ import annotations

import base64
import io
import logging
from collections.abc import Iterator
from pathlib import Path

import pytest
import structlog

from bridge.clients.limiter import AimdLimiter
from bridge.config import Secret
from bridge.errors import ValidationFailed
from bridge.fleet.worker import _through_our_log
from bridge.fleet.workflow import StageStoppedError, WorkerContext, _held_patiently, bind
from bridge.logging import configure_logging, register_secret

TOKEN = "tok_fleet_canary_0123456789abcdef"


def _echo() -> str:
    """What a server that echoes the credential sends back: its base64 and hex forms, and a terminal escape."""
    raw = TOKEN.encode()
    return f"bad header {base64.b64encode(raw).decode()} ({raw.hex()}) \x1b]0;owned\x07\x1b[2J"


@pytest.fixture
def console() -> Iterator[io.StringIO]:
    register_secret(Secret(TOKEN))
    out = io.StringIO()
    configure_logging("INFO", console=out)
    yield out
    configure_logging(console=io.StringIO())
    structlog.reset_defaults()


@pytest.mark.anyio
async def test_a_stopped_steps_message_as_dbos_stores_it_holds_no_secret_and_no_escape(
    console: io.StringIO, tmp_path: Path
) -> None:
    bind(WorkerContext("unused", AimdLimiter.fixed(1), tmp_path, heal_for=0))

    async def work() -> None:
        raise ValidationFailed(_echo(), code="validation")

    with pytest.raises(StageStoppedError) as stopped:
        await _held_patiently(work, "project p1")
    stored = str(stopped.value)
    assert stored.startswith("project p1: ValidationFailed: bad header ")
    for form in (TOKEN, base64.b64encode(TOKEN.encode()).decode(), TOKEN.encode().hex()):
        assert form not in stored
    assert "\x1b" not in stored
    assert "\x07" not in stored


def test_dbos_log_lines_go_through_the_bridges_masking_without_a_traceback(console: io.StringIO) -> None:
    dbos_log = logging.getLogger("dbos")
    dbos_log.addHandler(logging.StreamHandler(io.StringIO()))  # as DBOS installs its own console handler
    dbos_log.propagate = False
    _through_our_log()
    try:
        raise RuntimeError(_echo())
    except RuntimeError:
        dbos_log.exception("Exception encountered in asynchronous workflow")
    printed = console.getvalue()
    assert "Exception encountered in asynchronous workflow" in printed
    for form in (TOKEN, base64.b64encode(TOKEN.encode()).decode(), TOKEN.encode().hex()):
        assert form not in printed
    assert "\x1b" not in printed
    assert "Traceback" not in printed
