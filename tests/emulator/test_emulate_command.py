"""`bridge emulate` as an operator meets it: credentials from the environment or files (never option values, which
``ps`` shows), loopback unless told otherwise, a control token beyond it, webhook targets named up front.

Each mistake exits 2 with a message naming the option or variable and what to do, never a traceback and never
the secret itself.
"""

from __future__ import annotations

import gc
import os
import re
import signal
import socket
import subprocess
import sys
import time
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner

from bridge.cli import cli
from bridge.emulator.app import create_app
from bridge.emulator.control.serving import keep_out_of_collections, work_out_totals
from bridge.emulator.core import store

SECRET = "chosen-secret-0123456789"
CREDENTIAL_VARIABLES = ("EMULATOR_LEGACY_KEY", "EMULATOR_TOKEN", "EMULATOR_CONTROL_TOKEN")
BRIDGE = str(Path(sys.executable).parent / "bridge")


def _emulate(*args: str, **env: str) -> tuple[int, str]:
    """``bridge emulate ARGS`` in process with only ``env`` of the emulator's variables set."""
    variables: dict[str, str | None] = dict.fromkeys(CREDENTIAL_VARIABLES)
    result = CliRunner().invoke(cli, ["emulate", *args], env={**variables, **env}, catch_exceptions=False)
    assert "Traceback" not in result.output
    return result.exit_code, result.output


def _file(tmp_path: Path, content: bytes) -> str:
    path = tmp_path / "secret"
    path.write_bytes(content)
    return str(path)


@pytest.mark.parametrize(("option", "suggested"), [("--legacy-key", "--legacy-key-file"), ("--token", "--token-file")])
def test_a_credential_as_an_option_value_is_refused(option: str, suggested: str) -> None:
    """The old value options are gone: click names the file option instead."""
    code, output = _emulate(option, SECRET)
    assert code == 2
    assert f"No such option '{option}'" in output
    assert suggested in output


@pytest.mark.parametrize("host", ["0.0.0.0", "192.0.2.10", "emulator.example.com"])  # noqa: S104 - the refused case
def test_a_non_loopback_host_needs_allow_remote(host: str) -> None:
    """Listening where other machines can reach the control API needs the explicit flag."""
    code, output = _emulate("--host", host, "--port", "0")
    assert code == 2
    assert f"--host {host} is not a loopback address" in output
    assert "--allow-remote" in output


@pytest.mark.parametrize(
    ("variable", "value", "named"),
    [
        ("EMULATOR_TOKEN", "short-secret", "v1 token from EMULATOR_TOKEN is not a usable bearer token"),
        ("EMULATOR_TOKEN", SECRET + " x", "v1 token from EMULATOR_TOKEN is not a usable bearer token"),
        ("EMULATOR_CONTROL_TOKEN", "tiny", "control token from EMULATOR_CONTROL_TOKEN is not a usable bearer"),
        ("EMULATOR_LEGACY_KEY", "two words", "legacy key from EMULATOR_LEGACY_KEY holds spaces"),
    ],
)
def test_an_unusable_credential_in_the_environment_is_named_not_shown(variable: str, value: str, named: str) -> None:
    """An empty, short or spaced secret stops the start with the variable's name, not its value."""
    code, output = _emulate("--port", "0", **{variable: value})
    assert code == 2
    assert named in output
    assert value.strip() not in output


def test_an_empty_variable_is_named() -> None:
    """A variable set to blanks is not taken as "generate one": the operator meant to choose."""
    code, output = _emulate("--port", "0", EMULATOR_TOKEN="   ")
    assert code == 2
    assert "EMULATOR_TOKEN is empty" in output


