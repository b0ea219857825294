"""A fleet on one machine, as separate processes: the emulator with many tenants and any number of workers.

`bridge fleet demo` (``make fleet-demo``), the fleet's tests and its benchmark all drive the real commands
(`bridge emulate --workspaces N --write-manifest`, `bridge fleet submit|worker|status`) in processes of their
own, so a worker killed here dies the way a worker on another machine does.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
import tomllib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from bridge.errors import BridgeError

START_TIMEOUT_S = 120.0


class RehearsalFailed(BridgeError):  # noqa: N818 -- the tree names conditions (see bridge.errors)
    """A process of the rehearsal did not start or answer as it should (its output is in the message)."""


def bridge_command(*args: str) -> list[str]:
    """The `bridge` command line for this interpreter (the script may not be on PATH)."""
    return [sys.executable, "-c", "from bridge.cli import main; main()", *args]


@dataclass(slots=True)
class Rehearsal:
    """A running emulator with its manifest, a fleet database, and the workers started so far."""

    folder: Path
    state: str
    manifest: Path
    emulator: subprocess.Popen[bytes]
    workers: list[subprocess.Popen[bytes]] = field(default_factory=list)

    @property
    def base_url(self) -> str:
        first = tomllib.loads(self.manifest.read_text())["workspace"][0]
        return str(first["legacy_url"]).removesuffix("/api/v1")

    def env(self) -> dict[str, str]:
        return {**os.environ, "BRIDGE_STATE": self.state}

    def bridge(self, *args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
        """Run a `bridge` command against the fleet's database; its output, whatever its exit code."""
        return subprocess.run(  # noqa: S603 -- this interpreter and our own arguments, no shell
            bridge_command(*args), env=self.env(), capture_output=True, text=True, timeout=timeout, check=False
        )

    def submit(self) -> subprocess.CompletedProcess[str]:
        return self.bridge("fleet", "submit", str(self.manifest))

    def start_worker(self, *options: str) -> subprocess.Popen[bytes]:
        """A `bridge fleet worker` in a process of its own (its log and output in the folder)."""
        index = len(self.workers) + 1
        out = (self.folder / f"worker-{index}.out").open("wb")
        worker = subprocess.Popen(  # noqa: S603 -- this interpreter and our own arguments, no shell
            bridge_command(
                "fleet",
                "worker",
                "--report-dir",
                str(self.folder / "reports"),
                "--log-file",
                str(self._log(index)),
                *options,
            ),
            env=self.env(),
            stdout=out,
            stderr=subprocess.STDOUT,
        )
        out.close()
        self.workers.append(worker)
        return worker

    def _log(self, index: int) -> Path:
        return self.folder / f"worker-{index}.log"

    def wait_started(self) -> None:
        """Until every worker started so far has said it started (DBOS launched, its queue polled)."""
        deadline = time.monotonic() + START_TIMEOUT_S
        logs = [self._log(index) for index in range(1, len(self.workers) + 1)]
        while not all(log.exists() and "bridge.fleet.worker.started" in log.read_text() for log in logs):
            if time.monotonic() > deadline or any(worker.poll() is not None for worker in self.workers):
                raise RehearsalFailed(f"a worker did not start; its output is in {self.folder}")
            time.sleep(0.1)

    def status(self) -> list[dict[str, Any]]:
        """`bridge fleet status --json`, parsed."""
        done = self.bridge("fleet", "status", "--json")
        if done.returncode != 0:
            raise RehearsalFailed(f"bridge fleet status exited {done.returncode}: {done.stderr.strip()}")
        rows: list[dict[str, Any]] = json.loads(done.stdout)["workspaces"]
        return rows

    def stats(self) -> dict[str, Any]:
        """The emulator's /_emulator/stats (loopback: its control API needs no token)."""
        answer = httpx.get(f"{self.base_url}/_emulator/stats", timeout=30)
        answer.raise_for_status()
        stats: dict[str, Any] = answer.json()
        return stats


def _wait_for_manifest(emulator: subprocess.Popen[bytes], manifest: Path, log: Path) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while not manifest.exists():
        if emulator.poll() is not None or time.monotonic() > deadline:
            emulator.kill()
            raise RehearsalFailed(f"the emulator did not write {manifest}: {log.read_text(errors='replace')[-2000:]}")
        time.sleep(0.1)


@contextlib.contextmanager
def rehearsal(
    folder: Path, state: str, workspaces: int, emulate: Sequence[str] = ("--size", "small")
) -> Iterator[Rehearsal]:
    """Serve ``workspaces`` tenants from a `bridge emulate` process; stop it and every worker at the end."""
    folder.mkdir(parents=True, exist_ok=True)
    manifest = folder / "fleet.toml"
    # A manifest left by an emulator that was killed names a port nobody listens on: wait for a new one.
    manifest.unlink(missing_ok=True)
    log = folder / "emulator.out"
    with log.open("wb") as out:
        emulator = subprocess.Popen(  # noqa: S603 -- this interpreter and our own arguments, no shell
            bridge_command(
                "emulate", "--port", "0", "--workspaces", str(workspaces), "--write-manifest", str(manifest), *emulate
            ),
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    staged = Rehearsal(folder, state, manifest, emulator)
    try:
        _wait_for_manifest(emulator, manifest, log)
        yield staged
    finally:
        for process in [*staged.workers, emulator]:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for process in [*staged.workers, emulator]:
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
