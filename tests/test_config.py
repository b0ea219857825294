"""Settings: precedence (option > environment > TOML > default, secrets included), secrets only from the
environment or a file and always masked, and the operator's everyday mistakes refused (exit 2) naming the setting
and the fix: a misspelled key, plain http to another host, credentials in a URL, an empty or BOM-marked key file."""

from __future__ import annotations

import base64
import json
import pickle
from pathlib import Path

import pytest
from click.testing import CliRunner

from bridge.cli import cli, exit_code
from bridge.config import (
    ENV_LEGACY_KEY,
    ENV_LEGACY_URL,
    ENV_STATE,
    ENV_TOKEN,
    ENV_V1_URL,
    Secret,
    Settings,
    load_settings,
)
from bridge.errors import ConfigError

KEY = "lk_config_canary_0123456789wxyz"


def test_secret_repr_and_str_show_at_most_last_four() -> None:
    """A long secret shows only its last four characters; a short one shows none."""
    secret = Secret(KEY)
    assert repr(secret) == "Secret('****wxyz')"
    assert str(secret) == "****wxyz"
    assert f"{secret}" == "****wxyz"
    assert KEY not in repr([secret, {"k": secret}])
    assert str(Secret("short-key")) == "****"


def test_secret_refuses_to_be_pickled() -> None:
    """A secret cannot leave the process unmasked by serialisation."""
    with pytest.raises(TypeError, match="cannot be pickled"):
        pickle.dumps(Secret(KEY))


def test_environment_supplies_urls_credentials_and_state() -> None:
    """Every BRIDGE_* variable fills its setting; credentials arrive as Secrets."""
    env = {
        ENV_LEGACY_URL: "https://old.test/api/v1/",
        ENV_LEGACY_KEY: KEY,
        ENV_V1_URL: "https://new.test/v1",
        ENV_TOKEN: "tok_config_0123456789abcdef",
        ENV_STATE: "/tmp/run.sqlite",
    }
    settings = load_settings(env=env)
    assert settings.require_legacy() == ("https://old.test/api/v1", Secret(KEY))
    assert settings.require_v1()[1].reveal() == "tok_config_0123456789abcdef"
    assert settings.state == "/tmp/run.sqlite"


def test_options_beat_environment_beat_file(tmp_path: Path) -> None:
    """An explicit option wins over the environment, which wins over the --config file."""
    config = tmp_path / "bridge.toml"
    config.write_text('[bridge]\nv1_url = "https://file.test/v1"\nconcurrency = 3\nprojects = ["p1", "p2"]\n')
    settings = load_settings(config, {"concurrency": 5, "v1_url": None}, env={ENV_V1_URL: "https://env.test/v1"})
    assert settings.v1_url == "https://env.test/v1"
    assert settings.concurrency == 5
    assert settings.projects == ("p1", "p2")


def test_secret_read_from_a_named_file(tmp_path: Path) -> None:
    """token_file in the config names a file holding the token; trailing newlines are dropped."""
    (tmp_path / "token").write_text("tok_from_file_0123456789abcd\n")
    config = tmp_path / "bridge.toml"
    config.write_text(f'token_file = "{tmp_path / "token"}"\nv1_url = "https://new.test/v1"\n')
    assert load_settings(config, env={}).require_v1()[1].reveal() == "tok_from_file_0123456789abcd"


def test_plain_secret_in_config_file_is_refused_without_echoing_it(tmp_path: Path) -> None:
    """A key written into the TOML file is an error telling where to put it instead, never echoing it."""
    config = tmp_path / "bridge.toml"
    config.write_text(f'legacy_key = "{KEY}"\n')
    with pytest.raises(ConfigError, match="legacy_key_file or the environment") as caught:
        load_settings(config, env={})
    assert KEY not in str(caught.value)
    assert exit_code(caught.value) == 2


@pytest.mark.parametrize(
    ("config_text", "message"),
    [("concurrency = 0", "concurrency"), ("concurrency = 'many'", "concurrency"), ("v1_url = [", "not valid TOML")],
)
def test_bad_config_names_the_setting(tmp_path: Path, config_text: str, message: str) -> None:
    """A wrong value is a usage error that names the setting to fix."""
    config = tmp_path / "bridge.toml"
    config.write_text(config_text + "\n")
    with pytest.raises(ConfigError, match=message):
        load_settings(config, env={})


