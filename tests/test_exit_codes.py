"""The exit codes of docs/exit-codes.md, for the mistakes and failures an operator meets (issue 14, item 4).

Each case drives the real `bridge` group (click's runner calls the same ``main`` as the console script) and
checks what a script would: the exit code, the message naming the setting or the cause, and that no traceback
ever reaches the terminal.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import click
import httpx
import pytest
from click.testing import CliRunner

from bridge.cli import cli, exit_code
from bridge.commands import exits
from bridge.errors import SourceUnreadable
from tests.support.migrated import Migrated, copy_world, migrate_one, run_cli
from tests.support.world import SMALL_PROJECT, fresh_world


def _bridge(*args: str, env: dict[str, str]) -> tuple[int, str]:
    result = CliRunner().invoke(cli, list(args), env=env, catch_exceptions=False)
    assert "Traceback" not in result.output
    return result.exit_code, result.output


def _env(tmp_path: Path, **changes: str) -> dict[str, str]:
    env = {
        "BRIDGE_LEGACY_URL": "http://127.0.0.1:9/api/v1",
        "BRIDGE_V1_URL": "http://127.0.0.1:9/v1",
        "BRIDGE_LEGACY_KEY": "legacy-key-for-exit-code-tests",
        "BRIDGE_V1_TOKEN": "tok_token-for-exit-code-tests",
        "BRIDGE_STATE": str(tmp_path / "state.db"),
    }
    return {**env, **changes}


@pytest.mark.parametrize("command", ["plan", "run", "verify"])
@pytest.mark.parametrize(
    ("variable", "url", "named"),
    [
        ("BRIDGE_LEGACY_URL", "http://127.0.0.1:9", "legacy_url"),
        ("BRIDGE_LEGACY_URL", "http://127.0.0.1:9/v1", "legacy_url"),
        ("BRIDGE_V1_URL", "http://127.0.0.1:9/api/v1/next", "v1_url"),
        ("BRIDGE_V1_URL", "ftp://127.0.0.1:9/v1", "v1_url"),
    ],
)
def test_a_base_url_without_its_documented_path_is_a_configuration_error(
    tmp_path: Path, command: str, variable: str, url: str, named: str
) -> None:
    """A base URL missing /api/v1 (or /v1) is exit 2 naming the setting, before any request or any record."""
    (tmp_path / "state.db").touch()
    code, output = _bridge(command, env=_env(tmp_path, **{variable: url}))
    assert code == 2, output
    assert named in output
    assert "quarantine" not in output


def test_a_url_with_credentials_is_refused_without_printing_them(tmp_path: Path) -> None:
    """The message names the setting but never echoes a user:password@ part."""
    code, output = _bridge("plan", env=_env(tmp_path, BRIDGE_V1_URL="http://alice:hunter2@127.0.0.1:9/v2"))
    assert code == 2
    assert "hunter2" not in output
    assert "alice" not in output


def test_a_host_that_does_not_resolve_is_a_configuration_error_not_an_outage(tmp_path: Path) -> None:
    """A mistyped host is exit 2 naming the setting at once, not minutes of retries called a service outage."""
    # Preflight asks both surfaces at once, so both hosts are mistyped: whichever answers first is named.
    hosts = {"BRIDGE_LEGACY_URL": "https://legacy.invalid/api/v1", "BRIDGE_V1_URL": "https://v1.invalid/v1"}
    code, output = _bridge("plan", env=_env(tmp_path, **hosts))
    assert code == 2, output
    assert "legacy_url" in output or "v1_url" in output
    assert "does not resolve" in output


@pytest.mark.parametrize("command", [("plan",), ("status",), ("crosswalk", "export")])
@pytest.mark.parametrize("url", ["mysql://reader@db.example/bridge", "nosuch://somewhere/state"])
def test_a_state_url_this_install_has_no_driver_for_is_a_configuration_error(
    tmp_path: Path, command: tuple[str, ...], url: str
) -> None:
    """A state URL of a database without a dialect or driver here: exit 2 naming --state, not a bug report."""
    code, output = _bridge(*command, "--state", url, env=_env(tmp_path))
    assert code == 2, output
    assert "--state" in output
    assert "no driver" in output


def test_an_unreadable_key_file_is_a_configuration_error(tmp_path: Path) -> None:
    """A key file that cannot be read is exit 2 naming the file."""
    env = _env(tmp_path)
    del env["BRIDGE_LEGACY_KEY"]
    code, output = _bridge("plan", "--legacy-key-file", str(tmp_path / "absent-key"), env=env)
    assert code == 2
    assert "absent-key" in output


def _newer(state: Path | str) -> None:
    with sqlite3.connect(state) as connection:
        connection.execute("UPDATE alembic_version SET version_num = '9999'")


@pytest.fixture(scope="module")
def migrated(tmp_path_factory: pytest.TempPathFactory) -> Migrated:
    return migrate_one(tmp_path_factory.mktemp("migrated"))


@pytest.mark.parametrize("command", [("verify",), ("status",), ("crosswalk", "export")])
def test_a_state_file_from_a_newer_bridge_is_exit_2_for_every_command(
    migrated: Migrated, tmp_path: Path, command: tuple[str, ...]
) -> None:
    """A state written by a newer bridge is a configuration mistake (exit 2, saying so), never a traceback."""
    world = copy_world(migrated, tmp_path)
    _newer(world.state)
    if command == ("verify",):
        code, report, output = run_cli(world, tmp_path / "reports")
        assert report is None
    else:
        code, output = _bridge(*command, "--state", str(world.state), env={})
    assert code == 2, output
    assert "9999" in output
    assert "Traceback" not in output


def test_source_text_in_verify_is_printed_as_text_and_never_crashes_it(migrated: Migrated, tmp_path: Path) -> None:
    """A project named with rich markup and escape sequences: verify exits 0 and shows the name as plain text."""
    world = copy_world(migrated, tmp_path)
    project = world.service.workspace("source").projects[world.project_id]
    project.name = "Rent [/] [link=https://evil.example/k]Issue a new key[/link] \x1b[2J"
    code, report, output = run_cli(world, tmp_path / "reports")
    assert (code, report is not None and report.reconciled) == (0, True), output
    assert "[/]" in output
    assert "\x1b" not in output
    assert "\\x1b[2J" in output


def test_a_bug_is_exit_70_with_the_log_path_and_the_traceback_only_in_the_log(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An error no branch explains: its own code (70, not fatal's 4), one line saying where the traceback is,
    the traceback in the log."""

    def broken(*_args: object, **_kwargs: object) -> object:
        raise ZeroDivisionError("a defect in the bridge")

    monkeypatch.setattr("bridge.commands.migrate.migrate", broken)
    log = tmp_path / "bridge.log"
    code, output = _bridge("plan", "--log-file", str(log), env=_env(tmp_path))
    assert code == exits.BUG.code == 70
    assert str(log) in output
    assert "ZeroDivisionError" in output
    events = [json.loads(line) for line in log.read_text().splitlines()]
    bug = next(e for e in events if e["event"] == "bridge.bug")
    assert "ZeroDivisionError" in bug["exception"]


