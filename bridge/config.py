"""Run settings: one frozen value built by pydantic-settings from the options, the environment and a TOML file.

Precedence, highest first, for every setting alike (secrets included): a command-line option, the environment,
the ``--config`` TOML file, the default. Each layer is a settings source; pydantic-settings merges them. Secrets
(the legacy key and the v1 token) are read only from the environment or from a file named by
``--legacy-key-file`` / ``legacy_key_file`` (``--token-file`` / ``token_file``); never from a plain option or the
TOML file itself, so they never sit in shell history, process lists or a config file that gets committed.

What the operator gives is checked at the door (``load_settings``): unknown TOML keys are refused with a
suggestion, base URLs must carry the documented base path, no credentials, and ``https`` unless the host is a
loopback one (a bearer token must not cross a network in clear).
"""

from __future__ import annotations

import difflib
import hashlib
import ipaddress
import os
import stat
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated
from urllib.parse import urlsplit

import click
from pydantic import Field, ValidationError, ValidationInfo, field_validator
from pydantic.fields import FieldInfo
from pydantic_settings import BaseSettings, InitSettingsSource, PydanticBaseSettingsSource, SettingsConfigDict

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
class _KeyFile:
    """A secret named by its file: read only if its layer wins, so a losing layer's stale path is harmless."""

    path: Path


# A key or a token is a few hundred characters at most; a secret file larger than this is the wrong file.
SECRET_FILE_MAX_BYTES = 64 * 1024


def _read_secret_file(key_file: _KeyFile, name: str) -> Secret:
    """The secret a file holds; every refusal is a ConfigError naming the setting and the file."""
    path = key_file.path
    raw, _ = read_key_file(path, name)
    try:
        # utf-8-sig drops the byte-order mark an editor on Windows writes; the line's end is stripped below.
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{name} file {path} is not UTF-8 text") from exc
    if not text.strip():
        raise ConfigError(f"{name} file {path} is empty: write the {name} into it")
    return secret_value(text, name, f"file {path}")


def read_key_file(path: Path, name: str) -> tuple[bytes, int]:
    """The bytes of a key file and its mode. Only a regular file is read (a FIFO would block for ever and a
    device never ends), at most ``SECRET_FILE_MAX_BYTES``; a refusal is a ConfigError naming ``name`` and the
    file."""
    try:
        # O_NONBLOCK: opening a FIFO with no writer returns at once instead of waiting for one.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        raise ConfigError(f"cannot read {name} from {path}: {exc.strerror}") from exc
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):  # checked before fdopen, which refuses a directory with an error of its own
        os.close(fd)
        raise ConfigError(f"{name} file {path} is not a regular file ({_file_type(mode)}): name the file itself")
    with os.fdopen(fd, "rb") as file:
        raw = file.read(SECRET_FILE_MAX_BYTES + 1)
    if len(raw) > SECRET_FILE_MAX_BYTES:
        raise ConfigError(f"{name} file {path} is larger than {SECRET_FILE_MAX_BYTES // 1024} KiB: not a key file")
    return raw, mode


def _file_type(mode: int) -> str:
    kinds = {
        "a directory": stat.S_ISDIR,
        "a FIFO": stat.S_ISFIFO,
        "a character device": stat.S_ISCHR,
        "a block device": stat.S_ISBLK,
        "a socket": stat.S_ISSOCK,
    }
    return next((said for said, test in kinds.items() if test(mode)), "not a plain file")


def secret_value(text: str, name: str, where: str) -> Secret:
    """``text`` (surrounding blanks and the line's end dropped) as a Secret, if it can be one: the published
    schemes (an API key header, a bearer token) carry printable ASCII without spaces, so anything else is a
    wrong file or a pasting accident, refused naming the setting and where it came from (never the value)."""
    value = text.strip()
    if not value:
        raise ConfigError(f"{name} from {where} is empty: set it")
    odd = next((c for c in value if not "!" <= c <= "~"), None)
    if odd is not None:
        what = "a space or line break" if odd.isspace() else f"the character U+{ord(odd):04X}"
        raise ConfigError(
            f"{name} from {where} holds {what}: a key or token is printable ASCII without spaces; "
            "write the value alone on one line"
        )
    return Secret(value)


