"""Reports are published as one set: a kill or a full disk while writing leaves the previous set whole."""

from __future__ import annotations

import errno
import os
import stat
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from bridge.verify.publish import CURRENT, SETS, ReportsNotWritten, publish
from bridge.verify.report import HTML_NAME, JSON_NAME, MD_NAME
from tests.support.migrated import LEGACY_KEY, TOKEN, run_cli
from tests.support.serving import serving as served
from tests.support.world import World

NAMES = (JSON_NAME, MD_NAME, HTML_NAME)


def shown(directory: Path) -> dict[str, bytes]:
    """What a reader opening the three report names reads now."""
    return {name: (directory / name).read_bytes() for name in NAMES if (directory / name).exists()}


def a_set(tag: str) -> dict[str, str]:
    return {name: f"{tag} {name}\n" * 1000 for name in NAMES}


def test_a_new_set_replaces_the_old_one_whole_with_private_files(tmp_path: Path) -> None:
    """Each publish shows its three files at the fixed names, 0600, and keeps only the previous set besides."""
    reports = tmp_path / "reports"
    for tag in ("first", "second", "third"):
        paths = publish(reports, a_set(tag))
        assert paths == [reports / name for name in NAMES]
        assert shown(reports) == {name: text.encode() for name, text in a_set(tag).items()}
    for name in NAMES:
        assert stat.S_IMODE((reports / name).stat().st_mode) == 0o600
    kept = sorted(p.name for p in (reports / SETS).iterdir())
    assert len(kept) == 3, kept  # current, the set it shows, and the previous set
    assert (reports / SETS / CURRENT).is_symlink()


def test_reports_an_older_bridge_wrote_in_place_are_adopted_without_a_mix(tmp_path: Path) -> None:
    """Plain files from before keep showing their bytes until the new set replaces all three at once."""
    reports = tmp_path / "reports"
    reports.mkdir()
    for name, text in a_set("old").items():
        (reports / name).write_text(text)
    publish(reports, a_set("new"))
    assert shown(reports) == {name: text.encode() for name, text in a_set("new").items()}
    assert all((reports / name).is_symlink() for name in NAMES)


def failing_at(n: int, calls: list[str]) -> Callable[[Callable[..., object], str], Callable[..., object]]:
    """A wrapper factory: the n-th wrapped call (over every wrapped function) fails as a full disk does."""

    def wrap(real: Callable[..., object], name: str) -> Callable[..., object]:
        def call(*args: object, **kwargs: object) -> object:
            calls.append(name)
            if len(calls) == n:
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            return real(*args, **kwargs)

        return call

    return wrap


DISK_WRITES = ("open", "write", "fsync", "mkdir", "symlink", "replace", "link")


def test_a_full_disk_at_each_write_of_the_set_leaves_the_previous_set_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ENOSPC injected at the 1st, 2nd, ... filesystem call of a publish: a clear error and the old set intact,
    or (a refusal the writer could absorb) the new set whole; never a mix, never a partial set left behind."""
    old = {name: text.encode() for name, text in a_set("old").items()}
    new = {name: text.encode() for name, text in a_set("new").items()}
    failures: list[str] = []
    for n in range(1, 500):
        reports = tmp_path / f"n{n:03d}"
        publish(reports, a_set("old"))
        sets_before = sorted(p.name for p in (reports / SETS).iterdir())
        calls: list[str] = []
        wrap = failing_at(n, calls)
        refusal: ReportsNotWritten | None = None
        with monkeypatch.context() as patch:
            for name in DISK_WRITES:
                patch.setattr(os, name, wrap(getattr(os, name), name))
            try:
                publish(reports, a_set("new"))
            except ReportsNotWritten as error:
                refusal = error
        if refusal is None:
            assert shown(reports) == new, f"call {n} failed, was absorbed, and the new set is not whole"
            if len(calls) < n:
                break  # every call of a whole publish has now failed once
            continue
        failures.append(calls[n - 1])
        message = str(refusal)
        assert "No space left on device" in message
        assert str(reports) in message
        assert shown(reports) in (old, new), f"the write failing at call {n} ({calls[n - 1]}) left a mix"
        if shown(reports) == old:
            assert "are unchanged" in message
            assert sorted(p.name for p in (reports / SETS).iterdir()) == sets_before, f"call {n} left a set"
    else:
        pytest.fail("publish never got through")
    assert {"open", "write", "fsync", "symlink", "replace"} <= set(failures)
    assert failures.count("write") == len(NAMES), failures


# `bridge verify` with an observer of the report writer that SIGKILLs the process the n-th time it reaches
# a point (sys.argv[1], "<point>:<n>"), handed to the command as click's context object.
KILLED_VERIFY = """
import os, signal, sys
from bridge.cli import cli

