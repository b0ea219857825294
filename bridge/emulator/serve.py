"""Serving the emulator over real HTTP: the ``bridge emulate`` command and a background server for tests.

``bridge emulate`` prints the base URLs and the credentials (the emulator's own test credentials: printing
them is its purpose), serves until SIGINT or SIGTERM, and exits 0. ``BackgroundServer`` runs the same app
under uvicorn in a thread on a loopback port for the over-the-wire tests.
"""

from __future__ import annotations

import socket
import threading
import time
from pathlib import Path
from types import FrameType, TracebackType
from typing import get_args

import click
import uvicorn
from fastapi import FastAPI

from bridge.emulator.app import Credentials, create_app
from bridge.emulator.faults import FaultPlan, parse_fault_option
from bridge.emulator.seed import Size

STARTUP_TIMEOUT_S = 10.0


class GracefulServer(uvicorn.Server):
    """A uvicorn server that, stopped by SIGINT or SIGTERM, returns normally so the command exits 0.

    uvicorn re-raises the captured signal after its graceful shutdown (the process would then die of it);
    forgetting the signal once it has asked the server to stop keeps the exit clean.
    """

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        super().handle_exit(sig, frame)
        self._captured_signals.clear()


class BackgroundServer:
    """``with BackgroundServer(app) as base_url:`` serves ``app`` on an ephemeral loopback port."""

    def __init__(self, app: FastAPI, host: str = "127.0.0.1", port: int = 0) -> None:
        self.socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        # Accepted sockets inherit this: without it a response's headers and body (two writes) meet Nagle and
        # the client's delayed ACK, and every request over loopback takes ~40 ms longer.
        self.socket.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.socket.bind((host, port))
        self.host, self.port = self.socket.getsockname()[:2]
        config = uvicorn.Config(app, log_level="warning", lifespan="off", timeout_graceful_shutdown=2)
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.socket]}, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def __enter__(self) -> str:
        self.thread.start()
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"the emulator did not start on {self.base_url} within {STARTUP_TIMEOUT_S} s")
            time.sleep(0.01)
        return self.base_url

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=STARTUP_TIMEOUT_S)
        self.socket.close()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.stop()


def banner(base_url: str, credentials: Credentials) -> str:
    """What ``bridge emulate`` prints: where each surface is and how to authenticate."""
    return "\n".join(
        [
            f"legacy   {base_url}/api/v1    X-API-Key: {credentials.legacy_key}   (workspace: source)",
            f"v1       {base_url}/v1        Authorization: Bearer {credentials.token}   (workspace: target)",
            f"control  {base_url}/_emulator",
            "Ctrl-C (SIGINT) or SIGTERM stops the emulator.",
        ]
    )


@click.command("emulate")
@click.option("--host", default="127.0.0.1", show_default=True, help="Interface to listen on.")
@click.option("--port", default=8765, show_default=True, type=int, help="Port to listen on (0 = any free port).")
@click.option("--seed", default=42, show_default=True, type=int, help="Seed of the generated source workspace.")
@click.option("--size", default="small", show_default=True, type=click.Choice(get_args(Size)), help="Workspace size.")
@click.option("--dirty", is_flag=True, help="Add the catalogue of bad source records (for quarantine tests).")
@click.option(
    "--hostile",
    is_flag=True,
    help="With --dirty, also serve values the published description forbids (text or NaN where numbers belong).",
)
@click.option("--target-library", is_flag=True, help="Give the target workspace library items named like the source's.")
@click.option("--legacy-key", default=None, help="Legacy X-API-Key to accept (generated when omitted).")
@click.option("--token", default=None, help="v1 bearer token for the target workspace (generated when omitted).")
@click.option("--legacy-rate-limit", default=None, type=float, help="Legacy requests per second per key (A02).")
@click.option("--latency-ms", default=0.0, type=float, help="Added latency on every v1 request.")
@click.option("--fault-seed", default=0, type=int, help="Seed of the fault plan's random choices.")
@click.option("--fault", "faults", multiple=True, help="KIND:RATE[:ROUTE], repeatable (see bridge.emulator.faults).")
@click.option(
    "--capture",
    type=click.Path(path_type=Path, dir_okay=False),
    envvar="EMULATOR_CAPTURE",
    help="Append every request and response to this JSON-lines file (no credentials), for `python -m conformance`.",
)
def emulate_command(  # noqa: PLR0917 - click passes every option positionally by name
    host: str,
    port: int,
    seed: int,
    size: Size,
    dirty: bool,
    hostile: bool,
    target_library: bool,
    legacy_key: str | None,
    token: str | None,
    legacy_rate_limit: float | None,
    latency_ms: float,
    fault_seed: int,
    faults: tuple[str, ...],
    capture: Path | None,
) -> None:
    """Serve the emulated service (legacy /api/v1, v1 /v1, control /_emulator) until stopped."""
    app = create_app(
        seed=seed,
        size=size,
        dirty=dirty,
        hostile=hostile,
        target_library=target_library,
        legacy_key=legacy_key,
        token=token,
        legacy_rate_limit=legacy_rate_limit,
        capture=capture,
    )
    try:
        rules = [parse_fault_option(option) for option in faults]
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--fault") from exc
    app.state.v1.faults.set_plan(FaultPlan(seed=fault_seed, latency_ms=latency_ms, rules=rules))
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # see BackgroundServer
    sock.bind((host, port))
    # Listen before printing the URLs: a client that reads the banner may connect at once (the kernel queues it).
    sock.listen(128)
    bound_host, bound_port = sock.getsockname()[:2]
    click.echo(banner(f"http://{bound_host}:{bound_port}", app.state.credentials))
    # uvicorn installs SIGINT/SIGTERM handlers in the main thread and returns after a graceful shutdown.
    server = GracefulServer(uvicorn.Config(app, log_level="warning", lifespan="off", timeout_graceful_shutdown=2))
    server.run(sockets=[sock])
    click.echo("emulator stopped")
