"""Run settings: one frozen value built from a TOML file, the environment and explicit overrides.

Precedence, highest first: explicit overrides (command-line options) > environment > ``--config`` TOML file >
defaults. Secrets (the legacy key and the v1 token) are read only from the environment or from a file named by
``legacy_key_file`` / ``token_file``; never from a plain option or the TOML file itself, so they never sit in
shell history, process lists or a config file that gets committed.
"""

from __future__ import annotations

import math
import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from urllib.parse import urlsplit

from bridge.errors import ConfigError

_SHOWN_SUFFIX = 4
_MIN_LENGTH_TO_SHOW_SUFFIX = 16


class Secret:
    """A credential whose repr and str are masked; only ``reveal()`` gives the value, at the point of use."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        if not value.strip():
            raise ConfigError("a secret (API key or token) is empty")
        self._value = value.strip()

    def reveal(self) -> str:
        return self._value

    @property
    def masked(self) -> str:
        # Short secrets show nothing: four characters of an eight-character key is half of it.
        if len(self._value) < _MIN_LENGTH_TO_SHOW_SUFFIX:
            return "****"
        return "****" + self._value[-_SHOWN_SUFFIX:]

    def __repr__(self) -> str:
        return f"Secret({self.masked!r})"

    def __str__(self) -> str:
        return self.masked

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Secret) and other._value == self._value

    def __hash__(self) -> int:
        return hash(("Secret", self._value))

    def __reduce__(self) -> str:
        raise TypeError("a Secret cannot be pickled: it would leave the process unmasked")


ENV_LEGACY_URL = "BRIDGE_LEGACY_URL"
ENV_LEGACY_KEY = "BRIDGE_LEGACY_KEY"
ENV_V1_URL = "BRIDGE_V1_URL"
ENV_TOKEN = "BRIDGE_V1_TOKEN"  # noqa: S105 (the variable's name, not a token)
ENV_STATE = "BRIDGE_STATE"
# The documented base paths of the two surfaces.
LEGACY_BASE = "/api/v1"
V1_BASE = "/v1"
# Multiples of what `bridge run` and `bridge verify` of the emulator's `large` workspace needed (measured in
# process, 2 cores): the slowest request took 31 s, the largest answer was 48.5 MB (verify's read of the biggest
# project's actuals; its whole budget was 26 MB) and the longest v1 list took 1,100 pages.
REQUEST_TIMEOUT_S = 120.0
MAX_RESPONSE_BYTES = 128 * 1024 * 1024
MAX_LIST_PAGES = 10_000


@dataclass(frozen=True, slots=True)
class Settings:
    """Everything one run needs; build it with ``load_settings``."""

    legacy_url: str = ""
    legacy_key: Secret | None = None
    v1_url: str = ""
    token: Secret | None = None
    # A file path or a SQLAlchemy URL (anything with "://"), kept as text so a URL is never mangled.
    state: str = "bridge-state.db"
    migration: str = "default"
    projects: tuple[str, ...] = ()
    concurrency: int = 8
    log_file: Path | None = None
    report_dir: Path = Path("reports")
    # Seconds one request may take in all, from connect to the body's last byte.
    request_timeout: float = REQUEST_TIMEOUT_S
    retry_ratio: float = 0.1
    max_response_bytes: int = MAX_RESPONSE_BYTES
    max_list_pages: int = MAX_LIST_PAGES
    extra: Mapping[str, object] = field(default_factory=dict)

    def require_legacy(self) -> tuple[str, Secret]:
        """The legacy base URL and key, or a ConfigError naming what is missing and where to set it."""
        if not self.legacy_url:
            raise ConfigError(f"no legacy base URL: set {ENV_LEGACY_URL} or legacy_url in the --config file")
        if self.legacy_key is None:
            raise ConfigError(f"no legacy API key: set {ENV_LEGACY_KEY} or legacy_key_file in the --config file")
        _check_base(self.legacy_url, LEGACY_BASE, f"legacy_url ({ENV_LEGACY_URL})")
        return self.legacy_url, self.legacy_key

    def require_v1(self) -> tuple[str, Secret]:
        """The v1 base URL and token, or a ConfigError naming what is missing and where to set it."""
        if not self.v1_url:
            raise ConfigError(f"no v1 base URL: set {ENV_V1_URL} or v1_url in the --config file")
        if self.token is None:
            raise ConfigError(f"no v1 token: set {ENV_TOKEN} or token_file in the --config file")
        _check_base(self.v1_url, V1_BASE, f"v1_url ({ENV_V1_URL})")
        return self.v1_url, self.token


def _check_base(url: str, base: str, setting: str) -> None:
    """A base URL must be an http(s) URL whose path ends in the surface's documented base path: any other path
    answers every call with 404, which would otherwise look like records missing at the source."""
    parts = urlsplit(url)
    # Shown without any user:password@ part, which must never reach a terminal.
    shown = parts._replace(netloc=parts.netloc.rpartition("@")[2], query="", fragment="").geturl()
    if parts.scheme not in {"http", "https"} or not parts.netloc:
        raise ConfigError(f"{setting} {shown!r} is not an http(s) URL")
    if not parts.path.rstrip("/").endswith(base):
        raise ConfigError(f"{setting} {shown!r} must end in the surface's base path {base}")


_PLAIN_KEYS = frozenset(f.name for f in fields(Settings)) - {"legacy_key", "token", "extra"}
_SECRET_FILE_KEYS = {"legacy_key_file": "legacy_key", "token_file": "token"}


def _read_secret_file(path: Path, name: str) -> Secret:
    try:
        return Secret(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"cannot read {name} from {path}: {exc.strerror}") from exc


def _coerce(name: str, value: object) -> object:
    """One option's value in the type Settings holds; a ConfigError names the option otherwise."""
    try:
        if name == "state":
            return str(value)
        if name in {"report_dir", "log_file"}:
            return None if value is None else Path(str(value))
        if name == "projects":
            if isinstance(value, str):
                return tuple(p.strip() for p in value.split(",") if p.strip())
            if isinstance(value, list | tuple):
                return tuple(str(p) for p in value)
            raise TypeError(name)
        if name == "concurrency":
            number = int(str(value))
            if not 1 <= number <= 64:
                raise ValueError(name)
            return number
        if name == "request_timeout":
            seconds = float(str(value))
            if not 0 < seconds < math.inf:
                raise ValueError(name)
            return seconds
        if name == "retry_ratio":
            return float(str(value))
        if name in {"max_response_bytes", "max_list_pages"}:
            count = int(str(value))
            if count < 1:
                raise ValueError(name)
            return count
        if name in {"legacy_url", "v1_url"}:
            return str(value).rstrip("/")
        return str(value)
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"setting {name!r} has an invalid value {value!r}") from exc


