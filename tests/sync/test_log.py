"""The sync log: a hash chain any edit breaks, a torn tail recovered, one writer at a time."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from bridge.canonical import canonical
from bridge.sync.log import GENESIS, SyncLog, SyncLogCorrupt, SyncLogInUse, verify_chain
from bridge.sync.snapshot import leaf_bytes


def _write(path: Path, count: int) -> None:
    with SyncLog.open(path) as log:
        for n in range(count):
            log.append({"cycle": n, "changes": {"actual": n % 7}, "money": [{"currency": "USD", "minor": 2**60 + n}]})


def test_a_chain_of_1000_lines_verifies(tmp_path: Path) -> None:
    """A thousand appended lines verify, and the head is the last line's hash."""
    path = tmp_path / "sync.jsonl"
    _write(path, 1000)
    check = verify_chain(path)
    assert (check.broken, check.lines) == (None, 1000)
    with SyncLog.open(path) as log:
        assert (log.seq, log.head) == (1000, check.head)


def test_an_integer_above_2_53_is_a_string_on_the_line(tmp_path: Path) -> None:
    """Minor units past 2^53 are written as strings, so a reader with doubles cannot round them."""
    path = tmp_path / "sync.jsonl"
    _write(path, 1)
    line = path.read_bytes()
    assert f'"minor":"{2**60}"'.encode() in line
    assert b'"prev":"' + GENESIS.encode() in line


@pytest.mark.parametrize("line", [1, 2, 250, 500])
def test_one_byte_changed_names_its_line(tmp_path: Path, line: int) -> None:
    """Changing one byte of a line (in its record) breaks the chain at that line and nowhere sooner."""
    path = tmp_path / "sync.jsonl"
    _write(path, 500)
    lines = path.read_bytes().split(b"\n")
    target = lines[line - 1]
    at = target.index(b'"cycle":"') + len(b'"cycle":"')
    lines[line - 1] = target[:at] + b"9" + target[at + 1 :]
    path.write_bytes(b"\n".join(lines))
    assert verify_chain(path).broken == line
    with pytest.raises(SyncLogCorrupt, match=f"line {line}"):
        SyncLog.open(path)


def test_a_torn_tail_is_cut_away_and_the_chain_goes_on(tmp_path: Path) -> None:
    """Half a line at the end (a writer killed mid-write) is removed on open; the next line chains on the last."""
    path = tmp_path / "sync.jsonl"
    _write(path, 3)
    whole = path.read_bytes()
    last = whole.rstrip(b"\n").rsplit(b"\n", 1)[-1]
    path.write_bytes(whole + last[: len(last) // 2])
    with SyncLog.open(path) as log:
        assert log.seq == 3
        log.append({"cycle": 3})
    assert path.read_bytes().startswith(whole)
    check = verify_chain(path)
    assert (check.broken, check.lines) == (None, 4)


def test_a_second_writer_is_refused(tmp_path: Path) -> None:
    """While one writer holds the log, another process cannot open it for appending."""
    path = tmp_path / "sync.jsonl"
    with SyncLog.open(path):
        other = subprocess.run(
            [
                sys.executable,
                "-c",
                f"from pathlib import Path; from bridge.sync.log import SyncLog; SyncLog.open(Path({str(path)!r}))",
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        assert "SyncLogInUse" in other.stderr
        assert str(path) in other.stderr
    with pytest.raises(SyncLogInUse), SyncLog.open(path), SyncLog.open(path):
        pass


def test_the_module_verifies_from_the_command_line(tmp_path: Path) -> None:
    """``python -m bridge.sync.log verify PATH`` says ok and the head, or the broken seq with exit 1."""
    path = tmp_path / "sync.jsonl"
    _write(path, 5)
    ok = subprocess.run(
        [sys.executable, "-m", "bridge.sync.log", "verify", str(path)], capture_output=True, text=True, check=False
    )
    assert (ok.returncode, ok.stdout.split()[0]) == (0, "ok")
    assert verify_chain(path).head in ok.stdout
    path.write_bytes(path.read_bytes().replace(b'"cycle":"4"', b'"cycle":"5"'))
    bad = subprocess.run(
        [sys.executable, "-m", "bridge.sync.log", "verify", str(path)], capture_output=True, text=True, check=False
    )
    assert (bad.returncode, bad.stdout.split()[:4]) == (1, ["broken", "at", "seq", "5"])


def test_a_writer_killed_mid_append_leaves_a_chain_that_goes_on(tmp_path: Path) -> None:
    """SIGKILL of a process appending as fast as it can: the next open chains on, and the whole chain verifies."""
    path = tmp_path / "sync.jsonl"
    script = (
        "from pathlib import Path; from bridge.sync.log import SyncLog\n"
        f"log = SyncLog.open(Path({str(path)!r}))\n"
        "print('open', flush=True)\n"
        "while True: log.append({'cycle': log.seq, 'pad': 'x' * 4000})\n"
    )
    with subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True) as writer:
        assert writer.stdout is not None
        assert writer.stdout.readline() == "open\n"
        while path.stat().st_size < 200_000:
            pass
        writer.kill()
    with SyncLog.open(path) as log:
        written = log.seq
        log.append({"cycle": "after the kill"})
    check = verify_chain(path)
    assert (check.broken, check.lines) == (None, written + 1)


def test_a_snapshot_leaf_is_rfc_8785_canonical_json() -> None:
    """The snapshot's fast leaf encoding is byte for byte the canonical form, controls and non-ASCII included."""
    leaf = ("line", 'lin_\u00e9\u2028\x1f"\\/\t', "0" * 64)
    assert leaf_bytes(leaf) == canonical(list(leaf))
