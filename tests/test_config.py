"""Settings: precedence, environment fallbacks, secrets only from the environment or a file, masked secrets."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from bridge.cli import exit_code
from bridge.config import ENV_LEGACY_KEY, ENV_LEGACY_URL, ENV_STATE, ENV_TOKEN, ENV_V1_URL, Secret, load_settings
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