@pytest.mark.parametrize(
    ("option", "content", "named"),
    [
        ("--token-file", b"\n", "is empty"),
        ("--token-file", b"abc\n", "is not a usable bearer token"),
        ("--legacy-key-file", b"\xff\xfe key", "is not UTF-8 text"),
        ("--legacy-key-file", b"key\nsecond-line\n", "holds spaces, control or non-ASCII characters"),
        ("--control-token-file", b"\t\n", "is empty"),
    ],
)
def test_an_unusable_credential_file_is_named(tmp_path: Path, option: str, content: bytes, named: str) -> None:
    """A file that holds no usable secret is refused naming the option and the file."""
    path = _file(tmp_path, content)
    code, output = _emulate(option, path, "--port", "0")
    assert code == 2
    assert named in output
    assert path in output.replace("\n", "")


@pytest.mark.parametrize("option", ["--legacy-key-file", "--token-file", "--control-token-file"])
def test_a_missing_credential_file_or_a_folder_is_refused(tmp_path: Path, option: str) -> None:
    """click names the option and says the file does not exist, or is a directory."""
    assert _emulate(option, str(tmp_path / "absent"), "--port", "0")[1].count("does not exist") == 1
    code, output = _emulate(option, str(tmp_path), "--port", "0")
    assert code == 2
    assert option in output
    assert "is a directory" in output


@pytest.mark.parametrize("target", ["http://127.0.0.1:9000/hook", "127.0.0.1:9000", "http://user:pw@127.0.0.1:1"])
def test_a_webhook_target_must_be_an_origin(target: str) -> None:
    """Only scheme, host and port: no path, no credentials, no bare host."""
    code, output = _emulate("--webhook-target", target, "--port", "0")
    assert code == 2
    assert "--webhook-target" in output
    assert "is not an origin" in output


@pytest.mark.parametrize(
    ("option", "value"), [("--latency-ms", "nan"), ("--latency-ms", "-1"), ("--legacy-rate-limit", "inf")]
)
def test_a_number_option_must_be_finite_and_not_negative(option: str, value: str) -> None:
    """NaN, an infinity (every request would wait forever) or a negative number is refused up front."""
    code, output = _emulate(option, value, "--port", "0")
    assert code == 2
    assert f"Invalid value for '{option}': '{value}' is not a finite number of 0 or more" in output


