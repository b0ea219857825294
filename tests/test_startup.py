"""The CLI starts light: `bridge --help` lists every command without loading one, and `status` and
`config show` import what they use and not the engine, the clients or the servers.

What each command imports is read from a fresh interpreter's ``sys.modules``; how long it takes is measured by
``bench/bench_cli.py``, never here.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from bridge.cli import SUBCOMMANDS, cli
from state import open_state

PROBE = """
import json, sys
from bridge.cli import cli
cli.main(sys.argv[2:], "bridge", standalone_mode=False)
with open(sys.argv[1], "w") as out:
    json.dump(sorted(sys.modules), out)
"""
SERVERS_AND_CLIENTS = ("httpx", "aiohttp", "fastapi", "starlette", "uvicorn", "uvloop", "dbos")
UPPER_LAYERS = ("bridge.engine", "bridge.clients", "bridge.verify", "bridge.fleet", "bridge.emulator")


def _imported(tmp_path: Path, *args: str) -> set[str]:
    """The modules a fresh `bridge ARGS` has loaded when the command returns."""
    out = tmp_path / "modules.json"
    # The caller's BRIDGE_* settings would change what a command reads.
    env = {k: v for k, v in os.environ.items() if not k.startswith("BRIDGE_")}
    subprocess.run([sys.executable, "-c", PROBE, str(out), *args], env=env, capture_output=True, check=True)
    return set(json.loads(out.read_text()))


def _within(modules: set[str], *packages: str) -> list[str]:
    return sorted(m for m in modules if any(m == p or m.startswith(f"{p}.") for p in packages))


def test_help_loads_no_command_and_none_of_their_libraries(tmp_path: Path) -> None:
    """`bridge --help` needs click and the CLI module (with the exit-code table its epilog shows): no command
    module, no settings, no state, no logging."""
    modules = _imported(tmp_path, "--help")
    assert _within(modules, "bridge.commands") == ["bridge.commands", "bridge.commands.exits"]
    assert _within(modules, "state", "pydantic", "sqlalchemy", "structlog", "rich", *SERVERS_AND_CLIENTS) == []


def test_status_reads_the_state_without_the_engine_clients_or_servers(tmp_path: Path) -> None:
    """`bridge status` loads the state store and the terminal, not what talks to a service."""
    with open_state(tmp_path / "state.db"):
        pass
    modules = _imported(tmp_path, "status", "--state", str(tmp_path / "state.db"))
    assert "bridge.commands.state" in modules
    assert _within(modules, *UPPER_LAYERS, *SERVERS_AND_CLIENTS, "bridge.commands.migrate") == []


def test_config_show_reads_the_settings_without_the_state_or_the_engine(tmp_path: Path) -> None:
    """`bridge config show` loads the settings and their options, not the state store nor what a run drives."""
    secret = tmp_path / "secret"
    secret.write_text("a-key-or-token-for-the-probe\n")
    secret.chmod(0o600)
    # Every required setting given: one missing is exit 2, and an error's exit code loads the state's errors.
    urls = ("--legacy-url", "http://127.0.0.1:9/api/v1", "--v1-url", "http://127.0.0.1:9/v1")
    keys = ("--legacy-key-file", str(secret), "--token-file", str(secret))
    modules = _imported(tmp_path, "config", "show", "--state", str(tmp_path / "state.db"), *urls, *keys)
    assert "bridge.commands.config" in modules
    assert _within(modules, "state", "sqlalchemy", *UPPER_LAYERS, *SERVERS_AND_CLIENTS) == []


def _loaded(context: click.Context, name: str) -> click.Command:
    command = cli.get_command(context, name)
    assert command is not None
    return command


@pytest.mark.parametrize("name", sorted(SUBCOMMANDS))
def test_each_listed_summary_is_its_commands_own_first_paragraph(name: str) -> None:
    """The line `bridge --help` lists for a lazy command is the first paragraph of that command's help."""
    command = _loaded(click.Context(cli), name)
    assert command.short_help is None  # else click would list it, not the help's first paragraph
    assert SUBCOMMANDS[name].summary == " ".join((command.help or "").split("\n\n")[0].split())


@pytest.mark.parametrize("width", [50, 80, 200])
def test_the_command_list_is_the_one_click_prints_with_every_command_loaded(width: int) -> None:
    """At any width, `bridge --help` prints what click prints from the commands themselves."""
    context = click.Context(cli)
    loaded = click.Group(
        commands={name: _loaded(context, name) for name in cli.list_commands(context)},
        params=cli.params,
        help=cli.help,
        epilog=cli.epilog,
    )
    lazy = CliRunner().invoke(cli, ["--help"], prog_name="bridge", terminal_width=width)
    eager = CliRunner().invoke(loaded, ["--help"], prog_name="bridge", terminal_width=width)
    assert lazy.exit_code == eager.exit_code == 0
    assert lazy.output == eager.output
