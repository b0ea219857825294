"""Serving the emulator over real HTTP: the ``bridge emulate`` command and a background server for tests.

``bridge emulate`` listens on loopback unless told otherwise, prints the base URLs and the credentials it
generated (the emulator's own test credentials: printing them is its purpose), serves until SIGINT or SIGTERM,
and exits 0. Credentials an operator chooses come from the environment or from files, never from option
values (which any user of the machine can read in ``ps``), and are not printed. Its control API mints tokens
for any workspace, so listening on any other address needs ``--allow-remote``, and then the control API
needs its own token. ``--workspaces N`` serves N tenants (``bridge.emulator.control.tenants``) whose keys and tokens
are generated and written, with a manifest, beside ``--write-manifest`` (``bridge.emulator.control.manifest``), not
printed. ``BackgroundServer`` runs the same app under uvicorn in a thread on a loopback port for the
over-the-wire tests.
"""

from __future__ import annotations

import gc
import ipaddress
import math
import os
import secrets
import socket
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from types import FrameType, TracebackType
from typing import get_args

import click
import uvicorn
from fastapi import FastAPI

from bridge.emulator.app import create_app
from bridge.emulator.control.envfile import write_env_file
from bridge.emulator.control.faults import FaultPlan, RateLimitPlan, parse_fault_option
from bridge.emulator.control.manifest import KEY_SUFFIX, TOKEN_SUFFIX, fleet_only, remove_manifest, write_manifest
from bridge.emulator.control.persist import Keeper, SaveAfterWrites, Seeding, rehearsal_notes, rehearsal_options
from bridge.emulator.control.state import EmulatorState
from bridge.emulator.control.tenants import Tenant
from bridge.emulator.core.seed import Size
from bridge.emulator.core.store import Service
from bridge.emulator.v1.auth import MIN_TOKEN_LENGTH, TOKEN_CHARS
from bridge.emulator.v1.webhooks import Origin, format_origin, parse_target

STARTUP_TIMEOUT_S = 10.0
# Collections of the middle generation between two full ones (Python's default is 10); see keep_out_of_collections.
GENERATION2_THRESHOLD = 100
# New container objects between two collections of the young generation (Python's default is 700).
YOUNG_THRESHOLD = 10_000


def server_config(app: FastAPI) -> uvicorn.Config:
    """How the app is served: warnings only, no lifespan, and no access log (uvicorn put each request's line
    together before its logger, set to warnings, dropped it). No proxy stands in front of the emulator, so
    uvicorn does not look for one's forwarding headers in every request (a layer around every request)."""
    return uvicorn.Config(
        app, log_level="warning", access_log=False, lifespan="off", timeout_graceful_shutdown=2, proxy_headers=False
    )


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
        self.server = uvicorn.Server(server_config(app))
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


@dataclass(frozen=True, slots=True)
class Supplied:
    """A secret the operator chose, and where it came from (named in messages instead of the value)."""

    value: str
    source: str


LEGACY_KEY_ENV = "EMULATOR_LEGACY_KEY"
TOKEN_ENV = "EMULATOR_TOKEN"  # noqa: S105 - the name of a variable, not a secret
CONTROL_TOKEN_ENV = "EMULATOR_CONTROL_TOKEN"  # noqa: S105 - the name of a variable, not a secret
SECRET_FILE = click.Path(exists=True, dir_okay=False, path_type=Path)


class NonNegative(click.ParamType[float, object]):
    """A finite number, 0 or more (click's FloatRange lets NaN and infinity through: an endless latency)."""

    name = "number"

    def convert(self, value: object, param: click.Parameter | None, ctx: click.Context | None) -> float:
        try:
            number = float(str(value))
        except ValueError:
            self.fail(f"{value!r} is not a number", param, ctx)
        if not math.isfinite(number) or number < 0:
            self.fail(f"{value!r} is not a finite number of 0 or more", param, ctx)
        return number


def supplied(path: Path | None, option: str, env_name: str) -> Supplied | None:
    """The secret in the file ``option`` names, else in ``env_name``, else None (generate one). An option beats
    the environment, so a stale exported value never overrides a file named on purpose."""
    if path is not None:
        try:
            value, source = path.read_text(encoding="utf-8-sig").strip(), f"{option} {path}"
        except UnicodeDecodeError:
            raise click.BadParameter(f"{path} is not UTF-8 text", param_hint=option) from None
        except OSError as exc:
            raise click.BadParameter(f"cannot read {path}: {exc.strerror}", param_hint=option) from None
    elif env_name in os.environ:
        value, source = os.environ[env_name].strip(), env_name
    else:
        return None
    if not value:
        raise click.UsageError(f"{source} is empty: put the secret in it, or leave it out to have one generated")
    return Supplied(value, source)


