"""Errors sorted by what to do (issue 33, point 3): the near misses the CLI names and `config show`'s missing
settings. Each case drives the real `bridge` group, as an operator would, and checks the exit code and text."""

from __future__ import annotations

import asyncio
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from bridge.cli import CREDENTIALS, INTERRUPTED, cli
from bridge.config import ENV_LEGACY_KEY, ENV_TOKEN
from bridge.errors import CREDENTIAL_VARIABLES
from tests.support.census import v1_writes_by_route
from tests.support.world import World, fresh_world

FULL = {
    "BRIDGE_LEGACY_URL": "http://127.0.0.1:9/api/v1",
    "BRIDGE_V1_URL": "http://127.0.0.1:9/v1",
    "BRIDGE_LEGACY_KEY": "legacy-key-for-cli-errors",
    "BRIDGE_V1_TOKEN": "tok_token-for-cli-errors",
}


def _bridge(*args: str, env: dict[str, str | None]) -> tuple[int, str]:
    result = CliRunner().invoke(cli, list(args), env=env, catch_exceptions=False)
    assert "Traceback" not in result.output
    return result.exit_code, result.output


def test_a_mistyped_command_names_the_nearest_one() -> None:
    code, output = _bridge("stauts", env={})
    assert code == 2, output
    assert "Did you mean status?" in output


def test_a_command_far_from_every_other_is_refused_without_a_guess() -> None:
    code, output = _bridge("zzzzzz", env={})
    assert code == 2, output
    assert "No such command" in output
    assert "Did you mean" not in output


def test_a_mistyped_option_is_suggested_by_click() -> None:
    code, output = _bridge("status", "--stat", "x.db", env={})
    assert code == 2, output
    assert "--state" in output


def test_a_bridge_variable_close_to_a_setting_is_named_without_its_value(tmp_path: Path) -> None:
    value = "tok_typo_value_0123456789"
    env: dict[str, str | None] = {
        **FULL,
        "BRIDGE_V1_TOKEN": None,
        "BRIDGE_V1_TOKN": value,
        "BRIDGE_STATE": str(tmp_path / "s.db"),
    }
    code, output = _bridge("config", "show", env=env)
    assert "warning: BRIDGE_V1_TOKN is not a setting; did you mean BRIDGE_V1_TOKEN?" in output
    assert value not in output
    assert value[-4:] not in output
    assert code == 2, output


def test_config_show_marks_a_missing_token_and_exits_2(tmp_path: Path) -> None:
    env: dict[str, str | None] = {**FULL, "BRIDGE_V1_TOKEN": None, "BRIDGE_STATE": str(tmp_path / "s.db")}
    code, output = _bridge("config", "show", env=env)
    assert code == 2, output
    rows = {line.split("│")[1].strip(): line for line in output.splitlines() if line.count("│") == 4}
    assert "MISSING (required)" in rows["token"]
    assert "MISSING" not in rows["legacy_key"]
    assert "token (BRIDGE_V1_TOKEN)" in output.replace("\n", "")


def test_config_show_with_every_required_setting_exits_0(tmp_path: Path) -> None:
    code, output = _bridge("config", "show", env={**FULL, "BRIDGE_STATE": str(tmp_path / "s.db")})
    assert code == 0, output
    assert "MISSING" not in output


