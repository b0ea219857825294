"""Secret files and values are not trusted: whatever a key or token file is, or holds, the command ends with exit 2
naming the setting and the file (never a hang, a 2 GB read or "a bug"), and never echoes what it read."""

from __future__ import annotations

import json
import os
import socket
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from bridge.cli import cli
from bridge.config import ENV_LEGACY_URL, ENV_TOKEN, ENV_V1_URL

SECRET = "lk_canary_file_0123456789"


def _written(content: bytes) -> Callable[[Path], Path]:
    def make(folder: Path) -> Path:
        path = folder / "key"
        path.write_bytes(content)
        return path

    return make


def _fifo(folder: Path) -> Path:
    path = folder / "key.fifo"
    os.mkfifo(path)
    return path


def _loop(folder: Path) -> Path:
    (folder / "a").symlink_to(folder / "b")
    (folder / "b").symlink_to(folder / "a")
    return folder / "a"


def _directory(folder: Path) -> Path:
    return folder


def _socket(folder: Path) -> Path:
    path = folder / "key.sock"
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(str(path))
    listener.close()
    return path


# (case, how the file is made, what the message says of it)
CASES: list[tuple[str, Callable[[Path], Path], str]] = [
    ("device", lambda _: Path("/dev/zero"), "is not a regular file (a character device)"),
    ("fifo", _fifo, "is not a regular file (a FIFO)"),
    ("directory", _directory, "is not a regular file (a directory)"),
    ("socket", _socket, "No such device or address"),
    ("symlink loop", _loop, "cannot read"),
    ("missing", lambda folder: folder / "nowhere", "No such file or directory"),
    ("1 MB", _written(b"k" * 1_000_000), "is larger than 64 KiB"),
    ("empty", _written(b""), "is empty"),
    ("blank", _written(b" \r\n\t\n"), "is empty"),
    ("newline inside", _written(f"{SECRET}\n{SECRET}\n".encode()), "holds a space or line break"),
    ("space inside", _written(f"{SECRET} {SECRET}".encode()), "holds a space or line break"),
    ("control character", _written(f"{SECRET}\x1b[2J".encode()), "holds the character U+001B"),
    ("non-ASCII", _written(f"{SECRET}é".encode()), "holds the character U+00E9"),
    ("BOM inside", _written(f"{SECRET}\ufeff{SECRET}".encode()), "holds the character U+FEFF"),
    ("not UTF-8", _written(b"\xff\xfe\x00k"), "is not UTF-8 text"),
]


@pytest.mark.parametrize(("made", "said"), [(c[1], c[2]) for c in CASES], ids=[c[0] for c in CASES])
@pytest.mark.parametrize("command", [["config", "show"], ["run"], ["plan"]], ids=" ".join)
def test_a_bad_key_file_is_exit_2_naming_the_setting_and_the_file(
    tmp_path: Path, command: list[str], made: Callable[[Path], Path], said: str
) -> None:
    path = made(tmp_path)
    env = {
        ENV_LEGACY_URL: "http://127.0.0.1:9/api/v1",
        ENV_V1_URL: "http://127.0.0.1:9/v1",
        ENV_TOKEN: "tok_0123456789abcdef",
    }
    result = CliRunner().invoke(cli, [*command, "--legacy-key-file", str(path)], env=env)
    output = " ".join(result.output.split())
    assert result.exit_code == 2, output
    assert "legacy_key" in output or "--legacy-key-file" in output  # the setting, or the option that sets it
    assert said in output or (made is _directory and "is a directory" in output)
    assert str(path.name) in output
    assert "Traceback" not in output
    assert SECRET not in output


@pytest.mark.parametrize(("made", "said"), [(c[1], c[2]) for c in CASES], ids=[c[0] for c in CASES])
def test_a_bad_key_file_in_a_fleet_manifest_is_exit_2_before_anything_is_queued(
    tmp_path: Path, made: Callable[[Path], Path], said: str
) -> None:
    """`fleet submit` reads each workspace's secrets before it opens the fleet's database (here unreachable):
    exit 2 naming the setting, the file and the workspace."""
    path = made(tmp_path)
    (tmp_path / "ws.token").write_text("tok_0123456789abcdef\n")
    manifest = tmp_path / "fleet.toml"
    manifest.write_text(
        "[[workspace]]\n"
        'name = "ws-01"\n'
        'legacy_url = "http://127.0.0.1:9/api/v1"\n'
        f"legacy_key_file = {json.dumps(str(path))}\n"
        'v1_url = "http://127.0.0.1:9/v1"\n'
        'token_file = "ws.token"\n'
    )
    result = CliRunner().invoke(
        cli, ["fleet", "submit", str(manifest), "--state", "postgresql://nobody@127.0.0.1:9/none"]
    )
    output = " ".join(result.output.split())
    assert result.exit_code == 2, output
    assert "legacy_key" in output
    assert "workspace ws-01" in output
    assert said in output or (made is _directory and "is a directory" in output)
    assert str(path.name) in output
    assert "Traceback" not in output
    assert SECRET not in output


@pytest.mark.parametrize(
    ("value", "said"),
    [
        ("tok_one two_0123456789", "a space or line break"),
        ("tok_\x07_0123456789", "U+0007"),
        ("tok_ü_0123456", "U+00FC"),
    ],
)
def test_a_bad_token_in_the_environment_is_exit_2_naming_the_variable(value: str, said: str) -> None:
    result = CliRunner().invoke(cli, ["config", "show"], env={ENV_TOKEN: value})
    output = " ".join(result.output.split())
    assert result.exit_code == 2, output
    assert f"token from {ENV_TOKEN} holds" in output
    assert said in output
    assert value not in result.output