def test_missing_credentials_say_where_to_set_them() -> None:
    """Asking for a surface without its credentials names the environment variable to set."""
    settings = load_settings(env={ENV_V1_URL: "https://new.test/v1"})
    with pytest.raises(ConfigError, match=ENV_TOKEN):
        settings.require_v1()
    with pytest.raises(ConfigError, match=ENV_LEGACY_URL):
        settings.require_legacy()


def test_secret_passed_as_an_option_is_refused() -> None:
    """A token handed over as a plain option value is an error that does not repeat it."""
    with pytest.raises(ConfigError, match="use token_file or the environment") as caught:
        load_settings(overrides={"token": "tok_option_0123456789abcdef"}, env={})
    assert "tok_option_0123456789abcdef" not in str(caught.value)


def _toml(tmp_path: Path, text: str) -> Path:
    config = tmp_path / "bridge.toml"
    config.write_text(text, encoding="utf-8")
    return config


def _key_file(tmp_path: Path, name: str, content: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(content)
    return path


def test_an_explicit_key_file_beats_the_environment_which_beats_the_toml_file(tmp_path: Path) -> None:
    """A stale exported key loses to --legacy-key-file, and wins over the TOML file's legacy_key_file."""
    from_option = _key_file(tmp_path, "option-key", b"lk_from_the_option_0123456789\n")
    from_toml = _key_file(tmp_path, "toml-key", b"lk_from_the_toml_file_0123456\n")
    config = _toml(tmp_path, f'legacy_key_file = "{from_toml}"\n')
    env = {ENV_LEGACY_KEY: "lk_stale_from_the_environment_01"}
    chosen = load_settings(config, {"legacy_key_file": from_option}, env=env).legacy_key
    assert chosen == Secret("lk_from_the_option_0123456789")
    assert load_settings(config, env=env).legacy_key == Secret("lk_stale_from_the_environment_01")
    assert load_settings(config, env={}).legacy_key == Secret("lk_from_the_toml_file_0123456")


def test_a_losing_layers_unreadable_key_file_is_never_read(tmp_path: Path) -> None:
    """Only the winning layer's file is opened: a stale path in the TOML file does not stop a run given a key."""
    config = _toml(tmp_path, f'token_file = "{tmp_path / "gone"}"\n')
    assert load_settings(config, env={ENV_TOKEN: "tok_env_0123456789abcdef"}).token == Secret(
        "tok_env_0123456789abcdef"
    )


def test_a_key_file_with_a_bom_and_blank_lines_gives_the_bare_key(tmp_path: Path) -> None:
    """A key saved by an editor with a byte-order mark, CRLF and surrounding blanks is the key alone."""
    path = _key_file(tmp_path, "key", "\ufeff  lk_bom_0123456789abcdef \r\n\r\n".encode())
    assert load_settings(overrides={"legacy_key_file": path}, env={}).legacy_key == Secret("lk_bom_0123456789abcdef")


def _show(*args: str, env: dict[str, str] | None = None) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["config", "show", *args], env=env or {}, catch_exceptions=False)
    assert "Traceback" not in result.output
    return result.exit_code, result.output


@pytest.mark.parametrize(
    ("typo", "meant"), [("concurency", "concurrency"), ("stat", "state"), ("log_flie", "log_file")]
)
def test_a_misspelled_toml_key_is_refused_with_the_nearest_setting(tmp_path: Path, typo: str, meant: str) -> None:
    """A typo never leaves the default silently in force: exit 2 naming the key, the file and the fix."""
    config = _toml(tmp_path, f'[bridge]\n{typo} = "x"\n')
    code, output = _show("--config", str(config))
    assert code == 2, output
    assert f"unknown setting '{typo}' in {config}: did you mean '{meant}'?" in output.replace("\n", "")


@pytest.mark.parametrize(
    ("where", "url"),
    [
        ("option", "http://api.example.com/v1"),
        ("environment", "http://10.0.0.7:8080/v1"),
        ("toml", "http://next-api.example.com/v1"),
    ],
)
def test_plain_http_to_another_host_is_refused(tmp_path: Path, where: str, url: str) -> None:
    """The bearer token would cross the network in clear: exit 2 naming the setting, its layer and https."""
    args, env = _layer(tmp_path, where, url)
    code, output = _show(*args, env=env)
    assert code == 2, output
    assert "v1_url" in output
    assert "use https" in output


def _layer(tmp_path: Path, where: str, url: str) -> tuple[list[str], dict[str, str]]:
    if where == "option":
        return ["--v1-url", url], {}
    if where == "environment":
        return [], {ENV_V1_URL: url}
    return ["--config", str(_toml(tmp_path, f'v1_url = "{url}"\n'))], {}