def checked_token(secret: Supplied | None, what: str) -> Supplied | None:
    """A bearer token the service could have issued: long enough, of RFC 6750 token characters only."""
    if secret is not None and (len(secret.value) < MIN_TOKEN_LENGTH or not TOKEN_CHARS.issuperset(secret.value)):
        raise click.UsageError(
            f"the {what} from {secret.source} is not a usable bearer token: use at least {MIN_TOKEN_LENGTH} "
            "letters, digits or - . _ ~ + / = (or leave it out to have one generated)"
        )
    return secret


def checked_key(secret: Supplied | None) -> Supplied | None:
    """A legacy key that fits in an X-API-Key header: visible ASCII, no spaces."""
    if secret is not None and not all("!" <= char <= "~" for char in secret.value):
        raise click.UsageError(
            f"the legacy key from {secret.source} holds spaces, control or non-ASCII characters: an X-API-Key "
            "is one word of visible ASCII (or leave it out to have one generated)"
        )
    return secret


def is_loopback(host: str) -> bool:
    """Whether only this machine can reach ``host`` (``localhost`` or a loopback address; no DNS lookup)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def banner(
    base_url: str,
    tenants: tuple[Tenant, ...],
    *,
    shown: tuple[str | None, str | None] = (None, None),
    control: str = "open to this machine only (loopback)",
    targets: frozenset[Origin] = frozenset(),
    manifest: Path | None = None,
    notes: tuple[str, ...] = (),
) -> str:
    """What ``bridge emulate`` prints: where each surface is and how to authenticate. ``shown`` names where a
    chosen legacy key and token came from: those are not printed, a generated one is, for one workspace; a
    fleet's are only named by the files beside ``manifest`` that hold them."""
    first, last = tenants[0], tenants[-1]
    if len(tenants) > 1 and manifest is not None:
        folder = manifest.parent
        key, token = f"<in {folder / ('ws-NN' + KEY_SUFFIX)}>", f"<in {folder / ('ws-NN' + TOKEN_SUFFIX)}>"
        sources = f"workspaces: {first.source} .. {last.source}"
        v1_targets = f"workspaces: {first.target} .. {last.target}"
    else:
        key_source, token_source = shown
        key = f"<from {key_source}>" if key_source else first.credentials.legacy_key
        token = f"<from {token_source}>" if token_source else first.credentials.token
        sources, v1_targets = f"workspace: {first.source}", f"workspace: {first.target}"
    webhooks = ", ".join(sorted(format_origin(origin) for origin in targets)) or "nowhere (see --webhook-target)"
    listed = f"fleet    {len(tenants)} workspace(s), {first.name} .. {last.name}: {manifest} (removed at stop)"
    fleet = [listed] if manifest else []
    return "\n".join(
        [
            f"legacy   {base_url}/api/v1    X-API-Key: {key}   ({sources})",
            f"v1       {base_url}/v1        Authorization: Bearer {token}   ({v1_targets})",
            f"control  {base_url}/_emulator   {control}",
            f"webhooks delivered to {webhooks}",
            *fleet,
            *notes,
            "Ctrl-C (SIGINT) or SIGTERM stops the emulator.",
        ]
    )


def control_access(allow_remote: bool, chosen: Supplied | None) -> tuple[str | None, str]:
    """The control token (None: the control API is open) and how the banner describes access to it."""
    if chosen is not None:
        return chosen.value, f"Authorization: Bearer <from {chosen.source}>"
    if not allow_remote:
        return None, "open to this machine only (loopback)"
    token = "ctl_" + secrets.token_urlsafe(24)
    return token, f"Authorization: Bearer {token}   (the control token, shown once)"


def listening_socket(host: str, port: int) -> socket.socket:
    """A socket bound and listening on (host, port), or a usage error naming the address and what to change."""
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # see BackgroundServer
    try:
        sock.bind((host, port))
        # Listen before printing the URLs: a client that reads the banner may connect at once (the kernel queues it).
        sock.listen(128)
    except OSError as exc:
        sock.close()
        reason = exc.strerror or str(exc)
        raise click.UsageError(
            f"cannot listen on {host} port {port}: {reason}; choose another --port (0 picks a free one) or --host"
        ) from None
    return sock


def per_target_limit(rate: float | None) -> RateLimitPlan | None:
    """The fault plan's token bucket for ``--rate-limit``: ``rate`` v1 requests per second per target workspace,
    bursts of as many (at least one)."""
    if not rate:
        return None
    return RateLimitPlan(capacity=max(1, math.floor(rate)), refill_per_s=rate, route="/v1/*")