class KillAt:
    def __init__(self, spec):
        point, _, nth = spec.partition(":")
        self.point, self.left = point, int(nth)

    def reached(self, point):
        if point == self.point:
            self.left -= 1
            if self.left == 0:
                os.kill(os.getpid(), signal.SIGKILL)

cli.main(sys.argv[2:], prog_name="bridge", obj=KillAt(sys.argv[1]))
"""


def bridge_verify(world: World, base: str, report_dir: Path, kill: str) -> subprocess.CompletedProcess[str]:
    """`bridge verify` in its own process, killed at ``kill`` ("<point>:<n>") of the report writer."""
    env = {
        **os.environ,
        "BRIDGE_LEGACY_URL": f"{base}/api/v1",
        "BRIDGE_V1_URL": f"{base}/v1",
        "BRIDGE_LEGACY_KEY": LEGACY_KEY,
        "BRIDGE_V1_TOKEN": TOKEN,
        "BRIDGE_STATE": str(world.state),
    }
    # --fail-on rounding changes all three reports (fail_on is in each), so a mix would be visible.
    args = ["verify", "--project", world.project_id, "--report-dir", str(report_dir), "--fail-on", "rounding"]
    return subprocess.run(
        [sys.executable, "-c", KILLED_VERIFY, kill, *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def consistent(directory: Path) -> bool:
    """The three files shown are one set: the Markdown and the HTML state the JSON's fail-on level."""
    files = shown(directory)
    fail_on = "rounding" if b'"fail_on": "rounding"' in files[JSON_NAME] else "mismatch"
    return f"fails on `{fail_on}`".encode() in files[MD_NAME] and f"fails on {fail_on}".encode() in files[HTML_NAME]


@pytest.mark.slow
def test_killing_verify_while_it_writes_reports_leaves_the_previous_set_whole(world: World, tmp_path: Path) -> None:
    """SIGKILL after each file of the new set and just before the switch: readers see the old set, byte for
    byte; killed just after the switch they see the new set whole; the next verify cleans up and publishes."""
    reports = tmp_path / "reports"
    code, report, output = run_cli(world, reports)
    assert report is not None, output
    before = shown(reports)
    assert consistent(reports)
    with served(world.app) as base:
        for kill in ("written:1", "written:2", "written:3", "switch:1"):
            result = bridge_verify(world, base, reports, kill)
            assert result.returncode == -9, (kill, result.stdout, result.stderr)
            assert shown(reports) == before, f"killed at {kill}: what readers see changed"
        result = bridge_verify(world, base, reports, "switched:1")
        assert result.returncode == -9, result.stderr
        assert shown(reports) != before
        assert consistent(reports)
        assert b'"fail_on": "rounding"' in shown(reports)[JSON_NAME]
    again, _, output = run_cli(world, reports)
    assert again == code, output
    assert consistent(reports)
    assert len(list((reports / SETS).iterdir())) == 3, "leftovers of the killed writes are removed"


def test_verify_on_a_full_disk_stops_resumably_and_keeps_the_previous_reports(
    world: World, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`bridge verify` whose report files cannot be written: exit 3 (run again), saying so; the old set stays."""
    reports = tmp_path / "reports"
    run_cli(world, reports)
    before = shown(reports)

    def full(path: Path, data: bytes) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))

    monkeypatch.setattr("bridge.verify.publish.create_private", full)
    code, _, output = run_cli(world, reports, "--fail-on", "rounding")
    assert code == 3, output
    assert "the reports could not be written" in words(output)
    assert "No space left on device" in output
    assert shown(reports) == before


def words(text: str) -> str:
    return " ".join(text.split())
