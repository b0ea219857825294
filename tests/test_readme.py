"""The README cannot drift from the code: its assumptions table, commands, variables and config keys are real.

The assumptions section (between ``<!-- assumptions:start -->`` and ``<!-- assumptions:end -->``) is exactly
``bridge.assumptions.as_markdown()``. Regenerate it with ``REGENERATE`` below (``bridge assumptions`` prints
the same table).
"""

from __future__ import annotations

import re
from pathlib import Path

import click

from bridge import config
from bridge.assumptions import as_markdown
from bridge.cli import cli
from bridge.config import load_settings

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"
START, END = "<!-- assumptions:start -->\n", "<!-- assumptions:end -->"
REGENERATE = (
    ".venv/bin/python -c 'import pathlib; from bridge.assumptions import as_markdown; "
    'p = pathlib.Path("README.md"); t = p.read_text(); '
    's, e = "<!-- assumptions:start -->\\n", "<!-- assumptions:end -->"; '
    "p.write_text(t[: t.index(s) + len(s)] + as_markdown() + t[t.index(e) :])'"
)


def _text() -> str:
    return README.read_text(encoding="utf-8")


def _command(name: str) -> click.Command:
    """A `bridge` subcommand, loaded as the CLI loads it (subcommands are imported on first use)."""
    command = cli.get_command(click.Context(cli), name)
    assert command is not None, f"`bridge {name}` is not a command"
    return command


def test_assumptions_section_is_generated_from_the_registry() -> None:
    """The README's assumptions table equals the registry's rendering, so a new guess cannot go undocumented."""
    text = _text()
    assert text.count(START) == 1, f"README.md needs exactly one {START.strip()} marker"
    assert text.count(END) == 1, f"README.md needs exactly one {END} marker"
    section = text[text.index(START) + len(START) : text.index(END)]
    assert section == as_markdown(), f"the README's assumptions table is stale; regenerate it with:\n{REGENERATE}"


def test_every_bridge_command_the_readme_names_exists() -> None:
    """Each `bridge <command>` in the README is a registered subcommand of the CLI."""
    named = set(re.findall(r"`bridge ([a-z]+)", _text()))
    assert named, "the README names no bridge command"
    missing = sorted(named - set(cli.list_commands(click.Context(cli))))
    assert not missing, f"README.md names bridge commands the CLI does not have: {missing}"


def test_every_make_target_the_readme_names_exists() -> None:
    """`make demo`, `make test` and the others the README names are Makefile targets."""
    makefile = (REPO / "Makefile").read_text(encoding="utf-8")
    targets = set(re.findall(r"^([a-z]+):", makefile, flags=re.MULTILINE))
    named = set(re.findall(r"`make ([a-z]+)`", _text()))
    assert {"demo", "test"} <= named
    assert named <= targets, f"README.md names make targets the Makefile lacks: {sorted(named - targets)}"


def test_every_environment_variable_the_readme_names_is_read_by_the_settings() -> None:
    """The README's BRIDGE_* variables are exactly the ones bridge.config reads."""
    read = {value for name, value in vars(config).items() if name.startswith("ENV_") and isinstance(value, str)}
    named = set(re.findall(r"\bBRIDGE_[A-Z0-9_]+", _text()))
    assert named == read


def test_the_readme_config_example_loads_with_no_unknown_key(tmp_path: Path) -> None:
    """The TOML example is a working --config file: every key is a setting the bridge knows."""
    example = re.search(r"```toml\n(.*?)```", _text(), flags=re.DOTALL)
    assert example is not None, "README.md has no ```toml example"
    body = example.group(1)
    for secret_file in re.findall(r'_file = "([^"]+)"', body):
        body = body.replace(secret_file, str(tmp_path / Path(secret_file).name))
        (tmp_path / Path(secret_file).name).write_text("a-secret-of-sixteen-chars\n", encoding="utf-8")
    path = tmp_path / "bridge.toml"
    path.write_text(body, encoding="utf-8")
    settings = load_settings(path, env={})  # an unknown key would be refused here
    assert settings.legacy_key is not None
    assert settings.token is not None
    assert settings.concurrency == 8


def test_every_option_the_readme_tabulates_exists_on_the_migration_commands() -> None:
    """The configuration table's --options are options of `bridge run` or `bridge verify`."""
    table = _text().split("## Configuration", 1)[1].split("## Exit codes", 1)[0]
    named = set(re.findall(r"`(--[a-z0-9-]+)`", table)) - {"--config"}
    known = {opt for name in ("run", "verify") for param in _command(name).params for opt in param.opts}
    assert named <= known, f"README.md tabulates options the commands lack: {sorted(named - known)}"