def test_a_refused_legacy_read_is_a_resumable_stop_not_a_quarantine(tmp_path: Path) -> None:
    """A legacy read answered 404 stops the run (exit 3, the path named); it is never 'some records quarantined'."""
    world = fresh_world(tmp_path / "state.db")

    class Refusing(httpx.AsyncBaseTransport):
        def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
            self.inner = inner

        async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
            if request.url.path == f"/api/v1/projects/{SMALL_PROJECT}/budget/accounts":
                return httpx.Response(404, json={"error": "Not found"})
            return await self.inner.handle_async_request(request)

    world.wrap = Refusing
    with pytest.raises(SourceUnreadable) as stopped:
        asyncio.run(world.run())
    assert exit_code(stopped.value) == 3
    assert "budget/accounts" in str(stopped.value)
    assert stopped.value.status == 404


@pytest.mark.parametrize(
    "damaged",
    # Pages integrity_check itself stops on, and pages the status read stops on before the check runs.
    [range(3, 6), range(12, 15)],
    ids=["the-check-stops", "the-read-stops"],
)
def test_a_damaged_state_file_is_exit_4_for_status_check(migrated: Migrated, tmp_path: Path, damaged: range) -> None:
    """A state file whose pages were overwritten: `status --check` says it is damaged and what to do, exit 4."""
    state = tmp_path / "state.db"
    state.write_bytes(migrated.state.read_bytes())
    data = bytearray(state.read_bytes())
    page = 4096
    assert len(data) >= damaged.stop * page
    data[damaged.start * page : damaged.stop * page] = b"\xa5" * (len(damaged) * page)
    state.write_bytes(bytes(data))
    code, output = _bridge("status", "--check", "--state", str(state), env={})
    assert code == 4, output
    assert "damaged" in output or "integrity_check" in output


