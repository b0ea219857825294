"""Rehearsals without copying: `bridge emulate --env-file FILE --state-dir DIR` as an operator uses them.

The exports file is private (0600) and sourcing it is all `bridge plan` needs; the folder keeps the key, the
token and every record across a stop and a start, so a migration done before the restart is found whole after
it (a second run sends no write). Real processes: the emulator is stopped by SIGTERM as a terminal stops it.
"""

from __future__ import annotations

import asyncio
import os
import re
import signal
import socket
import stat
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner

from bridge.cli import cli
from bridge.config import ENV_LEGACY_KEY, ENV_LEGACY_URL, ENV_STATE, ENV_TOKEN, ENV_V1_URL
from tests.support.census import census, v1_writes_by_route
from tests.support.world import SMALL_PROJECT

BRIDGE = str(Path(sys.executable).parent / "bridge")
OURS = ("EMULATOR_LEGACY_KEY", "EMULATOR_TOKEN", "EMULATOR_CONTROL_TOKEN", ENV_LEGACY_URL, ENV_LEGACY_KEY)
SETTINGS = (ENV_LEGACY_URL, ENV_LEGACY_KEY, ENV_V1_URL, ENV_TOKEN)


def _clean() -> dict[str, str]:
    return {name: value for name, value in os.environ.items() if name not in (*OURS, *SETTINGS)}


@contextmanager
def _emulator(*args: str, port: int = 0) -> Iterator[tuple[str, str]]:
    """`bridge emulate ARGS --port PORT` as a process until SIGTERM; yields its base URL once it serves, and its
    banner."""
    command = [BRIDGE, "emulate", *args, "--port", str(port)]
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=_clean()) as served:
        try:
            assert served.stdout is not None
            lines: list[str] = []
            while not lines or not lines[-1].startswith("Ctrl-C"):  # the banner's last line
                lines.append(served.stdout.readline())
                assert lines[-1], "".join(lines)  # it stopped before serving
            banner = "".join(lines)
            match = re.search(r"http://\S+?:(\d+)/api/v1", banner)
            assert match, banner + served.stdout.read()
            base = f"http://127.0.0.1:{match.group(1)}"
            _writes(base)  # once it answers, SIGTERM is a clean stop (uvicorn's handlers are in place)
            yield base, banner
        finally:
            served.send_signal(signal.SIGTERM)
            rest = served.communicate(timeout=60)[0]
            assert served.returncode == 0, rest
            assert "Traceback" not in rest


def _sourced(env_file: Path, state: Path, *bridge_args: str) -> subprocess.CompletedProcess[str]:
    """`. ENV_FILE && bridge ARGS` in a shell whose environment holds none of the bridge's settings."""
    script = f'. "{env_file}" && exec "{BRIDGE}" "$@"'
    return subprocess.run(
        ["/bin/sh", "-c", script, "sh", *bridge_args],
        capture_output=True,
        text=True,
        env={**_clean(), ENV_STATE: str(state)},
        timeout=300,
        check=False,
    )


def _exports(env_file: Path) -> dict[str, str]:
    """The variables the file sets, as a shell sees them once sourced."""
    shown = subprocess.run(
        ["/bin/sh", "-c", f'. "{env_file}" && env'], capture_output=True, text=True, env=_clean(), check=True
    )
    pairs = (line.partition("=") for line in shown.stdout.splitlines())
    return {name: value for name, _, value in pairs if name in SETTINGS}


def _writes(base: str) -> int:
    """The v1 writes the emulator answered since it started (waiting, bounded, until it accepts connections)."""
    deadline = time.monotonic() + 30
    while True:
        try:
            stats = httpx.get(f"{base}/_emulator/stats", timeout=10).json()
        except httpx.TransportError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)
        else:
            return sum(v1_writes_by_route(stats).values())


