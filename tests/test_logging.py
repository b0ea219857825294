"""Logging: dotted event names, JSON lines to a file, a console form, and redaction of every credential."""

from __future__ import annotations

import base64
import io
import json
import logging
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest
import structlog

from bridge.config import Secret
from bridge.logging import configure_logging, redact_text

CANARY = Secret("canary_log_secret_0123456789/+=ABCD")


@pytest.fixture
def restore_logging() -> Iterator[None]:
    """Remove the bridge's handlers and structlog setup after a test configured them."""
    root = logging.getLogger()
    level = root.level
    yield
    configure_logging(console=io.StringIO())
    for handler in [h for h in root.handlers if isinstance(h.formatter, structlog.stdlib.ProcessorFormatter)]:
        root.removeHandler(handler)
        handler.close()
    root.setLevel(level)
    structlog.reset_defaults()


@pytest.mark.usefixtures("restore_logging")
def test_events_go_to_json_file_and_console_with_secrets_masked(tmp_path: Path) -> None:
    """A structlog event reaches both sinks under its dotted name; secret values, nested or not, are masked."""
    console = io.StringIO()
    log_file = tmp_path / "logs" / "run.jsonl"
    configure_logging("DEBUG", log_file=log_file, secrets=[CANARY], console=console)
    structlog.get_logger("bridge.test").info(
        "bridge.step.committed",
        project="p1",
        note=f"sent with {CANARY.reveal()}",
        headers={"Authorization": f"Bearer {CANARY.reveal()}", "Accept": "json"},
        token="anything",
    )
    lines = log_file.read_text().splitlines()
    event = json.loads(lines[-1])
    assert event["event"] == "bridge.step.committed"
    assert event["project"] == "p1"
    assert event["headers"]["Accept"] == "json"
    assert event["token"] == "****"
    assert "bridge.step.committed" in console.getvalue()
    for text in (console.getvalue(), log_file.read_text()):
        assert CANARY.reveal() not in text
    assert log_file.stat().st_mode & 0o777 == 0o600


@pytest.mark.usefixtures("restore_logging")
def test_third_party_debug_records_never_show_credentials() -> None:
    """httpx/httpcore records at DEBUG, with headers in their arguments, print with the key and token masked."""
    console = io.StringIO()
    configure_logging("DEBUG", secrets=[CANARY], console=console)
    logging.getLogger("httpcore.http11").debug("send_request_headers %s", [(b"X-API-Key", CANARY.reveal().encode())])
    logging.getLogger("httpx").debug("request headers: %r", {"authorization": f"Bearer {CANARY.reveal()}"})
    logging.getLogger("httpx").debug("X-API-Key: unregistered-key-value and Bearer other-token-value")
    logging.getLogger("aiohttp.client").debug("headers %r", {"X-API-Key": CANARY.reveal()})
    text = console.getvalue()
    assert CANARY.reveal() not in text
    assert "unregistered-key-value" not in text
    assert "other-token-value" not in text
    assert "send_request_headers" in text
    assert "[aiohttp.client]" in text


@pytest.mark.usefixtures("restore_logging")
def test_httpx_request_lines_show_at_debug_only(tmp_path: Path) -> None:
    """At INFO the log holds the bridge's events, not httpx's line per request (bridge.http.response says it at
    DEBUG); at DEBUG httpx's lines are there too."""
    for level, shown in (("INFO", False), ("DEBUG", True)):
        log_file = tmp_path / f"{level}.jsonl"
        configure_logging(level, log_file=log_file, console=io.StringIO())
        logging.getLogger("httpx").info('HTTP Request: GET http://127.0.0.1/v1/me "HTTP/1.1 200 OK"')
        structlog.get_logger("bridge.engine").info("bridge.run.started")
        events = [json.loads(line)["event"] for line in log_file.read_text().splitlines()]
        assert "bridge.run.started" in events
        assert any(event.startswith("HTTP Request") for event in events) is shown


@pytest.mark.parametrize(
    "form",
    [
        CANARY.reveal(),
        base64.b64encode(CANARY.reveal().encode()).decode(),
        quote(CANARY.reveal(), safe=""),
        CANARY.reveal().encode().hex(),
    ],
    ids=["raw", "base64", "url", "hex"],
)
@pytest.mark.usefixtures("restore_logging")
def test_encoded_forms_of_a_registered_secret_are_masked(form: str) -> None:
    """A secret re-encoded (base64, URL, hex) on its way into a message is still caught."""
    configure_logging("INFO", secrets=[CANARY], console=io.StringIO())
    assert form not in redact_text(f"value={form};")


@pytest.mark.usefixtures("restore_logging")
def test_the_head_of_a_secret_form_left_by_a_cut_is_masked() -> None:
    """A long source value cut before the run's secrets are known leaves a secret's head before the "…": masked."""
    configure_logging("INFO", secrets=[CANARY], console=io.StringIO())
    encoded = base64.b64encode(CANARY.reveal().encode()).decode()
    shown = redact_text(f"description 'padding {encoded[:9]}\u2026' is too long")
    assert encoded[:9] not in shown
    assert "****\u2026" in shown


@pytest.mark.usefixtures("restore_logging")
def test_console_can_show_less_than_the_file(tmp_path: Path) -> None:
    """With console_level=WARNING an INFO event reaches the JSON file but not the terminal."""
    console, log_file = io.StringIO(), tmp_path / "run.jsonl"
    configure_logging("INFO", log_file=log_file, console=console, console_level="WARNING")
    structlog.get_logger("bridge.test").info("bridge.run.progress", done=3)
    assert "bridge.run.progress" in log_file.read_text()
    assert "bridge.run.progress" not in console.getvalue()
