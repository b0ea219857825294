"""A certificate that does not verify, or a host that does not resolve, is a configuration error (exit 2)
naming the URL setting, met once: no retry can fix a setting, and calling it an outage sends the operator to
wait instead of to fix it.

The TLS server is real: a loopback listener with a self-signed certificate made by the ``openssl`` command,
so the failure comes from the ssl module exactly as it would in front of a misconfigured host.
"""

from __future__ import annotations

import shutil
import socket
import ssl
import subprocess
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner

from bridge.cli import cli, exit_code
from bridge.clients.http import Call, HttpSession, make_endpoint
from bridge.clients.legacy import open_legacy
from bridge.config import Secret
from bridge.errors import ConfigError
from tests.clients.fakes import FakeClock, controls_for


@dataclass
class TlsServer:
    """A loopback TLS listener; ``handshakes`` counts the connections the client opened."""

    port: int
    handshakes: int = 0


def _self_signed(folder: Path) -> tuple[Path, Path]:
    if shutil.which("openssl") is None:
        pytest.skip("the openssl command is not installed")
    cert, key = folder / "cert.pem", folder / "key.pem"
    subject = ["-subj", "/CN=127.0.0.1", "-keyout", str(key), "-out", str(cert)]
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", *subject],
        check=True,
        capture_output=True,
    )
    return cert, key


@pytest.fixture
def tls_server(tmp_path: Path) -> Iterator[TlsServer]:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(*_self_signed(tmp_path))
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.05)
    server = TlsServer(listener.getsockname()[1])
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                connection, _ = listener.accept()
            except TimeoutError:
                continue
            server.handshakes += 1
            connection.settimeout(5)
            try:
                context.wrap_socket(connection, server_side=True).close()
            except (ssl.SSLError, OSError):
                connection.close()  # the client refused the certificate: the point of the test

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        stop.set()
        thread.join()
        listener.close()


def test_a_v1_certificate_that_does_not_verify_stops_plan_with_exit_2_naming_v1_url(
    tls_server: TlsServer, tmp_path: Path
) -> None:
    """`bridge plan` against a self-signed v1 host: exit 2 at once, naming v1_url and the certificate, after one
    connection (not 8 tries reported as a failure in transit), and no traceback. The legacy surface listens
    and never answers, so the v1 host is the one found wrong (a legacy address refused would be named first)."""
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen()
    env = {
        "BRIDGE_LEGACY_URL": f"http://127.0.0.1:{silent.getsockname()[1]}/api/v1",
        "BRIDGE_V1_URL": f"https://127.0.0.1:{tls_server.port}/v1",
        "BRIDGE_LEGACY_KEY": "legacy-key-for-tls-tests",
        "BRIDGE_V1_TOKEN": "tok_token-for-tls-tests",
        "BRIDGE_STATE": str(tmp_path / "state.db"),
    }
    with silent:
        result = CliRunner().invoke(cli, ["plan"], env=env, catch_exceptions=False)
    assert result.exit_code == 2, result.output
    assert "v1_url (BRIDGE_V1_URL)" in result.output
    assert "certificate" in result.output
    assert "in transit" not in result.output
    assert "Traceback" not in result.output
    assert tls_server.handshakes == 1


@pytest.mark.anyio
async def test_a_legacy_certificate_that_does_not_verify_names_legacy_url_and_is_not_retried(
    tls_server: TlsServer,
) -> None:
    """The legacy surface alike: a ConfigError naming legacy_url after a single connection, no retry spent."""
    controls = controls_for(FakeClock())
    url = f"https://127.0.0.1:{tls_server.port}/api/v1"
    async with open_legacy(url, Secret("legacy-key-for-tls-tests"), controls) as legacy:
        with pytest.raises(ConfigError) as refused:
            await legacy.contacts()
    assert exit_code(refused.value) == 2
    assert "legacy_url (BRIDGE_LEGACY_URL)" in str(refused.value)
    assert tls_server.handshakes == 1
    assert controls.budget.retries == 0


@pytest.mark.anyio
@pytest.mark.parametrize("surface", ["legacy", "v1"])
async def test_a_host_that_does_not_resolve_names_its_setting_and_is_not_retried(surface: str) -> None:
    """A mistyped host (the reserved .invalid domain never resolves) is a ConfigError naming the surface's URL
    setting at the first try, with no retry spent and no wait."""
    clock = FakeClock()
    controls = controls_for(clock)
    client = make_endpoint(f"http://bridge-transport-test.invalid/{surface}", {})
    async with HttpSession(client, "legacy" if surface == "legacy" else "v1", controls) as session:
        with pytest.raises(ConfigError) as refused:
            await session.send(Call("GET", "/me"))
    assert exit_code(refused.value) == 2
    assert f"{surface}_url (BRIDGE_{surface.upper()}_URL)" in str(refused.value)
    assert "does not resolve" in str(refused.value)
    assert controls.budget.retries == 0
    assert clock.sleeps == []
