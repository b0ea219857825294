"""Reads the runbooks' command blocks and runs them, in order, against an emulator on a loopback port.

The convention, which a runbook's reader sees too (runbooks/README.md explains it to operators):

- Every fenced block whose info string starts with ``console`` is run; other blocks (``toml``, ``text``, ``sh``)
  are shown, never run.
- In a run block, a line starting with ``$ `` is a command (a trailing backslash continues it on the next line).
  Lines after it are the sample output a reader can expect; they are illustrative, not compared.
- ``# expect: exit N`` after a command states its exit code; ``contains "text"`` clauses (any number, after
  ``exit N`` and separated by commas) name text its combined output must contain. A command without an expect
  line must exit 0. Every ``contains`` text must also appear in the sample output printed under the command,
  so what the reader is shown is what the test checks.
- ``console rehearsal`` blocks make the emulator misbehave (revoke a token, inject 429s, change the source)
  through its control API or the legacy surface; only they may name ``$EMULATOR`` (the ``/_emulator`` base),
  and the text just above each one says ``**Rehearsal only**`` so the reader sees it.
- The line ``Rehearsal emulator: `bridge emulate ...` `` (one per runbook) names how the test serves the
  emulator for it; the harness adds ``--port 0`` and credentials and sets ``BRIDGE_LEGACY_URL``,
  ``BRIDGE_LEGACY_KEY``, ``BRIDGE_V1_URL``, ``BRIDGE_V1_TOKEN``, ``BRIDGE_STATE`` and ``EMULATOR``.

Commands run with ``bash -o pipefail`` in one temporary directory (a pipeline fails when any part of it
fails); each sees the variables the previous ones exported (``export X=...`` carries over, as in the
operator's own shell).
"""

from __future__ import annotations

import os
import re
import secrets
import shlex
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parents[1]
RUNBOOKS = REPO / "runbooks"
VENV_BIN = Path(sys.executable).parent
COMMAND_TIMEOUT_S = 180.0
EMULATOR_START_TIMEOUT_S = 60.0
_SHOWN_OUTPUT = 6000

_FENCE = re.compile(r"^```(?P<info>\S*)(?:\s+(?P<flag>\S+))?\s*$")
_EXPECT = re.compile(r"^# expect: exit (?P<code>\d+)(?P<rest>.*)$")
_CONTAINS = re.compile(r'\s*,\s*contains "(?P<text>[^"]+)"')
_REHEARSAL_EMULATOR = re.compile(r"^Rehearsal emulator: `bridge emulate(?P<args>[^`]*)`\s*$", re.MULTILINE)
_REHEARSAL_MARK = "**Rehearsal only"
_BANNER_URL = re.compile(r"^legacy\s+(?P<base>http://\S+)/api/v1\s", re.MULTILINE)


class RunbookFormatError(ValueError):
    """A runbook breaks the convention above; the message names the file and line."""


@dataclass(frozen=True, slots=True)
class Step:
    """One command of a runbook, where it is, and the outcome the runbook promises."""

    runbook: str
    line: int
    command: str
    exit_code: int
    contains: tuple[str, ...]
    sample_output: str
    rehearsal: bool

    def where(self) -> str:
        return f"runbooks/{self.runbook}:{self.line}"


@dataclass(frozen=True, slots=True)
class Runbook:
    """A parsed runbook: its emulator options and its steps in reading order."""

    name: str
    emulator_args: tuple[str, ...]
    steps: tuple[Step, ...]


def runbook_paths() -> list[Path]:
    """Every procedure under runbooks/ (README.md explains the convention and holds no steps)."""
    return sorted(p for p in RUNBOOKS.glob("*.md") if p.name != "README.md")


def _parse_expect(name: str, number: int, line: str) -> tuple[int, tuple[str, ...]]:
    match = _EXPECT.match(line)
    if match is None:
        raise RunbookFormatError(f'runbooks/{name}:{number}: write "# expect: exit N[, contains "text"]..."')
    rest = match["rest"]
    texts = tuple(m["text"] for m in _CONTAINS.finditer(rest))
    if _CONTAINS.sub("", rest).strip():
        raise RunbookFormatError(f"runbooks/{name}:{number}: cannot read {rest.strip()!r} as contains clauses")
    return int(match["code"]), texts


def _steps_of_block(name: str, lines: list[tuple[int, str]], rehearsal: bool) -> list[Step]:
    """The steps of one fenced block; ``lines`` are (line number, text) inside the fences."""
    steps: list[Step] = []
    index = 0
    while index < len(lines):
        number, text = lines[index]
        if not text.startswith("$ "):
            raise RunbookFormatError(f"runbooks/{name}:{number}: output before the first command ({text!r})")
        command = text[2:]
        while command.endswith("\\") and index + 1 < len(lines):
            index += 1
            command = command[:-1] + "\n" + lines[index][1]
        index += 1
        exit_code = 0
        contains: tuple[str, ...] = ()
        output: list[str] = []
        while index < len(lines) and not lines[index][1].startswith("$ "):
            body_number, body = lines[index]
            if body.startswith("# expect:"):
                exit_code, contains = _parse_expect(name, body_number, body)
            else:
                output.append(body)
            index += 1
        sample = "\n".join(output)
        for text_expected in contains:
            if sample and text_expected not in sample:
                raise RunbookFormatError(
                    f"runbooks/{name}:{number}: expected text {text_expected!r} is not in the sample output shown"
                )
        if not rehearsal and "$EMULATOR" in command:
            raise RunbookFormatError(
                f"runbooks/{name}:{number}: only a `console rehearsal` block may use the emulator's control API"
            )
        steps.append(Step(name, number, command, exit_code, contains, sample, rehearsal))
    return steps


