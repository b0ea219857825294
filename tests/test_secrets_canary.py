"""A canary key and token driven through every client path, failures and DEBUG included, never surface anywhere.

The scan covers captured logs (console and JSON file), stdout/stderr, exception text and tracebacks, in raw,
base64, URL-encoded and hex forms.
"""

from __future__ import annotations

import base64
import io
import logging
import random
import traceback
from collections.abc import Callable, Iterator
from datetime import date
from pathlib import Path
from urllib.parse import quote, quote_plus

import click
import httpx
import pytest
import respx
import structlog
from fastapi import FastAPI

from bridge import cli
from bridge.clients.legacy import open_legacy
from bridge.clients.retry import RetryPolicy
from bridge.clients.v1 import open_v1
from bridge.config import ENV_LEGACY_KEY, ENV_TOKEN, Secret, load_settings
from bridge.errors import AuthenticationLost, BridgeError
from bridge.logging import configure_logging
from tests.clients.fakes import FakeClock, controls_for

LEGACY_BASE = "https://old.test/api/v1"


def forms(value: str) -> list[str]:
    raw = value.encode()
    return [
        value,
        base64.b64encode(raw).decode().rstrip("="),
        base64.urlsafe_b64encode(raw).decode().rstrip("="),
        quote(value, safe=""),
        quote_plus(value),
        raw.hex(),
    ]


@pytest.fixture
def sinks(tmp_path: Path) -> Iterator[tuple[io.StringIO, Path]]:
    """Logging at DEBUG into a console buffer and a JSON file; restored afterwards."""
    console, log_file = io.StringIO(), tmp_path / "run.jsonl"
    root = logging.getLogger()
    level = root.level
    configure_logging("DEBUG", log_file=log_file, console=console)
    yield console, log_file
    configure_logging(console=io.StringIO())
    for handler in [h for h in root.handlers if isinstance(h.formatter, structlog.stdlib.ProcessorFormatter)]:
        root.removeHandler(handler)
        handler.close()
    root.setLevel(level)
    structlog.reset_defaults()


def exception_texts(exc: BaseException) -> list[str]:
    return [str(exc), repr(exc), "".join(traceback.format_exception(exc))]


@pytest.mark.anyio
async def test_canary_secrets_never_leak_from_any_client_path(
    *,
    sinks: tuple[io.StringIO, Path],
    v1_app: FastAPI,
    issue_token: Callable[..., str],
    control_client: httpx.AsyncClient,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Successes, retries, auth failures, transport errors and the CLI's error exit all keep both secrets hidden."""
    console, log_file = sinks
    token = Secret(issue_token())
    key = Secret("lk_canary_KEY_0123456789+/=xyz")
    monkeypatch.setenv(ENV_LEGACY_KEY, key.reveal())
    monkeypatch.setenv(ENV_TOKEN, token.reveal())
    settings = load_settings()
    texts: list[str] = [repr(settings), str(settings)]
    controls = controls_for(FakeClock(), policy=RetryPolicy(max_attempts=3, rng=random.Random(1)))

    transport = httpx.ASGITransport(app=v1_app)
    async with open_v1("http://emulator/v1", token, controls, transport=transport) as v1:
        await v1.me()
        project = await v1.send_write("projects_create", (), {"name": "Canary"}, "project-canary-0123456789")
        assert isinstance(project, dict)
        for kind in ("rate_limit", "error_500", "reset", "commit_then_drop"):
            await control_client.post("/faults", json={"seed": 2, "rules": [{"kind": kind, "rate": 1.0}]})
            try:
                lines = {"lines": [{"description": kind}]}
                await v1.send_write("budget_createLinesBulk", (project["id"],), lines, f"line-canary-{kind}-0123456789")
            except BridgeError as exc:
                texts += exception_texts(exc)
        await control_client.post("/faults", json={"rules": []})
        await control_client.delete(f"/tokens/{token.reveal()}")
        with pytest.raises(AuthenticationLost) as revoked:
            await v1.me()
        texts += exception_texts(revoked.value)

    async with respx.mock(using="bridge") as router:
        router.get(f"{LEGACY_BASE}/contacts").mock(
            side_effect=[
                httpx.Response(200, json={"contacts": [{"id": "c1"}]}),
                httpx.Response(401, json={"error": f"key {key.reveal()} is invalid"}),
                httpx.ConnectError(f"refused for {key.reveal()}"),
                httpx.ConnectError("refused"),
                httpx.ConnectError("refused"),
            ]
        )
        router.get(f"{LEGACY_BASE}/projects/p1/actuals").mock(return_value=httpx.Response(500, json={}))
        async with open_legacy(LEGACY_BASE, key, controls) as legacy:
            await legacy.contacts()
            for _ in range(2):
                try:
                    await legacy.contacts()
                except BridgeError as exc:
                    texts += exception_texts(exc)
            _, rows = legacy.actuals("p1", date(2025, 1, 1), date(2025, 1, 31))
            try:
                _ = [row async for row in rows]
            except BridgeError as exc:
                texts += exception_texts(exc)

    def leaking() -> None:
        raise AuthenticationLost(f"simulated leak of {token.reveal()}")

    cli.cli.add_command(click.Command("leak", callback=leaking))
    try:
        with pytest.raises(SystemExit) as exit_info:
            cli.cli.main(["leak"])
    finally:
        cli.cli.commands.pop("leak")
    assert exit_info.value.code == 5

    captured = capsys.readouterr()
    texts += [console.getvalue(), log_file.read_text(), captured.out, captured.err]
    assert "bridge.http.retry" in console.getvalue()  # the failures really were logged
    for secret in (token, key):
        for form in forms(secret.reveal()):
            hits = [text for text in texts if form in text]
            assert hits == [], f"a form of a secret leaked into {len(hits)} captured outputs"