class Settings(BaseSettings):
    """Everything one run needs; ``load_settings`` builds it from what the operator gave. Built in code with
    keyword arguments, it takes exactly those (no environment, no file)."""

    model_config = SettingsConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)

    legacy_url: str = ""
    # Excluded from every dump: a Secret leaves the object only through reveal().
    legacy_key: Annotated[Secret | None, Field(exclude=True)] = None
    v1_url: str = ""
    token: Annotated[Secret | None, Field(exclude=True)] = None
    # A file path or a SQLAlchemy URL (anything with "://"), kept as text so a URL is never mangled.
    state: str = "bridge-state.db"
    migration: str = "default"
    projects: tuple[str, ...] = ()
    # Kinds left behind (``--without``) and extras asked for (``--with``), as named; ``engine.choices`` checks
    # the names against the declared kinds.
    without: tuple[str, ...] = ()
    extras: tuple[str, ...] = ()
    concurrency: Annotated[int, Field(ge=1, le=64)] = 8
    log_file: Path | None = None
    report_dir: Path = Path("reports")
    # Seconds one request may take in all, from connect to the body's last byte.
    request_timeout: Annotated[float, Field(gt=0, allow_inf_nan=False)] = REQUEST_TIMEOUT_S
    retry_ratio: Annotated[float, Field(ge=0, allow_inf_nan=False)] = 0.1
    max_response_bytes: Annotated[int, Field(ge=1)] = MAX_RESPONSE_BYTES
    max_list_pages: Annotated[int, Field(ge=1)] = MAX_LIST_PAGES
    # A legacy file above this many bytes is not carried (quarantined with its size): legacy publishes "up to
    # 10 MB" (A78: 10 MiB), and one MiB above it leaves room for rounding (``clients.transfer``).
    max_file_bytes: Annotated[int, Field(ge=1)] = 11 * 1024 * 1024
    # Where downloads wait for their upload (0600 files) and their hashes are kept for verify; beside the state
    # file when not set (``<state>.spool``; see ``spool`` for a state database given as a URL).
    spool_dir: Path | None = None

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        # Only the keyword arguments: load_settings passes the operator's layers itself.
        return (init_settings,)

    @field_validator("legacy_key", "token", mode="before")
    @classmethod
    def _secret(cls, value: object, info: ValidationInfo) -> object:
        return _read_secret_file(value, str(info.field_name)) if isinstance(value, _KeyFile) else value

    @field_validator("state", mode="before")
    @classmethod
    def _state_text(cls, value: object) -> object:
        return str(value) if isinstance(value, Path) else value

    @field_validator("projects", "without", "extras", mode="before")
    @classmethod
    def _comma_list(cls, value: object, info: ValidationInfo) -> object:
        """A comma-separated text; for the choices also each item of a list (``--without a,b --without c``).
        A project id given as an option stays whole."""
        if isinstance(value, str):
            value = [value]
        elif info.field_name == "projects" or not isinstance(value, list | tuple):
            return value
        return tuple(part.strip() for item in value for part in str(item).split(",") if part.strip())

    @field_validator("legacy_url", "v1_url")
    @classmethod
    def _no_trailing_slash(cls, value: str) -> str:
        return value.rstrip("/")

    def require_legacy(self) -> tuple[str, Secret]:
        """The legacy base URL and key, or a ConfigError naming what is missing and where to set it."""
        if not self.legacy_url:
            raise ConfigError(f"no legacy base URL: set {ENV_LEGACY_URL} or legacy_url in the --config file")
        if self.legacy_key is None:
            raise ConfigError(f"no legacy API key: set {ENV_LEGACY_KEY} or legacy_key_file in the --config file")
        return self.legacy_url, self.legacy_key

    def require_v1(self) -> tuple[str, Secret]:
        """The v1 base URL and token, or a ConfigError naming what is missing and where to set it."""
        if not self.v1_url:
            raise ConfigError(f"no v1 base URL: set {ENV_V1_URL} or v1_url in the --config file")
        if self.token is None:
            raise ConfigError(f"no v1 token: set {ENV_TOKEN} or token_file in the --config file")
        return self.v1_url, self.token

    def spool(self) -> Path:
        """The spool directory: ``spool_dir``, else beside the state file; for a state database given as a URL,
        ``bridge-spool/<digest of the URL and migration>`` in the working directory (the URL itself, which may
        hold a password, is never a path)."""
        if self.spool_dir is not None:
            return self.spool_dir
        if "://" in self.state:
            named = hashlib.sha256(f"{self.state}\n{self.migration}".encode()).hexdigest()[:16]
            return Path("bridge-spool") / named
        return Path(f"{self.state}.spool")


