"""The fleet manifest: what it accepts, how every mistake is named, and where each step's secrets come from."""

from __future__ import annotations

from pathlib import Path

import pytest

from bridge.errors import ConfigError, UsageError
from bridge.fleet.manifest import WorkspaceSpec, parse_manifest

GOOD = """
[[workspace]]
name = "ws-01"
legacy_url = "http://127.0.0.1:9/api/v1"
legacy_key_file = "keys/ws-01.legacy-key"
v1_url = "http://127.0.0.1:9/v1"
token_env = "WS01_TOKEN"
projects = ["p_1"]
concurrency = 4
"""


def test_paths_are_relative_to_the_manifest_folder(tmp_path: Path) -> None:
    (spec,) = parse_manifest(GOOD, tmp_path, "fleet.toml")
    assert spec.legacy_key_file == (tmp_path / "keys" / "ws-01.legacy-key").resolve()
    assert (spec.token_env, spec.projects, spec.concurrency) == ("WS01_TOKEN", ("p_1",), 4)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("not toml [", "fleet.toml is not TOML"),
        ("", "fleet.toml lists no workspace"),
        ("[[workspaces]]\nname='a'", "unknown top-level key(s) 'workspaces'"),
        (GOOD.replace('name = "ws-01"', 'name = "WS 01"'), "workspace 1 (WS 01): name: String should match"),
        (GOOD.replace('token_env = "WS01_TOKEN"', ""), "give the token as exactly one of token_file or token_env"),
        (GOOD.replace('token_env = "WS01_TOKEN"', 'token_env = "A"\ntoken_file = "t"'), "exactly one of token_file"),
        (GOOD.replace("concurrency = 4", "concurrency = 0"), "concurrency: Input should be greater than or equal"),
        (GOOD.replace("concurrency = 4", "token = 'tok_secret'"), "token: Extra inputs are not permitted"),
        (GOOD.replace('v1_url = "http://127.0.0.1:9/v1"', ""), "(ws-01): v1_url: Field required"),
        (GOOD + GOOD, "workspace name(s) used twice: ws-01"),
        ('workspace = ["a"]', "workspace 1: expected a table of settings"),
    ],
)
def test_each_mistake_is_named(text: str, message: str, tmp_path: Path) -> None:
    with pytest.raises(UsageError) as raised:
        parse_manifest(text, tmp_path, "fleet.toml")
    assert message in str(raised.value)
    assert "tok_secret" not in str(raised.value)


def test_secrets_come_only_from_what_the_manifest_names(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    key = tmp_path / "keys" / "ws-01.legacy-key"
    key.parent.mkdir()
    key.write_text("lk_from_the_file\n")
    (spec,) = parse_manifest(GOOD, tmp_path, "fleet.toml")
    # A worker's own BRIDGE_* variables must never reach a workspace's run.
    monkeypatch.setenv("BRIDGE_V1_TOKEN", "tok_of_the_worker")
    monkeypatch.setenv("BRIDGE_LEGACY_KEY", "lk_of_the_worker")
    monkeypatch.delenv("WS01_TOKEN", raising=False)
    with pytest.raises(ConfigError, match="the environment variable WS01_TOKEN the manifest names is not set"):
        spec.settings("postgresql://x/y")
    monkeypatch.setenv("WS01_TOKEN", "tok_named")
    settings = spec.settings("postgresql://x/y")
    assert settings.legacy_key is not None
    assert settings.token is not None
    assert (settings.legacy_key.reveal(), settings.token.reveal()) == ("lk_from_the_file", "tok_named")
    assert (settings.migration, settings.projects, settings.concurrency) == ("ws-01", ("p_1",), 4)


def test_a_spec_round_trips_through_the_queue_without_secrets(tmp_path: Path) -> None:
    (spec,) = parse_manifest(GOOD, tmp_path, "fleet.toml")
    assert WorkspaceSpec.model_validate_json(spec.model_dump_json()) == spec