def _census(exports: dict[str, str]) -> Counter[tuple[str, ...]]:
    async def read() -> Counter[tuple[str, ...]]:
        headers = {"Authorization": f"Bearer {exports[ENV_TOKEN]}"}
        async with httpx.AsyncClient(base_url=exports[ENV_V1_URL], headers=headers, timeout=30) as client:
            return await census(client.get)

    return asyncio.run(read())


@pytest.mark.wire
@pytest.mark.slow
def test_the_env_file_is_private_and_sourcing_it_is_all_plan_needs(tmp_path: Path) -> None:
    """The file is mode 0600 (even under a permissive umask), names the four settings, and after `. FILE`
    `bridge plan` reaches both surfaces and exits 0."""
    env_file = tmp_path / "emulator.env"
    permissive = os.umask(0)  # inherited by the emulator: the file's mode must not depend on it
    try:
        with _emulator("--env-file", str(env_file)) as (base, banner):
            assert f"exports  {env_file} (mode 0600)" in banner
            assert stat.S_IMODE(env_file.stat().st_mode) == 0o600
            exports = _exports(env_file)
            assert exports[ENV_LEGACY_URL] == f"{base}/api/v1"
            assert exports[ENV_V1_URL] == f"{base}/v1"
            planned = _sourced(env_file, tmp_path / "state.db", "plan", "--project", SMALL_PROJECT)
            assert planned.returncode == 0, planned.stdout + planned.stderr
    finally:
        os.umask(permissive)


@pytest.mark.wire
@pytest.mark.slow
def test_the_state_dir_keeps_credentials_and_records_across_a_restart(tmp_path: Path) -> None:
    """Migrate, stop, start again on the same folder and port: the same key and token, the same records on v1
    (the ones the migration wrote included), and a second `bridge run` sends 0 writes. (The same port: a state
    file is bound to the source's URL.)"""
    folder, env_file, state = tmp_path / "emulator", tmp_path / "emulator.env", tmp_path / "state.db"
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with _emulator("--state-dir", str(folder), "--env-file", str(env_file), port=port) as (base, banner):
        assert "state    new; kept in" in banner
        first = _exports(env_file)
        ran = _sourced(env_file, state, "run", "--project", SMALL_PROJECT)
        assert ran.returncode == 0, ran.stdout + ran.stderr
        assert _writes(base) > 0
        before = _census(first)
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    with _emulator("--state-dir", str(folder), "--env-file", str(env_file), port=port) as (base, banner):
        assert f"state    restored from {folder / 'emulator.snapshot'}" in banner
        again = _exports(env_file)
        assert (again[ENV_LEGACY_KEY], again[ENV_TOKEN]) == (first[ENV_LEGACY_KEY], first[ENV_TOKEN])
        assert _census(again) == before
        rerun = _sourced(env_file, state, "run", "--project", SMALL_PROJECT)
        assert rerun.returncode == 0, rerun.stdout + rerun.stderr
        assert _writes(base) == 0


def test_a_kept_folder_refuses_another_seed_rather_than_ignoring_it(tmp_path: Path) -> None:
    """Starting on a folder seeded otherwise, with the option given again, is exit 2 naming both values (nothing
    served); the folder still holds what it held."""
    folder = tmp_path / "emulator"
    with _emulator("--state-dir", str(folder), "--seed", "7"):
        pass
    kept = (folder / "emulator.snapshot").read_bytes()
    result = CliRunner().invoke(cli, ["emulate", "--state-dir", str(folder), "--seed", "8", "--port", "0"])
    assert result.exit_code == 2
    assert "--seed 8 (kept: 7)" in result.output
    assert (folder / "emulator.snapshot").read_bytes() == kept


def test_a_folder_others_may_write_is_refused(tmp_path: Path) -> None:
    """The snapshot is unpickled, so a group- or world-writable folder is refused before anything is read."""
    folder = tmp_path / "shared"
    folder.mkdir(mode=0o777)
    folder.chmod(0o777)
    result = CliRunner().invoke(cli, ["emulate", "--state-dir", str(folder), "--port", "0"])
    assert result.exit_code == 2
    assert "chmod 700" in result.output