SECRETS = {"legacy_key": "legacy_key_file", "token": "token_file"}
_FILE_KEYS = {file_key: name for name, file_key in SECRETS.items()}
_ENVIRONMENT = {ENV_LEGACY_URL: "legacy_url", ENV_LEGACY_KEY: "legacy_key", ENV_V1_URL: "v1_url"}
_ENVIRONMENT |= {ENV_TOKEN: "token", ENV_STATE: "state"}
_BASES = {"legacy_url": LEGACY_BASE, "v1_url": V1_BASE}
_OPTION_NAMES = {
    "legacy_key": "--legacy-key-file",
    "token": "--token-file",
    "projects": "--project",
    "extras": "--with",
}
# Values never echoed in a message: secrets, and URLs that may carry credentials.
_UNSHOWN = {"legacy_key", "token", "legacy_url", "v1_url", "state"}


def _settable() -> list[str]:
    return [name for name in Settings.model_fields if name not in SECRETS] + list(_FILE_KEYS)


def _with_key_files(values: Mapping[str, object], where: str) -> dict[str, object]:
    """A layer's values with ``*_file`` keys turned into the secret they name; a plain secret is refused."""
    layer: dict[str, object] = {}
    for key, value in values.items():
        if key in SECRETS:
            # An option value lands in shell history and process lists, a TOML file in version control.
            raise ConfigError(f"{key} cannot be given in {where}: use {SECRETS[key]} or the environment")
        if key in _FILE_KEYS:
            layer[_FILE_KEYS[key]] = _KeyFile(Path(str(value)))
        else:
            layer[key] = value
    return layer


def stray_variables(environ: Mapping[str, str]) -> list[str]:
    """A warning for each BRIDGE_* variable that is no setting but is close to one (a typo would otherwise leave
    the setting unset and blame it instead); it names the variable, never its value."""
    return [
        f"warning: {variable} is not a setting; did you mean {near[0]}?"
        for variable in sorted(environ)
        if variable.startswith("BRIDGE_") and variable not in _ENVIRONMENT
        for near in [difflib.get_close_matches(variable, _ENVIRONMENT, n=1)]
        if near
    ]


class _Environment(PydanticBaseSettingsSource):
    """The BRIDGE_* variables (an empty one counts as unset); secrets are wrapped at once, so even a debug
    dump of this layer shows them masked."""

    def __init__(self, settings_cls: type[BaseSettings], environ: Mapping[str, str]) -> None:
        super().__init__(settings_cls)
        self.names: dict[str, str] = {}
        self.values: dict[str, object] = {}
        for variable, name in _ENVIRONMENT.items():
            if environ.get(variable):
                self.names[name] = variable
                given = environ[variable]
                self.values[name] = secret_value(given, name, variable) if name in SECRETS else given

    def get_field_value(self, field: FieldInfo, field_name: str) -> tuple[object, str, bool]:
        return self.values.get(field_name), field_name, False

    def __call__(self) -> dict[str, object]:
        return dict(self.values)


class _TomlFile(PydanticBaseSettingsSource):
    """The ``--config`` file: top-level keys or a ``[bridge]`` table; an unknown key is refused with the
    nearest known one, so a typo never silently leaves a default in force."""

    def __init__(self, settings_cls: type[BaseSettings], path: Path | None) -> None:
        super().__init__(settings_cls)
        self.path = path
        self.values = {} if path is None else _with_key_files(self._read(path), f"the --config file {path}")

    @staticmethod
    def _read(path: Path) -> dict[str, object]:
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
        known = _settable()
        for key in table:
            if key not in known and key not in SECRETS:
                near = difflib.get_close_matches(key, known, n=1)
                hint = f"did you mean {near[0]!r}?" if near else f"known settings: {', '.join(sorted(known))}"
                raise ConfigError(f"unknown setting {key!r} in {path}: {hint}")
        return dict(table)

    def get_field_value(self, field: FieldInfo, field_name: str) -> tuple[object, str, bool]:
        return self.values.get(field_name), field_name, False

    def __call__(self) -> dict[str, object]:
        return dict(self.values)


