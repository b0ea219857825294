"""Runbook samples rewritten from real output (issue 33, point 7): what a reader is shown is what the tool prints.

``RUNBOOKS_REGENERATE=1 .venv/bin/pytest -p no:randomly tests/test_runbooks.py`` runs every runbook as the test
always does and then writes each command's real output under it, in place of the sample, with what changes from
run to run normalized (ports, temporary paths, credentials, times, durations, pids, request ids), so a rerun on
the same tree rewrites nothing but what the tool itself changed. ``# expect:`` lines stay where they are.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path

from tests.runbook_harness import Step

REGENERATE_VARIABLE = "RUNBOOKS_REGENERATE"
_VOLATILE = (
    (re.compile(r"127\.0\.0\.1:\d+"), "127.0.0.1:8765"),
    (re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?"), "2026-01-01T00:00:00Z"),
    (re.compile(r"\b\d+(?:\.\d+)?(?= ?(?:ms|s|min)\b)"), "N"),
    # A migration's name is derived from the credentials, which the harness makes afresh for every run.
    (re.compile(r"\bm-[0-9a-f]{16}\b"), "m-0123456789abcdef"),
    (re.compile(r"\bpid \d+"), "pid 4242"),
    (re.compile(r"\breq_[A-Za-z0-9_-]+"), "req_0"),
)


def normalized(output: str, workdir: Path, secrets: Mapping[str, str]) -> str:
    """``output`` with what differs between two runs of one runbook made constant."""
    for name, value in secrets.items():
        output = output.replace(value, f"<{name}>")
    output = output.replace(str(workdir), "~/migration")
    lines = []
    for line in output.rstrip("\n").splitlines():
        constant = line
        for pattern, replacement in _VOLATILE:
            constant = pattern.sub(replacement, constant)
        if constant != line and constant.startswith("   "):
            # rich centres a caption: a number of another width moved the whole line, so its indent is not kept.
            constant = "  " + constant.lstrip(" ")
        lines.append(constant.rstrip())
    return "\n".join(lines)


def regenerated(text: str, outputs: Sequence[tuple[Step, str]]) -> str:
    """The runbook ``text`` with each step's sample replaced by its (normalized) output, expectations kept."""
    lines = text.splitlines()
    for step, output in sorted(outputs, key=lambda pair: pair[0].line, reverse=True):
        start = step.line - 1 + step.command.count("\n") + 1
        end = start
        while end < len(lines) and not lines[end].startswith(("$ ", "```")):
            end += 1
        kept = [line for line in lines[start:end] if line.startswith("# expect:")]
        lines[start:end] = [*(output.splitlines() if output else []), *kept]
    return "\n".join(lines) + ("\n" if text.endswith("\n") else "")