def test_a_port_in_use_says_so() -> None:
    """A taken port is a usage error naming the address, not an OSError traceback."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        code, output = _emulate("--port", str(port))
    assert code == 2
    assert f"cannot listen on 127.0.0.1 port {port}" in output
    assert "choose another --port" in output


@contextmanager
def _served(args: list[str], env: dict[str, str]) -> Iterator[tuple[str, str]]:
    """`bridge emulate ARGS --port 0` as a process; yields its base URL (over 127.0.0.1) and its banner."""
    clean = {name: value for name, value in os.environ.items() if name not in CREDENTIAL_VARIABLES}
    command = [BRIDGE, "emulate", *args, "--port", "0"]
    with subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env={**clean, **env}
    ) as process:
        try:
            assert process.stdout is not None
            banner = "".join(process.stdout.readline() for _ in range(5))
            match = re.search(r"http://\S+?:(\d+)/api/v1", banner)
            assert match, banner
            yield f"http://127.0.0.1:{match.group(1)}", banner
        finally:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()


def _when_up(
    method: str, url: str, *, json: dict[str, str] | None = None, headers: dict[str, str] | None = None
) -> httpx.Response:
    """One request once the server accepts connections (bounded wait)."""
    deadline = time.monotonic() + 20
    while True:
        try:
            return httpx.request(method, url, json=json, headers=headers, timeout=5)
        except httpx.TransportError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


@pytest.mark.wire
@pytest.mark.slow
def test_beyond_loopback_the_control_api_needs_the_token_printed_once(tmp_path: Path) -> None:
    """`--host 0.0.0.0 --allow-remote` prints a control token; /_emulator without it is 401, with it 201. The
    key file (with a BOM and a newline) beats a stale exported key, and neither is printed."""
    key_file = _file(tmp_path, b"\xef\xbb\xbf" + SECRET.encode() + b"\n")
    args = ["--host", "0.0.0.0", "--allow-remote", "--legacy-key-file", key_file]  # noqa: S104 - the case under test
    with _served(args, {"EMULATOR_LEGACY_KEY": "stale-key-of-another-workspace"}) as (base, banner):
        assert SECRET not in banner
        assert "stale-key" not in banner
        assert f"<from --legacy-key-file {key_file}>" in banner
        printed = re.search(r"_emulator\s+Authorization: Bearer (\S+)", banner)
        assert printed, banner
        refused = _when_up("POST", f"{base}/_emulator/tokens", json={"workspace": "target"})
        assert refused.status_code == 401
        assert "control token" in refused.json()["detail"]
        control = {"Authorization": f"Bearer {printed.group(1)}"}
        minted = _when_up("POST", f"{base}/_emulator/tokens", json={"workspace": "target"}, headers=control)
        assert minted.status_code == 201
        assert _when_up("GET", f"{base}/api/v1/spaces", headers={"X-API-Key": SECRET}).status_code == 200
        stale = {"X-API-Key": "stale-key-of-another-workspace"}
        assert _when_up("GET", f"{base}/api/v1/spaces", headers=stale).status_code == 401


@pytest.mark.wire
@pytest.mark.slow
def test_on_loopback_the_control_api_is_open_and_credentials_come_from_the_environment() -> None:
    """The default listener is loopback with an open control API (what runbooks and the demo use); the v1 token
    from EMULATOR_TOKEN is accepted, and the banner says where webhooks may go."""
    target = "http://127.0.0.1:9000"
    with _served(["--webhook-target", target], {"EMULATOR_TOKEN": SECRET}) as (base, banner):
        assert re.search(r"legacy\s+http://127\.0\.0\.1:\d+/api/v1", banner)
        assert "<from EMULATOR_TOKEN>" in banner
        assert SECRET not in banner
        assert f"webhooks delivered to {target}" in banner
        assert _when_up("GET", f"{base}/_emulator/settings").json()["webhookTargets"] == [target]
        assert _when_up("GET", f"{base}/v1/me", headers={"Authorization": f"Bearer {SECRET}"}).status_code == 200


def test_the_seed_is_kept_out_of_collections_and_a_reset_releases_it() -> None:
    """Served, the seeded workspaces are exempt from the cyclic collector (they live as long as the server); a
    reset's new seed takes their place, and the old one is freed, not kept frozen for the server's life."""
    app = create_app(size="small")
    old = weakref.ref(app.state.emulator.service)
    thresholds = gc.get_threshold()
    try:
        keep_out_of_collections(app.state.emulator)
        assert gc.get_threshold()[2] > thresholds[2]  # full collections: fewer, each walking no seed
        assert gc.get_threshold()[0] > thresholds[0]  # young ones: fewer, each answer's objects walked less often
        assert not _collectable(app.state.emulator.service)
        app.state.emulator.reset()
        assert old() is None
        assert not _collectable(app.state.emulator.service)
        assert not _collectable(next(iter(app.state.emulator.service.workspaces.values())))
    finally:
        gc.unfreeze()
        gc.set_threshold(*thresholds)


def test_seeded_totals_are_worked_out_before_serving_and_again_after_a_change(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Before serving, every seeded project's totals are worked out, so a budget read during a migration works
    none out; a project changed since has its totals worked out again at its next read."""
    app = create_app(size="small")
    service = app.state.emulator.service
    work_out_totals(service)
    worked_out: list[str] = []
    monkeypatch.setattr(store, "compute_totals", lambda project, currency: worked_out.append(project.id))
    projects = [(w, p) for w in service.workspaces.values() for p in w.projects.values()]
    for workspace, project in projects:
        service.totals(workspace, project)
    assert projects
    assert worked_out == []
    workspace, project = projects[0]
    service.touch(project)
    service.totals(workspace, project)
    assert worked_out == [project.id]


def _collectable(value: object) -> bool:
    """Whether the cyclic collector walks ``value`` (a frozen object is in none of its generations)."""
    return any(found is value for found in gc.get_objects())