@dataclass(frozen=True, slots=True)
class Source:
    """Where one setting's value came from, for ``bridge config show`` and error messages."""

    layer: str  # "option", "environment", "TOML file" or "default"
    detail: str = ""  # the option, the variable or the file
    key_file: Path | None = None  # for a secret named by its file: that file

    def __str__(self) -> str:
        return f"{self.layer} {self.detail}".strip()


def _source(layer: str, detail: str, value: object) -> Source:
    return Source(layer, detail, value.path if isinstance(value, _KeyFile) else None)


def _sources_of(options: Mapping[str, object], environment: _Environment, toml: _TomlFile) -> dict[str, Source]:
    """Each setting's layer: the highest one holding it (the order pydantic-settings merges them in)."""
    found: dict[str, Source] = {}
    for name in Settings.model_fields:
        if name in options:
            found[name] = _source("option", _OPTION_NAMES.get(name, "--" + name.replace("_", "-")), options[name])
        elif name in environment.values:
            found[name] = Source("environment", environment.names[name])
        elif name in toml.values:
            found[name] = _source("TOML file", str(toml.path), toml.values[name])
        else:
            found[name] = Source("default")
    return found


def _check_url(url: str, base: str, setting: str) -> None:
    """A base URL must be http(s) with the surface's documented base path (any other path answers every call
    with 404, which would look like records missing at the source), carry no credentials, and use https
    unless the host is this machine (a bearer token or key must not cross a network in clear)."""
    parts = urlsplit(url)
    # Shown without any user:password@ part, which must never reach a terminal.
    shown = parts._replace(netloc=parts.netloc.rpartition("@")[2], query="", fragment="").geturl()
    if parts.scheme not in {"http", "https"} or not parts.netloc:
        raise ConfigError(f"{setting} {shown!r} is not an http(s) URL")
    if "@" in parts.netloc:
        raise ConfigError(
            f"{setting} {shown!r} holds a user name or password: remove it; the bridge authenticates with the "
            "legacy key and the v1 token alone"
        )
    if parts.scheme == "http" and not _loopback(parts.hostname or ""):
        raise ConfigError(
            f"{setting} {shown!r} is plain http to another host: use https (http is accepted only for "
            "127.0.0.0/8, ::1 and localhost)"
        )
    if not parts.path.rstrip("/").endswith(base):
        raise ConfigError(f"{setting} {shown!r} must end in the surface's base path {base}")


def _loopback(host: str) -> bool:
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _invalid(error: ValidationError, sources: Mapping[str, Source]) -> ConfigError:
    """The first problem pydantic found, naming the setting and its layer; secrets and URLs never echoed."""
    first = error.errors(include_url=False)[0]
    name = str(first["loc"][0]) if first["loc"] else ""
    where = sources.get(name, Source("default"))
    value = "" if name in _UNSHOWN else f" {first['input']!r}"
    reason = str(first["msg"]).removeprefix("Value error, ")
    return ConfigError(f"setting {name!r} (from {where}) has an invalid value{value}: {reason}")


def explain_settings(
    config_file: Path | None = None,
    overrides: Mapping[str, object] | None = None,
    env: Mapping[str, str] | None = None,
) -> tuple[Settings, dict[str, Source]]:
    """The settings and where each came from (None values and empty tuples in overrides count as not given)."""
    given = {k: str(v) if k in _FILE_KEYS else v for k, v in (overrides or {}).items() if v is not None and v != ()}
    options = _with_key_files(given, "an option")
    if env is None:
        # Only the process's own environment: a fleet entry's mapping is checked by its manifest.
        for warning in stray_variables(os.environ):
            click.echo(warning, err=True)
    environment = _Environment(Settings, os.environ if env is None else env)
    toml = _TomlFile(Settings, config_file)
    sources = _sources_of(options, environment, toml)
    layers = (InitSettingsSource(Settings, init_kwargs=options), environment, toml)
    try:
        settings = Settings(_build_sources=(layers, {}))
    except ValidationError as exc:
        raise _invalid(exc, sources) from None
    for name, base in _BASES.items():
        url = getattr(settings, name)
        if url:
            _check_url(url, base, f"{name} (from {sources[name]})")
    return settings, sources


def load_settings(
    config_file: Path | None = None,
    overrides: Mapping[str, object] | None = None,
    env: Mapping[str, str] | None = None,
) -> Settings:
    """Settings from the overrides (options), the environment and a TOML file, in that precedence."""
    return explain_settings(config_file, overrides, env)[0]