def work_out_totals(service: Service) -> None:
    """Work out every seeded project's totals before serving, as the first budget read of each project would
    in the middle of a migration: 0.27 s of CPU on `medium` (2.7 s on `large`) that no longer competes with the
    migration's own. The same totals: they are kept per project version, so a project changed later has
    its totals worked out again at its next read, as before."""
    for workspace in service.workspaces.values():
        for project in workspace.projects.values():
            service.totals(workspace, project)


def keep_out_of_collections(state: EmulatorState) -> None:
    """Exempt the seeded workspaces from the cyclic garbage collector, which otherwise walks all of them
    (200,000 objects on `medium`) each time enough new objects have survived: 0.8 s of the 12 s CPU a
    `medium` migration cost the emulator. A reset makes a new seed: the old one is released (unfrozen and
    collected) and the new one exempted in its place.

    The full collections left walk only what requests made, but come more often: Python starts one when the
    objects that survived since the last one reach a quarter of the long-lived ones, which no longer count the
    seed. Ten times fewer (GENERATION2_THRESHOLD) took the collector from 0.9 s to 0.5 s of such a run.

    The young generation is collected every YOUNG_THRESHOLD new objects rather than every 700: an answer of
    hundreds of kilobytes is tens of thousands of dicts alive until it is written, which every young collection
    walked again; the collector's share of the CPU a medium migration costs went from about a tenth to a
    hundredth, and the cyclic garbage left waiting is at most that many objects."""

    def refreeze(_: object) -> None:
        gc.unfreeze()
        gc.collect()
        gc.freeze()

    gc.collect()
    gc.freeze()
    _, middle, _ = gc.get_threshold()
    gc.set_threshold(YOUNG_THRESHOLD, middle, GENERATION2_THRESHOLD)
    state.on_reset.append(refreeze)


