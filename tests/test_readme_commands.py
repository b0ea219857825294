"""Every command of the README's front page runs as written (issue 33, point 7).

Each shell block of README.md is preceded by ``<!-- test: LABEL -->``, which says how this file runs it:

- ``emulator``: the rehearsal's first terminal, run as is (on a free port instead of 8765, so tests in parallel
  do not collide) until the emulator answers;
- ``rehearsal``: the second terminal, run as is against it, every command exiting 0;
- ``real service``: the real migration's commands, run against the same emulator: the example hosts become the
  emulator's and ``~/secrets`` holds its key and token (HOME is a temporary directory), so only the hosts
  themselves are not exercised: they need the real service;
- ``clone``: ``make demo`` runs `bridge demo` (checked from the Makefile, then run in a temporary directory so
  the clone gets no demo-out/); ``make test`` is the suite this file belongs to, so it is not run from here;
- ``package``: `pipx install .` into a temporary PIPX_HOME, then the installed `bridge` serves the emulator;
  skipped where pipx is not installed, and the `git+https` line always (it needs the published repository).
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"
VENV_BIN = Path(sys.executable).parent
LABELS = ("clone", "package", "emulator", "rehearsal", "real service")
README_PORT = "8765"
COMMAND_TIMEOUT_S = 300.0
_BLOCK = re.compile(r"<!-- test: (?P<label>[a-z ]+) -->\n```(?P<info>\w+)\n(?P<body>.*?)```", re.DOTALL)


def blocks() -> dict[str, str]:
    """The README's shell blocks by their label."""
    return {m["label"]: m["body"] for m in _BLOCK.finditer(README.read_text(encoding="utf-8"))}


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("BRIDGE_", "EMULATOR_"))}
    return {**env, "HOME": str(home), "PATH": f"{VENV_BIN}{os.pathsep}{env.get('PATH', '')}", "COLUMNS": "120"}