def parse_runbook(path: Path) -> Runbook:
    """The runbook's steps and emulator options; RunbookFormatError when it breaks the convention."""
    text = path.read_text(encoding="utf-8")
    emulator = _REHEARSAL_EMULATOR.findall(text)
    if len(emulator) != 1:
        raise RunbookFormatError(f"runbooks/{path.name}: needs exactly one 'Rehearsal emulator: `bridge emulate ...`'")
    steps: list[Step] = []
    block: list[tuple[int, str]] | None = None
    in_shown_block = False
    rehearsal = False
    prose: list[str] = []  # what the reader sees since the last block
    for number, line in enumerate(text.splitlines(), start=1):
        fence = _FENCE.match(line)
        if fence is None:
            if block is not None:
                block.append((number, line))
            elif not in_shown_block:
                prose.append(line)
        elif block is not None:
            steps += _steps_of_block(path.name, block, rehearsal)
            block, prose = None, []
        elif in_shown_block:
            in_shown_block, prose = False, []
        elif fence["info"] == "console":
            block, rehearsal = [], fence["flag"] == "rehearsal"
            if rehearsal and not any(_REHEARSAL_MARK in text_line for text_line in prose):
                raise RunbookFormatError(
                    f"runbooks/{path.name}:{number}: say {_REHEARSAL_MARK} in the text just above a rehearsal block"
                )
        else:
            in_shown_block = True
    return Runbook(path.name, tuple(shlex.split(emulator[0])), tuple(steps))


@dataclass(frozen=True, slots=True)
class Emulator:
    """A ``bridge emulate`` subprocess this harness started, and the environment a runbook gets from it."""

    process: subprocess.Popen[str]
    env: dict[str, str]


@contextmanager
def served_emulator(args: tuple[str, ...], workdir: Path) -> Iterator[Emulator]:
    """``bridge emulate <args> --port 0`` with fresh credentials; stopped (SIGTERM, its own pid) on exit."""
    legacy_key = "rb-legacy-" + secrets.token_hex(12)
    token = "rb-token-" + secrets.token_hex(12)
    log = (workdir / "emulator.out").open("w+", encoding="utf-8")
    command = [str(VENV_BIN / "bridge"), "emulate", *args, "--port", "0"]
    # Credentials through the environment, as an operator passes them (an option value would show in ps).
    credentials = {"EMULATOR_LEGACY_KEY": legacy_key, "EMULATOR_TOKEN": token}
    process = subprocess.Popen(
        command, stdout=log, stderr=subprocess.STDOUT, text=True, cwd=workdir, env={**os.environ, **credentials}
    )
    try:
        base = _wait_for_banner(process, workdir / "emulator.out")
        env = {
            "BRIDGE_LEGACY_URL": f"{base}/api/v1",
            "BRIDGE_LEGACY_KEY": legacy_key,
            "BRIDGE_V1_URL": f"{base}/v1",
            "BRIDGE_V1_TOKEN": token,
            "BRIDGE_STATE": str(workdir / "bridge-state.db"),
            "EMULATOR": f"{base}/_emulator",
        }
        yield Emulator(process, env)
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()


def _wait_for_banner(process: subprocess.Popen[str], out: Path) -> str:
    """The base URL, once the banner is printed and the control API answers (the banner comes first)."""
    deadline = time.monotonic() + EMULATOR_START_TIMEOUT_S
    while time.monotonic() < deadline:
        match = _BANNER_URL.search(out.read_text(encoding="utf-8"))
        if match is not None and _answers(f"{match['base']}/_emulator/stats"):
            return match["base"]
        if process.poll() is not None:
            raise RuntimeError(f"bridge emulate exited {process.returncode}: {out.read_text(encoding='utf-8')}")
        time.sleep(0.05)
    raise RuntimeError(f"bridge emulate printed no banner within {EMULATOR_START_TIMEOUT_S} s")


def _answers(url: str) -> bool:
    try:
        return httpx.get(url, timeout=2).status_code == 200
    except httpx.TransportError:
        return False


@dataclass(frozen=True, slots=True)
class StepResult:
    """What one command did."""

    exit_code: int
    output: str


def run_step(step: Step, workdir: Path, base_env: dict[str, str]) -> StepResult:
    """Run one command with bash in ``workdir``; variables it exports are kept for the next command."""
    env_file = workdir / ".runbook-env"
    script = (
        "set -o pipefail\n"
        f"[ -f {shlex.quote(str(env_file))} ] && . {shlex.quote(str(env_file))}\n"
        f"{step.command}\n"
        f"__rc=$?\nexport -p > {shlex.quote(str(env_file))}\nexit $__rc\n"
    )
    env = {**os.environ, **base_env, "PATH": f"{VENV_BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    env["COLUMNS"] = "160"
    # One pipe for both streams, so the output (and a regenerated sample) reads in the order a terminal shows it.
    completed = subprocess.run(
        ["bash", "-c", script],
        cwd=workdir,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=COMMAND_TIMEOUT_S,
        check=False,
    )
    return StepResult(completed.returncode, completed.stdout)


def failure(step: Step, result: StepResult) -> str | None:
    """Why the step's documented outcome did not occur, or None when it did."""
    problems = []
    if result.exit_code != step.exit_code:
        problems.append(f"exit {result.exit_code}, the runbook says exit {step.exit_code}")
    problems += [f"output lacks {text!r}" for text in step.contains if text not in result.output]
    if not problems:
        return None
    output = result.output
    if len(output) > _SHOWN_OUTPUT:
        output = f"{output[: _SHOWN_OUTPUT // 3]}\n[...]\n{output[-2 * _SHOWN_OUTPUT // 3 :]}"
    return f"{step.where()}: `{step.command}`: {'; '.join(problems)}\n--- output ---\n{output}"