@click.command("emulate")
@click.option("--host", default="127.0.0.1", show_default=True, help="Interface to listen on (loopback by default).")
@click.option(
    "--allow-remote",
    is_flag=True,
    help="Allow a --host other machines can reach; the control API then needs its own token (printed at start, "
    f"or from {CONTROL_TOKEN_ENV} / --control-token-file).",
)
@click.option("--port", default=8765, show_default=True, type=int, help="Port to listen on (0 = any free port).")
@click.option("--seed", default=42, show_default=True, type=int, help="Seed of the generated source workspace.")
@click.option(
    "--workspaces",
    default=1,
    show_default=True,
    type=click.IntRange(1, 999),
    help="Tenants to serve: N source workspaces (seeds --seed, --seed+1, ...) and N targets, each pair with its own "
    "key and token; beyond 1 they are written beside --write-manifest, not printed.",
)
@click.option(
    "--write-manifest",
    "manifest",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Once listening, write a TOML manifest of the workspaces here (mode 0600) and each key and token in a "
    "0600 file beside it (ws-01.legacy-key, ws-01.token, ...).",
)
@click.option("--size", default="small", show_default=True, type=click.Choice(get_args(Size)), help="Workspace size.")
@click.option("--dirty", is_flag=True, help="Add the catalogue of bad source records (for quarantine tests).")
@click.option(
    "--hostile",
    is_flag=True,
    help="With --dirty, also serve values the published description forbids (text or NaN where numbers belong).",
)
@click.option("--target-library", is_flag=True, help="Give the target workspace library items named like the source's.")
@click.option(
    "--legacy-key-file",
    type=SECRET_FILE,
    help=f"File holding the legacy X-API-Key to accept (else {LEGACY_KEY_ENV}, else one is generated).",
)
@click.option(
    "--token-file",
    type=SECRET_FILE,
    help=f"File holding the v1 bearer token of the target workspace (else {TOKEN_ENV}, else one is generated).",
)
@click.option(
    "--control-token-file",
    type=SECRET_FILE,
    help=f"File holding the control API's token (else {CONTROL_TOKEN_ENV}); given, the control API needs it.",
)
@click.option(
    "--webhook-target",
    "webhook_targets",
    multiple=True,
    help="Origin that may receive webhook deliveries, like http://127.0.0.1:9000; repeatable (default: none).",
)
@click.option(
    "--legacy-rate-limit", default=None, type=NonNegative(), help="Legacy requests per second per key (A02; 0: none)."
)
@click.option(
    "--rate-limit",
    default=None,
    type=NonNegative(),
    help="v1 requests per second per target workspace, bursts of the same size; beyond it 429 (0: none).",
)
@click.option("--latency-ms", default=0.0, type=NonNegative(), help="Added latency on every v1 request.")
@click.option("--legacy-latency-ms", default=0.0, type=NonNegative(), help="Added latency on every legacy request.")
@click.option("--fault-seed", default=0, type=int, help="Seed of the fault plan's random choices.")
@click.option(
    "--fault", "faults", multiple=True, help="KIND:RATE[:ROUTE], repeatable (see bridge.emulator.control.faults)."
)
@click.option(
    "--capture",
    type=click.Path(path_type=Path, dir_okay=False),
    envvar="EMULATOR_CAPTURE",
    help="Append every request and response to this JSON-lines file (no credentials), for `python -m conformance`.",
)
@rehearsal_options
def emulate_command(  # noqa: PLR0917 - click passes every option positionally by name
    host: str,
    allow_remote: bool,
    port: int,
    seed: int,
    workspaces: int,
    manifest: Path | None,
    size: Size,
    dirty: bool,
    hostile: bool,
    target_library: bool,
    legacy_key_file: Path | None,
    token_file: Path | None,
    control_token_file: Path | None,
    webhook_targets: tuple[str, ...],
    legacy_rate_limit: float | None,
    rate_limit: float | None,
    latency_ms: float,
    legacy_latency_ms: float,
    fault_seed: int,
    faults: tuple[str, ...],
    capture: Path | None,
    env_file: Path | None,
    state_dir: Path | None,
) -> None:
    """Serve the emulated service (legacy /api/v1, v1 /v1, control /_emulator) until stopped."""
    if not allow_remote and not is_loopback(host):
        raise click.UsageError(
            f"--host {host} is not a loopback address, and the emulator's control API mints tokens for any "
            "workspace: add --allow-remote to listen there (the control API then needs its own token)"
        )
    legacy_key = checked_key(supplied(legacy_key_file, "--legacy-key-file", LEGACY_KEY_ENV))
    token = checked_token(supplied(token_file, "--token-file", TOKEN_ENV), "v1 token")
    if workspaces > 1:
        fleet_only(manifest, [chosen.source for chosen in (legacy_key, token) if chosen], env_file or state_dir)
    chosen = supplied(control_token_file, "--control-token-file", CONTROL_TOKEN_ENV)
    control_token, control_line = control_access(allow_remote, checked_token(chosen, "control token"))
    try:
        targets = frozenset(parse_target(target) for target in webhook_targets)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--webhook-target") from None
    try:
        rules = [parse_fault_option(option) for option in faults]
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--fault") from exc
    keeper = Keeper(state_dir) if state_dir else None
    key_value, token_value = (secret.value if secret else None for secret in (legacy_key, token))
    wanted = Seeding(seed, size, dirty, hostile, target_library), key_value, token_value
    seeding, chosen_key, chosen_token = keeper.kept_or(*wanted) if keeper else wanted
    app = create_app(
        keeper.saved.service if keeper and keeper.saved else None,
        seed=seeding.seed,
        size=seeding.size,
        dirty=seeding.dirty,
        hostile=seeding.hostile,
        target_library=seeding.target_library,
        legacy_key=chosen_key,
        token=chosen_token,
        legacy_rate_limit=legacy_rate_limit,
        capture=capture,
        control_token=control_token,
        workspaces=workspaces,
    )
    limit = per_target_limit(rate_limit)
    state: EmulatorState = app.state.emulator
    plan = FaultPlan(
        seed=fault_seed, latency_ms=latency_ms, legacy_latency_ms=legacy_latency_ms, rules=rules, rate_limit=limit
    )
    state.faults.set_plan(plan)
    state.webhooks.targets = targets
    if keeper is not None:
        keeper.attach(state, seeding)
        app.add_middleware(SaveAfterWrites, keeper=keeper)
    sock = listening_socket(host, port)
    bound_host, bound_port = sock.getsockname()[:2]
    base_url = f"http://[{bound_host}]:{bound_port}" if ":" in bound_host else f"http://{bound_host}:{bound_port}"
    try:  # only now: the manifest and the exports name the port actually bound (--port 0 included)
        if manifest is not None:
            write_manifest(manifest, state.tenants, base_url)
        if env_file is not None:
            write_env_file(env_file, state.tenants[0], base_url)
    except BaseException:
        sock.close()
        raise
    shown = (legacy_key.source if legacy_key else None, token.source if token else None)
    notes = rehearsal_notes(keeper, env_file)
    click.echo(
        banner(
            base_url, state.tenants, shown=shown, control=control_line, targets=targets, manifest=manifest, notes=notes
        )
    )
    # Only now that it serves: a refused option or port leaves the process as it was. The totals first, so that
    # they are kept out of collections with the seed; a reset's new seed gets its own.
    work_out_totals(state.service)
    state.on_reset.append(work_out_totals)
    keep_out_of_collections(state)
    # uvicorn installs SIGINT/SIGTERM handlers in the main thread and returns after a graceful shutdown.
    server = GracefulServer(server_config(app))
    try:
        server.run(sockets=[sock])
    finally:
        if manifest is not None:  # it names a port nobody listens on any more: no one must read it
            remove_manifest(manifest, state.tenants)
        if keeper is not None:
            keeper.close()
    click.echo("emulator stopped")