def _bash(script: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """The block as one script, stopping at the first command that fails (and saying which)."""
    return subprocess.run(
        ["bash", "-euo", "pipefail", "-c", script],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=COMMAND_TIMEOUT_S,
        check=False,
    )


@contextmanager
def _served(block: str, port: int, cwd: Path, env: dict[str, str]) -> Iterator[str]:
    """The README's emulator block running in its own process group (stopped with SIGTERM on exit)."""
    log = (cwd / "emulator.out").open("w+", encoding="utf-8")
    process = subprocess.Popen(
        ["bash", "-euo", "pipefail", "-c", block.replace(README_PORT, str(port))],
        cwd=cwd,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while not _answers(f"{base}/_emulator/stats"):
            assert process.poll() is None, (cwd / "emulator.out").read_text(encoding="utf-8")
            assert time.monotonic() < deadline, "the README's emulator did not answer within 60 s"
            time.sleep(0.1)
        yield base
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        log.close()


def _answers(url: str) -> bool:
    try:
        return httpx.get(url, timeout=2).status_code == 200
    except httpx.TransportError:
        return False


def _exports(block: str) -> dict[str, str]:
    """The NAME=value pairs a block's `export` lines set literally."""
    return dict(re.findall(r"\b(EMULATOR_[A-Z_]+|BRIDGE_[A-Z0-9_]+)=([^\s\"$]+)", block))


def test_every_shell_block_of_the_readme_is_labelled_for_this_test() -> None:
    """A new block on the front page cannot go untested: each has one of the labels this file runs."""
    text = README.read_text(encoding="utf-8")
    fences = re.findall(r"^```\w+$", text, flags=re.MULTILINE)
    found = [m["label"] for m in _BLOCK.finditer(text)]
    assert len(found) == len(fences), "every ``` block of README.md follows a <!-- test: LABEL --> line"
    assert sorted(found) == sorted(LABELS)


@pytest.mark.slow
@pytest.mark.wire
@pytest.mark.timeout(900)
def test_the_rehearsal_and_the_real_migration_run_as_written(tmp_path: Path) -> None:
    """The five-minute rehearsal's commands all exit 0 against the README's own emulator command, and so do the
    real migration's once its hosts and secret files are the emulator's."""
    readme = blocks()
    env = _env(tmp_path)
    port = _free_port()
    with _served(readme["emulator"], port, tmp_path, env) as base:
        rehearsal = _bash(readme["rehearsal"].replace(README_PORT, str(port)), tmp_path, env)
        assert rehearsal.returncode == 0, rehearsal.stdout + rehearsal.stderr
        assert (tmp_path / "plan.json").is_file()
        assert (tmp_path / "reports" / "reconciliation.html").is_file()
        assert "project" in rehearsal.stdout

        credentials = _exports(readme["emulator"])
        secrets = tmp_path / "secrets"
        secrets.mkdir()
        (secrets / "legacy-key").write_text(credentials["EMULATOR_LEGACY_KEY"], encoding="utf-8")
        (secrets / "v1-token").write_text(credentials["EMULATOR_TOKEN"], encoding="utf-8")
        real = readme["real service"]
        real = real.replace("https://api.example.com", base).replace("https://next-api.example.com", base)
        real = real.replace("~/secrets/", f"{secrets}/")
        assert "example.com" not in real
        migration = tmp_path / "real"
        migration.mkdir()
        # The rehearsal migrated this emulator already: the real block's fresh state file meets a target holding
        # every record, adopts them and writes nothing twice; verify must still reconcile.
        result = _bash(real, migration, env)
        assert result.returncode == 0, result.stdout + result.stderr
        assert (migration / "bridge-state.db").is_file()
        assert (migration / "bridge.log").is_file()


@pytest.mark.slow
@pytest.mark.wire
@pytest.mark.timeout(900)
def test_make_demo_runs_the_demo(tmp_path: Path) -> None:
    """`make demo` is `bridge demo` once .venv exists; the demo itself ends 0 (run here, out of the clone)."""
    assert "make demo" in blocks()["clone"]
    # CI runs the suite under `make test`: the outer make's flags would make this one print its directory.
    outer = {"MAKEFLAGS", "MFLAGS", "MAKELEVEL"}
    env = {name: value for name, value in os.environ.items() if name not in outer}
    dry = subprocess.run(
        ["make", "--no-print-directory", "-n", "-o", ".venv/.installed", "demo"],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert dry.stdout.strip() == ".venv/bin/bridge demo"
    result = _bash("bridge demo", tmp_path, _env(tmp_path))
    assert result.returncode == 0, result.stdout + result.stderr
    assert (tmp_path / "demo-out").is_dir()


@pytest.mark.slow
@pytest.mark.wire
@pytest.mark.timeout(900)
@pytest.mark.skipif(shutil.which("pipx") is None, reason="pipx is not installed here")
def test_the_package_installs_with_pipx_and_serves_the_emulator(tmp_path: Path) -> None:
    """`pipx install .` gives a `bridge` whose emulator serves (the `git+https` line needs the published
    repository, so only the local install is run)."""
    lines = [line.split("#")[0].strip() for line in blocks()["package"].splitlines()]
    assert "pipx install ." in lines
    # What the package is built from, copied: setuptools builds in the source tree, which would leave build/ in
    # the clone.
    source = tmp_path / "source"
    for name in ("bridge", "mappings", "state"):
        shutil.copytree(REPO / name, source / name, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(REPO / name, source / name)
    env = {**_env(tmp_path), "PIPX_HOME": str(tmp_path / "pipx"), "PIPX_BIN_DIR": str(tmp_path / "bin")}
    installed = _bash("pipx install .", source, env)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    bridge = tmp_path / "bin" / "bridge"
    assert subprocess.run([bridge, "--version"], capture_output=True, text=True, check=True).stdout.startswith(
        "bridge, version"
    )
    env["PATH"] = f"{tmp_path / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}"
    with _served(blocks()["emulator"], _free_port(), tmp_path, env):
        pass