def _bridge_process(world: World, *args: str) -> subprocess.Popen[str]:
    bridge = Path(sys.executable).with_name("bridge")
    env = world.env()
    return subprocess.Popen([str(bridge), *args], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


@pytest.mark.anyio
async def test_ctrl_c_mid_run_exits_130_and_a_second_run_completes_without_a_duplicate(tmp_path: Path) -> None:
    """SIGINT to a `bridge run` in the middle of its writes: exit 130, the interrupted line and the resume
    command, no traceback; the same command again finishes, and v1 holds each record once."""
    with fresh_world(tmp_path / "state.db").served() as world:
        # Every answer waits, so the run is surely mid-way when the signal comes.
        await world.control("POST", "/faults", {"latencyMs": 40})
        args = ("run", "--project", world.project_id)
        first = _bridge_process(world, *args)
        deadline = time.monotonic() + 60
        while not v1_writes_by_route(await world.control("GET", "/stats")) and time.monotonic() < deadline:
            await asyncio.sleep(0.1)
        first.send_signal(signal.SIGINT)
        output, _ = first.communicate(timeout=60)
        assert first.returncode == INTERRUPTED, output
        assert re.search(r"interrupted: the run was interrupted after [\d,]+ of [\d,]+ records", output), output
        assert "Nothing is lost; run the same command again" in output
        assert "resume with:" in output
        assert "Traceback" not in output
        assert "CancelledError" not in output
        assert "fix the cause" not in output
        await world.control("POST", "/faults", {})
        second = _bridge_process(world, *args)
        output, _ = second.communicate(timeout=300)
        assert second.returncode == 0, output
        counts = await world.census()
    assert counts
    assert max(counts.values()) == 1


def _closed_port() -> int:
    """A loopback port nothing listens on: bound, then released."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.mark.parametrize("command", ["plan", "run"])
def test_a_wrong_port_at_the_first_request_exits_2_at_once_naming_the_url(tmp_path: Path, command: str) -> None:
    """Nothing ever answered at the URL: a setting to fix, said within 5 s, not 20 s of retries then 'resume'."""
    port = _closed_port()
    env: dict[str, str | None] = {
        **FULL,
        "BRIDGE_LEGACY_URL": f"http://127.0.0.1:{port}/api/v1",
        "BRIDGE_V1_URL": f"http://127.0.0.1:{port}/v1",
        "BRIDGE_STATE": str(tmp_path / "s.db"),
    }
    started = time.monotonic()
    code, output = _bridge(command, env=env)
    assert time.monotonic() - started < 5
    assert code == 2, output
    assert f"nothing answers at http://127.0.0.1:{port}/" in output.replace("\n", "")
    assert "resume" not in output
    assert FULL["BRIDGE_LEGACY_KEY"] not in output
    assert FULL["BRIDGE_V1_TOKEN"] not in output


def test_a_restricted_legacy_key_exits_5_naming_the_variable_never_resume(tmp_path: Path) -> None:
    """Legacy's 403 'workspace access restricted' refuses the key itself (A129): exit 5 as for a 401."""
    world = fresh_world(tmp_path / "state.db")
    key = "lk_restricted_0123456789abcdefghij"
    world.service.add_api_key("source", key, restricted=True)
    with world.served() as served:
        env: dict[str, str | None] = {**served.env(), "BRIDGE_LEGACY_KEY": key}
        code, output = _bridge("plan", "--project", served.project_id, env=env)
    assert code == CREDENTIALS, output
    assert "credentials refused:" in output
    assert "403" in output
    assert "BRIDGE_LEGACY_KEY" in output.replace("\n", "")
    assert "resume" not in output
    assert key not in output


def test_a_stopped_plan_says_run_again_and_a_stopped_run_resume_with(tmp_path: Path) -> None:
    """A plan has nothing to resume: stopped by the service, it prints `run again:`; a run prints `resume with:`."""
    config = tmp_path / "bridge.toml"
    config.write_text("retry_ratio = 0\n", encoding="utf-8")  # no retry allowed: the first 503 stops the command
    with fresh_world(tmp_path / "state.db").served() as world:
        asyncio.run(world.control("POST", "/faults", {"rules": [{"kind": "error_503", "rate": 1.0}]}))
        env: dict[str, str | None] = {**world.env()}
        outputs = {
            command: _bridge(command, "--config", str(config), "--project", world.project_id, env=env)
            for command in ("plan", "run")
        }
    assert outputs["plan"][0] == outputs["run"][0] == 3, outputs
    assert "run again:  bridge plan" in outputs["plan"][1]
    assert "resume" not in outputs["plan"][1]
    assert "resume with:  bridge run" in outputs["run"][1]


def test_the_credential_variables_named_are_the_ones_the_settings_read() -> None:
    assert CREDENTIAL_VARIABLES == {"legacy": ENV_LEGACY_KEY, "v1": ENV_TOKEN}


@pytest.mark.parametrize(("variable", "wrong"), [("BRIDGE_V1_TOKEN", "tok_wrong"), ("BRIDGE_LEGACY_KEY", "lk_wrong")])
def test_a_refused_credential_exits_5_naming_the_variable_never_resume(
    tmp_path: Path, variable: str, wrong: str
) -> None:
    """A wrong token or key against the emulator: its own exit code, the variable to set, no 'resume'."""
    wrong = f"{wrong}_0123456789abcdefghij"
    with fresh_world(tmp_path / "state.db").served() as world:
        env: dict[str, str | None] = {**world.env(), variable: wrong}
        code, output = _bridge("plan", "--project", world.project_id, env=env)
    assert code == CREDENTIALS, output
    assert "credentials refused:" in output
    assert variable in output.replace("\n", "")
    assert "resume" not in output
    assert wrong not in output
    assert wrong[-4:] not in output
