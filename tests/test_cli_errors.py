"""Errors sorted by what to do (issue 33, point 3): the near misses the CLI names and `config show`'s missing
settings. Each case drives the real `bridge` group, as an operator would, and checks the exit code and text."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from bridge.cli import cli

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
