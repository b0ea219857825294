"""`bridge emulate --workspaces N --write-manifest FILE` as the fleet meets it: a TOML manifest naming the real
port, each tenant's key and token in a 0600 file beside it (named relative to the manifest's folder), nothing
secret printed; and the mistakes refused with exit 2 before anything is served."""

from __future__ import annotations

import os
import re
import signal
import stat
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner

from bridge.cli import cli
from bridge.emulator.control.manifest import manifest_text
from bridge.emulator.control.tenants import fleet

BRIDGE = str(Path(sys.executable).parent / "bridge")
CREDENTIAL_VARIABLES = ("EMULATOR_LEGACY_KEY", "EMULATOR_TOKEN", "EMULATOR_CONTROL_TOKEN")
BANNER_LINES = 6


def _emulate(*args: str, **env: str) -> tuple[int, str]:
    """``bridge emulate ARGS`` in process with only ``env`` of the emulator's variables set."""
    variables: dict[str, str | None] = dict.fromkeys(CREDENTIAL_VARIABLES)
    result = CliRunner().invoke(cli, ["emulate", *args], env={**variables, **env}, catch_exceptions=False)
    assert "Traceback" not in result.output
    return result.exit_code, result.output


@contextmanager
def _served(*args: str) -> Iterator[str]:
    """`bridge emulate ARGS --port 0` as a process, stopped after; yields its banner."""
    clean = {name: value for name, value in os.environ.items() if name not in CREDENTIAL_VARIABLES}
    command = [BRIDGE, "emulate", *args, "--port", "0"]
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=clean) as process:
        try:
            assert process.stdout is not None
            yield "".join(process.stdout.readline() for _ in range(BANNER_LINES))
        finally:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()


@pytest.mark.wire
@pytest.mark.slow
def test_the_manifest_names_the_real_port_and_private_files_of_each_tenant(tmp_path: Path) -> None:
    """Three tenants on --port 0: the manifest parses, every file it names is beside it, mode 0600 like the
    manifest, and each key and token reach their own tenant's workspaces at the URLs it gives; the banner
    says where the files are and holds none of the secrets. --rate-limit 1 answers a second /me at once 429.
    Stopped, the emulator leaves none of the files behind."""
    manifest = tmp_path / "fleet" / "fleet.toml"
    manifest.parent.mkdir()
    with _served("--workspaces", "3", "--write-manifest", str(manifest), "--rate-limit", "1") as banner:
        port = re.search(r"http://127\.0\.0\.1:(\d+)/api/v1", banner)
        assert port, banner
        assert f"fleet    3 workspace(s), ws-01 .. ws-03: {manifest} (removed at stop)" in banner
        tables = tomllib.loads(manifest.read_text())["workspace"]
        assert [table["name"] for table in tables] == ["ws-01", "ws-02", "ws-03"]
        assert stat.S_IMODE(manifest.stat().st_mode) == 0o600
        for number, table in enumerate(tables, start=1):
            assert set(table) == {"name", "legacy_url", "legacy_key_file", "v1_url", "token_file"}
            assert table["legacy_url"] == f"http://127.0.0.1:{port.group(1)}/api/v1"
            assert table["v1_url"] == f"http://127.0.0.1:{port.group(1)}/v1"
            files = [Path(table["legacy_key_file"]), Path(table["token_file"])]
            assert not any(path.is_absolute() or len(path.parts) != 1 for path in files)
            legacy_key, token = (manifest.parent.joinpath(path).read_text().strip() for path in files)
            assert all(stat.S_IMODE(manifest.parent.joinpath(path).stat().st_mode) == 0o600 for path in files)
            assert legacy_key not in banner
            assert token not in banner
            me = httpx.get(f"{table['v1_url']}/me", headers={"Authorization": f"Bearer {token}"}, timeout=10)
            assert me.json()["workspaces"][0]["workspaceId"] == f"wsp_target_0{number}"
            spaces = httpx.get(f"{table['legacy_url']}/spaces", headers={"X-API-Key": legacy_key}, timeout=10)
            assert spaces.status_code == 200
            again = httpx.get(f"{table['v1_url']}/me", headers={"Authorization": f"Bearer {token}"}, timeout=10)
            assert (again.status_code, again.json()["code"]) == (429, "rate_limited")
    assert list(manifest.parent.iterdir()) == []


def test_a_symlink_where_a_secret_file_goes_is_refused(tmp_path: Path) -> None:
    """A symlink in place of ws-02's token file stops the start naming it (exit 2); what it points at is left
    as it was."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.write_text("not the emulator's\n")
    (tmp_path / "ws-02.token").symlink_to(elsewhere)
    code, output = _emulate("--workspaces", "2", "--port", "0", "--write-manifest", str(tmp_path / "fleet.toml"))
    assert code == 2
    assert f"--write-manifest {tmp_path / 'ws-02.token'} is a symlink" in output.replace("\n", " ")
    assert elsewhere.read_text() == "not the emulator's\n"
    assert not (tmp_path / "fleet.toml").exists()


def test_a_fleet_needs_a_manifest_and_generated_secrets(tmp_path: Path) -> None:
    """Beyond one workspace the secrets are written beside --write-manifest, so it is needed; a chosen key or
    token (one workspace's) is refused naming where it came from, never showing it."""
    code, output = _emulate("--workspaces", "2", "--port", "0")
    assert code == 2
    assert "--workspaces beyond 1 needs --write-manifest FILE" in output
    manifest = str(tmp_path / "fleet.toml")
    chosen = "chosen-secret-0123456789"
    code, output = _emulate("--workspaces", "2", "--port", "0", "--write-manifest", manifest, EMULATOR_TOKEN=chosen)
    assert code == 2
    assert "EMULATOR_TOKEN chooses one workspace's secret" in output
    assert chosen not in output


def test_one_workspace_keeps_its_names_and_is_listed_alone() -> None:
    """With one tenant the manifest lists ws-01 over the workspaces `source` and `target`, as before."""
    (tenant,) = fleet(1, 42)
    assert (tenant.source, tenant.target) == ("source", "target")
    tables = tomllib.loads(manifest_text([tenant], "http://[::1]:8765"))["workspace"]
    assert tables == [
        {
            "name": "ws-01",
            "legacy_url": "http://[::1]:8765/api/v1",
            "legacy_key_file": "ws-01.legacy-key",
            "v1_url": "http://[::1]:8765/v1",
            "token_file": "ws-01.token",
        }
    ]
