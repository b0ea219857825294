"""Files the bridge writes are 0600 and its own: plans, exports and new log files; nothing else is chmodded."""

from __future__ import annotations

import json
import os
import re
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from bridge.cli import cli
from bridge.errors import ConfigError
from bridge.files import write_private
from bridge.logging import configure_logging
from state import CrosswalkEntry, open_state
from tests.support.world import SMALL_PROJECT, World


def null_device(directory: Path) -> Path:
    """A character device to point the bridge at: a twin of /dev/null made in ``directory`` when allowed (so a
    regression could only chmod the twin), else /dev/null itself (a process that may not mknod may not chmod it)."""
    twin = directory / "null"
    try:
        os.mknod(twin, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except PermissionError:
        return Path("/dev/null")
    return twin


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def open_umask() -> Iterator[None]:
    """A umask that lets everyone read new files, so 0600 can only come from the bridge."""
    previous = os.umask(0)
    try:
        yield
    finally:
        os.umask(previous)


@pytest.mark.usefixtures("open_umask")
def test_a_new_file_is_created_0600(tmp_path: Path) -> None:
    """write_private makes a missing file with mode 0600 and exactly the bytes given."""
    target = tmp_path / "plan.json"
    write_private(target, b"{}\n", option="--out")
    assert (_mode(target), target.read_bytes()) == (0o600, b"{}\n")
    assert [p.name for p in tmp_path.iterdir()] == ["plan.json"]


def test_an_existing_regular_file_is_replaced_by_a_new_0600_one(tmp_path: Path) -> None:
    """A 0644 file of the same name gets the new bytes as a new file of mode 0600 (the content is as private
    as the state); no temporary file is left beside it."""
    target = tmp_path / "crosswalk.csv"
    target.write_text("old, longer than the new content\n")
    target.chmod(0o644)
    write_private(target, b"new\n", option="--out")
    assert (_mode(target), target.read_bytes()) == (0o600, b"new\n")
    assert [p.name for p in tmp_path.iterdir()] == ["crosswalk.csv"]


def _special(kind: str, directory: Path) -> Path:
    if kind == "symlink":
        (directory / "elsewhere.txt").write_text("keep me\n")
        (directory / "elsewhere.txt").chmod(0o644)
        (directory / "link").symlink_to("elsewhere.txt")
        return directory / "link"
    if kind == "FIFO":
        os.mkfifo(directory / "pipe", 0o644)
        return directory / "pipe"
    if kind == "directory":
        (directory / "sub").mkdir()
        return directory / "sub"
    return null_device(directory)


@pytest.mark.parametrize(
    ("kind", "said"),
    [
        ("symlink", "a symlink"),
        ("FIFO", "a FIFO"),
        ("directory", "a directory"),
        ("device", "a device or special file"),
    ],
)
def test_a_path_that_is_not_a_regular_file_is_refused_untouched(kind: str, said: str, tmp_path: Path) -> None:
    """A symlink, FIFO, directory or device named by --out is a ConfigError naming it; nothing is written or
    chmodded, through the link or otherwise."""
    path = _special(kind, tmp_path)
    before = {p.name: (p.lstat().st_mode, p.read_bytes() if p.is_file() else None) for p in tmp_path.iterdir()}
    device_mode = path.stat().st_mode if kind == "device" else None
    with pytest.raises(ConfigError, match=re.escape(f"--out {path} is {said}; name a regular file")):
        write_private(path, b"x", option="--out")
    after = {p.name: (p.lstat().st_mode, p.read_bytes() if p.is_file() else None) for p in tmp_path.iterdir()}
    assert after == before
    if device_mode is not None:
        assert path.stat().st_mode == device_mode


def test_a_missing_directory_is_a_config_error_naming_the_option(tmp_path: Path) -> None:
    """--out under a directory that does not exist says so, as exit 2's error, not a traceback."""
    with pytest.raises(ConfigError, match=r"cannot write --out .*No such file or directory"):
        write_private(tmp_path / "nope" / "plan.json", b"{}", option="--out")


@pytest.fixture
def state_file(tmp_path: Path) -> Path:
    path = tmp_path / "bridge-state.db"
    with open_state(path) as store:
        store.crosswalk.put([CrosswalkEntry("space", "S1", "spc_1")])
    return path


@pytest.mark.usefixtures("open_umask")
def test_crosswalk_export_out_is_0600(state_file: Path, tmp_path: Path) -> None:
    """`bridge crosswalk export --out F` writes F with mode 0600 (the state is 0600; so is what it holds)."""
    target = tmp_path / "crosswalk.json"
    result = CliRunner().invoke(
        cli, ["crosswalk", "export", "--format", "json", "--state", str(state_file), "--out", str(target)]
    )
    assert result.exit_code == 0, result.output
    assert _mode(target) == 0o600
    assert json.loads(target.read_text())[0]["v1_id"] == "spc_1"


def test_crosswalk_export_out_through_a_symlink_is_exit_2_and_writes_nothing(state_file: Path, tmp_path: Path) -> None:
    """--out naming a symlink is refused with exit 2 naming --out; the file it points at is unchanged."""
    path = _special("symlink", tmp_path)
    result = CliRunner().invoke(cli, ["crosswalk", "export", "--state", str(state_file), "--out", str(path)])
    assert result.exit_code == 2, result.output
    assert f"--out {path} is a symlink" in result.stderr
    assert "Traceback" not in result.output + result.stderr
    assert (tmp_path / "elsewhere.txt").read_text() == "keep me\n"
    assert _mode(tmp_path / "elsewhere.txt") == 0o644


@pytest.mark.usefixtures("open_umask")
def test_a_new_log_file_is_0600_and_an_existing_one_keeps_its_mode(tmp_path: Path) -> None:
    """The bridge creates a missing --log-file 0600; a log it finds (0640, reached through a symlink) is
    appended to and keeps its mode."""
    new = tmp_path / "logs" / "run.jsonl"
    configure_logging("INFO", log_file=new)
    assert _mode(new) == 0o600
    kept = tmp_path / "kept.jsonl"
    kept.write_text('{"event": "earlier"}\n')
    kept.chmod(0o640)
    (tmp_path / "link.jsonl").symlink_to(kept.name)
    configure_logging("INFO", log_file=tmp_path / "link.jsonl")
    configure_logging("INFO")  # closes the file handler
    assert _mode(kept) == 0o640
    assert kept.read_text().startswith('{"event": "earlier"}\n')
    assert (tmp_path / "link.jsonl").is_symlink()


def test_a_log_file_on_a_device_node_is_written_and_never_chmodded(tmp_path: Path) -> None:
    """--log-file naming a character device (a /dev/null twin) leaves its mode as it was."""
    device = null_device(tmp_path)
    before = device.stat().st_mode
    try:
        configure_logging("INFO", log_file=device)
    finally:
        configure_logging("INFO")
    assert device.stat().st_mode == before


@pytest.mark.wire
@pytest.mark.usefixtures("open_umask")
def test_plan_out_is_0600(served: World, tmp_path: Path) -> None:
    """`bridge plan --out F` writes the plan JSON as a file of mode 0600, even with a umask that allows more."""
    out = tmp_path / "plan.json"
    result = CliRunner().invoke(cli, ["plan", "--project", SMALL_PROJECT, "--out", str(out)], env=served.env())
    assert result.exit_code == 0, result.output
    assert _mode(out) == 0o600
    assert json.loads(out.read_text())["requests"] > 0
