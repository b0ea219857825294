"""The fleet manifest: one ``[[workspace]]`` table per workspace to move, and the settings each step builds.

::

    [[workspace]]
    name = "ws-01"                        # unique; the migration's name (its keys' namespace, its state schema)
    legacy_url = "https://legacy.example/api/v1"
    legacy_key_file = "ws-01.legacy-key"   # or legacy_key_env = "WS01_LEGACY_KEY"
    v1_url = "https://api.example/v1"
    token_file = "ws-01.token"             # or token_env = "WS01_TOKEN"
    projects = ["p_1", "p_2"]             # optional: only these legacy projects
    concurrency = 8                        # optional: this workspace's requests in flight

Secrets are never in the manifest: it names a file (a relative path is relative to the manifest's folder) or
an environment variable, and a worker reads it when a step starts. The queued workflow therefore holds the
path or the variable's name, never a key, and a worker on another machine needs the same file or variable.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Self

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from bridge.config import ENV_LEGACY_KEY, ENV_TOKEN, Settings, load_settings
from bridge.errors import ConfigError, UsageError
from bridge.terminal import shown

NAME = re.compile(r"^[a-z0-9][a-z0-9-]{0,62}$")


class WorkspaceSpec(BaseModel):
    """One workspace of a manifest, with its file paths made absolute (what a queued workflow carries)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: Annotated[str, Field(pattern=NAME.pattern)]
    legacy_url: str
    legacy_key_file: Path | None = None
    legacy_key_env: str | None = None
    v1_url: str
    token_file: Path | None = None
    token_env: str | None = None
    projects: tuple[str, ...] = ()
    concurrency: Annotated[int, Field(ge=1, le=64)] | None = None

    @model_validator(mode="after")
    def _one_source_per_secret(self) -> Self:
        for what, file, env in (
            ("legacy key", self.legacy_key_file, self.legacy_key_env),
            ("token", self.token_file, self.token_env),
        ):
            if (file is None) == (env is None):
                field = "legacy_key" if what == "legacy key" else "token"
                raise ValueError(f"give the {what} as exactly one of {field}_file or {field}_env")
        return self

    def check_secrets(self, state: str) -> None:
        """Read the key and the token the manifest names, as a step will: a file or value that cannot serve
        is a ConfigError (exit 2) naming the workspace's setting and the file, before anything is queued."""
        try:
            settings = self.settings(state)
            settings.require_legacy()
            settings.require_v1()
        except ConfigError as exc:
            exc.add_note(f"in the manifest's workspace {self.name} (legacy_key_file / token_file name the files)")
            raise

    def settings(self, state: str, **extra: object) -> Settings:
        """The settings of this workspace's run: its URLs and secrets, the fleet's state, its name as migration.

        The secrets come only from what the manifest names: a worker's own BRIDGE_* variables never leak into
        another workspace's run.
        """
        options: dict[str, object] = {
            "legacy_url": self.legacy_url,
            "v1_url": self.v1_url,
            "state": state,
            "migration": self.name,
            "projects": self.projects,
            **extra,
        }
        if self.concurrency is not None:
            options["concurrency"] = self.concurrency
        env: dict[str, str] = {}
        for file_key, file, env_key, variable in (
            ("legacy_key_file", self.legacy_key_file, ENV_LEGACY_KEY, self.legacy_key_env),
            ("token_file", self.token_file, ENV_TOKEN, self.token_env),
        ):
            if file is not None:
                options[file_key] = file
            elif variable is not None:
                value = os.environ.get(variable)
                if not value:
                    raise ConfigError(
                        f"workspace {self.name}: the environment variable {variable} the manifest names is not set "
                        "on this machine"
                    )
                env[env_key] = value
        return load_settings(None, options, env)


def parse_manifest(text: str, folder: Path, where: str) -> tuple[WorkspaceSpec, ...]:
    """The workspaces of a manifest's text; relative paths are taken from ``folder``. Errors name the table."""
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"{where} is not TOML: {exc}") from None
    unknown = sorted(set(document) - {"workspace"})
    if unknown:
        raise UsageError(f"{where}: unknown top-level key(s) {', '.join(map(repr, unknown))}; expected [[workspace]]")
    tables = document.get("workspace")
    if not isinstance(tables, list) or not tables:
        raise UsageError(f"{where} lists no workspace: add one [[workspace]] table per workspace")
    specs: list[WorkspaceSpec] = []
    for index, table in enumerate(tables, start=1):
        label = f"{where}, workspace {index}" + (
            f" ({shown(str(table.get('name')))})" if isinstance(table, Mapping) and "name" in table else ""
        )
        specs.append(_spec(table, folder, label))
    names = [spec.name for spec in specs]
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise UsageError(f"{where}: workspace name(s) used twice: {', '.join(repeated)}; each names one migration")
    return tuple(specs)


def _spec(table: object, folder: Path, label: str) -> WorkspaceSpec:
    if not isinstance(table, Mapping):
        raise UsageError(f"{label}: expected a table of settings")
    values = dict(table)
    for key in ("legacy_key_file", "token_file"):
        if isinstance(values.get(key), str):
            # Made absolute, not resolved: a broken or looping link is for the secret's reading to refuse.
            values[key] = Path(os.path.abspath(folder / values[key]))
    try:
        return WorkspaceSpec.model_validate(values)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in error['loc']) or 'table'}: {error['msg']}" for error in exc.errors()
        )
        raise UsageError(f"{label}: {shown(problems)}") from None


def load_manifest(path: Path) -> tuple[WorkspaceSpec, ...]:
    """Read and check a manifest file."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except OSError as exc:
        raise UsageError(f"cannot read the manifest {path}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise UsageError(f"the manifest {path} is not UTF-8 text") from None
    return parse_manifest(text, path.resolve().parent, str(path))