@pytest.mark.parametrize(
    "url", ["http://127.0.0.1:8000/v1", "http://127.8.9.10/v1", "http://[::1]:8000/v1", "http://localhost/v1"]
)
def test_plain_http_to_this_machine_is_accepted(url: str) -> None:
    """Loopback hosts (127.0.0.0/8, ::1, localhost) may use http: the emulator and the runbooks do."""
    assert load_settings(env={ENV_V1_URL: url}).v1_url == url


@pytest.mark.parametrize("where", ["option", "environment", "toml"])
def test_a_url_with_credentials_is_refused_and_never_echoed(tmp_path: Path, where: str) -> None:
    """user:password@ in a base URL would reach the state file and logs: exit 2, neither part printed."""
    args, env = _layer(tmp_path, where, "https://alice:hunter2@new.example.com/v1")
    code, output = _show(*args, env=env)
    assert code == 2, output
    assert "v1_url" in output
    assert "user name or password: remove it" in output.replace("\n", " ")
    assert "hunter2" not in output
    assert "alice" not in output


def test_an_empty_key_file_is_refused_naming_the_file(tmp_path: Path) -> None:
    """A key file holding only a BOM and blanks is exit 2 naming the file, not a request sent without a key."""
    path = _key_file(tmp_path, "empty-key", b"\xef\xbb\xbf \n")
    code, output = _show("--token-file", str(path))
    assert code == 2, output
    assert "empty-key" in output
    assert "is empty" in output


def test_a_key_file_that_is_not_text_is_refused_naming_the_file(tmp_path: Path) -> None:
    """A binary file given as the key is exit 2 naming it, never a traceback."""
    path = _key_file(tmp_path, "binary-key", b"\xff\xfe\x00\x01")
    code, output = _show("--legacy-key-file", str(path))
    assert code == 2, output
    assert "binary-key" in output


def test_config_show_names_each_layer_and_never_shows_a_secret(tmp_path: Path) -> None:
    """Every setting with its value and layer; the secrets only as where they come from, in no encoding."""
    key = "lk_show_0123456789abcdefghij"
    token = "tok_show_0123456789abcdefghij"
    key_file = _key_file(tmp_path, "legacy-key", f"{key}\n".encode())
    config = _toml(tmp_path, '[bridge]\nv1_url = "https://new.example.com/v1"\nconcurrency = 3\n')
    env = {ENV_LEGACY_KEY: "lk_stale_0123456789abcdefghij", ENV_TOKEN: token, ENV_STATE: str(tmp_path / "s.db")}
    args = ["--config", str(config), "--legacy-key-file", str(key_file), "--legacy-url", "https://old.example/api/v1"]
    code, output = _show(*args, env=env)
    assert code == 0, output
    cells = [[cell.strip() for cell in line.split("│")[1:4]] for line in output.splitlines() if line.count("│") == 4]
    rows = {name: (value, source) for name, value, source in cells}
    # `--json` says the same, for a machine.
    code, shown_json = _show(*args, "--json", env=env)
    assert code == 0, shown_json
    assert {row["setting"]: (row["value"], row["from"]) for row in json.loads(shown_json)} == rows
    output += shown_json
    assert rows["legacy_key"] == (f"set (from file {key_file})", "option --legacy-key-file")
    assert rows["token"] == ("set (from BRIDGE_V1_TOKEN)", "environment BRIDGE_V1_TOKEN")
    assert rows["legacy_url"] == ("https://old.example/api/v1", "option --legacy-url")
    assert rows["v1_url"] == ("https://new.example.com/v1", f"TOML file {config}")
    assert rows["concurrency"] == ("3", f"TOML file {config}")
    assert rows["state"] == (str(tmp_path / "s.db"), "environment BRIDGE_STATE")
    assert rows["max_list_pages"] == ("10000", "default")
    for secret in (key, token, "lk_stale_0123456789abcdefghij"):
        for form in (secret, secret[-4:], base64.b64encode(secret.encode()).decode(), secret.encode().hex()):
            assert form not in output


def test_settings_never_serialise_a_secret() -> None:
    """A dump of the settings (for a log or a report) leaves both secrets out; the repr shows them masked."""
    settings = Settings(legacy_key=Secret(KEY), token=Secret("tok_dump_0123456789abcdef"))
    dumped = settings.model_dump_json()
    assert "legacy_key" not in dumped
    assert "token" not in dumped
    assert KEY not in repr(settings)
    assert "****wxyz" in repr(settings)