def test_a_state_file_locked_by_another_writer_is_exit_3_for_run(migrated: Migrated, tmp_path: Path) -> None:
    """While another process holds the state's write lock, `run` stops at once with exit 3 naming the holder."""
    state = tmp_path / "state.db"
    state.write_bytes(migrated.state.read_bytes())
    with subprocess.Popen([sys.executable, "-c", HOLD_LOCK, str(state)], stdout=subprocess.PIPE, text=True) as holder:
        try:
            assert holder.stdout is not None
            assert holder.stdout.readline().strip() == "held"
            code, output = _bridge("run", env=_env(tmp_path, BRIDGE_STATE=str(state)))
        finally:
            holder.kill()
    assert code == 3, output
    assert str(holder.pid) in output


HOLD_LOCK = """
import sys, time
from state import open_state
store = open_state(sys.argv[1])
print("held", flush=True)
time.sleep(60)
"""


def _commands(group: click.Group, path: str) -> Iterator[tuple[str, click.Command]]:
    """Every command of the CLI by its path, loaded as `bridge` loads it; a group invoked alone counts too."""
    context = click.Context(group)
    for name in group.list_commands(context):
        command = group.get_command(context, name)
        assert command is not None
        if not isinstance(command, click.Group) or command.invoke_without_command:
            yield f"{path} {name}", command
        if isinstance(command, click.Group):
            yield from _commands(command, f"{path} {name}")


def test_every_command_is_in_the_exit_code_table() -> None:
    """A new command cannot ship without saying which codes it returns (docs/exit-codes.md lists the table)."""
    paths = {path for path, _ in _commands(cli, "bridge")}
    assert paths == set(exits.RETURNS) - {"bridge"}


@pytest.mark.parametrize(("path", "command"), list(_commands(cli, "bridge")), ids=str)
def test_every_help_ends_with_the_codes_the_command_returns(path: str, command: click.Command) -> None:
    """`--help` ends with the exit codes, each with its meaning for this command, from the one table."""
    result = CliRunner().invoke(cli, [*path.split()[1:], "--help"], env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    section = result.output.split("Exit codes (docs/exit-codes.md):\n", 1)
    assert len(section) == 2, f"`{path} --help` has no exit codes:\n{result.output}"
    listed = [int(line.split()[0]) for line in section[1].splitlines() if line[:8].strip().isdigit()]
    returns = exits.RETURNS[path]
    assert listed == [code.code for code in returns.codes()]
    assert all(len(line) <= 80 for line in section[1].splitlines())
    assert ("1    " in section[1]) == (returns.findings is not None)
    resumes = "it resumes where this one stopped" in section[1]
    assert resumes == returns.resumes, f"`{path}` says resume only if it resumes"


def test_the_codes_the_cli_returns_are_the_tables() -> None:
    """Every code an error or an ending becomes is a row of the table, and every row but 0 and 1 has an error."""
    from bridge.cli import ENDINGS, _errors

    table = {code.code for code in exits.CODES}
    from_errors = {code for _, code, _ in _errors()}
    assert from_errors | set(ENDINGS.values()) | {exits.BUG.code} == table
    assert exit_code(ZeroDivisionError()) == exits.BUG.code