def _read_toml(path: Path) -> dict[str, object]:
    try:
        with path.open("rb") as handle:
            data = tomllib.load(handle)
    except OSError as exc:
        raise ConfigError(f"cannot read --config file {path}: {exc.strerror}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"--config file {path} is not valid TOML: {exc}") from exc
    table = data.get("bridge", data)
    if not isinstance(table, dict):
        raise ConfigError(f"--config file {path}: [bridge] must be a table")
    for secret_key in ("legacy_key", "token"):
        if secret_key in table:
            raise ConfigError(
                f"--config file {path} holds {secret_key!r} in plain text; remove it and use "
                f"{secret_key}_file or the environment instead"
            )
    return dict(table)


def load_settings(
    config_file: Path | None = None,
    overrides: Mapping[str, object] | None = None,
    env: Mapping[str, str] | None = None,
) -> Settings:
    """Settings from a TOML file, the environment and overrides (None values in overrides are ignored)."""
    environ = os.environ if env is None else env
    merged: dict[str, object] = {}
    if config_file is not None:
        merged.update(_read_toml(config_file))
    env_map = {ENV_LEGACY_URL: "legacy_url", ENV_V1_URL: "v1_url", ENV_STATE: "state"}
    merged.update({key: environ[var] for var, key in env_map.items() if environ.get(var)})
    merged.update({k: v for k, v in (overrides or {}).items() if v is not None})
    for secret_key in ("legacy_key", "token"):
        if secret_key in merged:
            # An option value lands in shell history and process lists; refuse it without echoing it.
            raise ConfigError(f"{secret_key} cannot be given as an option; use the environment or {secret_key}_file")

    secrets: dict[str, Secret] = {}
    for file_key, secret_key in _SECRET_FILE_KEYS.items():
        if file_key in merged:
            secrets[secret_key] = _read_secret_file(Path(str(merged.pop(file_key))), secret_key)
    for var, secret_key in ((ENV_LEGACY_KEY, "legacy_key"), (ENV_TOKEN, "token")):
        if environ.get(var):
            secrets[secret_key] = Secret(environ[var])

    unknown = set(merged) - _PLAIN_KEYS
    extra = {key: merged.pop(key) for key in sorted(unknown)}
    plain = {name: _coerce(name, value) for name, value in merged.items()}
    settings = Settings(**plain, extra=extra)  # type: ignore[arg-type]
    return replace(settings, **secrets)  # type: ignore[arg-type]
