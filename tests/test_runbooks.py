"""Every runbook's commands run, in order, against `bridge emulate` on loopback, with the outcome they promise.

The convention (``console`` blocks, ``# expect:`` lines, ``console rehearsal`` blocks) is documented in
tests/runbook_harness.py and, for operators, in runbooks/README.md.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.runbook_harness import (
    RunbookFormatError,
    Step,
    StepResult,
    failure,
    parse_runbook,
    run_step,
    runbook_paths,
    served_emulator,
)
from tests.runbook_samples import REGENERATE_VARIABLE, normalized, regenerated

REQUIRED_SECTIONS = ("**When to use it:**", "**It worked when:**")


def test_every_procedure_of_the_issue_has_a_runbook() -> None:
    """The nine procedures exist (the migration's eight and bridge mode's cutover), each with when-to-use,
    commands with expectations, and how to know it worked."""
    paths = runbook_paths()
    assert len(paths) == 9
    for path in paths:
        text = path.read_text(encoding="utf-8")
        missing = [section for section in REQUIRED_SECTIONS if section not in text]
        assert not missing, f"runbooks/{path.name} lacks {missing}"
        runbook = parse_runbook(path)
        assert any(not step.rehearsal for step in runbook.steps), f"runbooks/{path.name} has no operator command"


def test_every_runbook_is_linked_from_the_index() -> None:
    """runbooks/README.md links every procedure, so an operator finds it from the symptom."""
    index = (runbook_paths()[0].parent / "README.md").read_text(encoding="utf-8")
    assert all(f"]({path.name})" in index for path in runbook_paths())


def _write(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "sample.md"
    path.write_text("# t\n\nRehearsal emulator: `bridge emulate --size small`\n\n" + body, encoding="utf-8")
    return path


def test_parser_reads_commands_expectations_and_rehearsal_blocks(tmp_path: Path) -> None:
    """Commands, continuation lines, expected exit codes and texts, and rehearsal marks are read as written."""
    runbook = parse_runbook(
        _write(
            tmp_path,
            "```console\n$ bridge run \\\n  --concurrency 2\nrun 1 of migration m-1\n"
            '# expect: exit 1, contains "run 1", contains "m-1"\n$ true\n```\n\n'
            "```sh\n$ not run\n```\n\n"
            "> **Rehearsal only.** Resets the emulator.\n\n"
            '```console rehearsal\n$ curl -s -X POST "$EMULATOR/reset"\n```\n',
        )
    )
    assert runbook.emulator_args == ("--size", "small")
    assert [(s.command, s.exit_code, s.contains, s.rehearsal) for s in runbook.steps] == [
        ("bridge run \n  --concurrency 2", 1, ("run 1", "m-1"), False),
        ("true", 0, (), False),
        ('curl -s -X POST "$EMULATOR/reset"', 0, (), True),
    ]


@pytest.mark.parametrize(
    ("body", "complaint"),
    [
        ('```console\n$ bridge plan\nplan for x\n# expect: exit 0, contains "nowhere"\n```\n', "not in the sample"),
        ('```console\n$ curl "$EMULATOR/reset"\n```\n', "only a `console rehearsal` block"),
        ("```console\nstray output\n```\n", "output before the first command"),
        ("```console\n$ true\n# expect: exit zero\n```\n", "# expect: exit N"),
        ('Reset it.\n\n```console rehearsal\n$ curl -X POST "$EMULATOR/reset"\n```\n', "Rehearsal only"),
    ],
)
def test_parser_rejects_a_runbook_that_breaks_the_convention(tmp_path: Path, body: str, complaint: str) -> None:
    """Misleading samples, control-API use outside or unmarked rehearsals, stray output and bad expects are refused."""
    with pytest.raises(RunbookFormatError, match=complaint):
        parse_runbook(_write(tmp_path, body))


def test_a_wrong_exit_code_or_missing_text_is_reported_with_the_runbook_line(tmp_path: Path) -> None:
    """The harness fails a step whose exit code or output differs from the runbook, naming file and line."""
    step = Step("x.md", 7, "echo hello; exit 3", 0, ("goodbye",), "", rehearsal=False)
    result = run_step(step, tmp_path, {})
    assert result == StepResult(3, "hello\n")
    message = failure(step, result)
    assert message is not None
    assert "runbooks/x.md:7" in message
    assert "exit 3, the runbook says exit 0" in message
    assert "output lacks 'goodbye'" in message


def test_exported_variables_carry_over_to_the_next_command(tmp_path: Path) -> None:
    """`export X=...` in one command is seen by the next, as in the operator's shell."""
    first = Step("x.md", 1, "export GREETING=hello-there", 0, (), "", rehearsal=False)
    second = Step("x.md", 2, 'echo "$GREETING"', 0, ("hello-there",), "", rehearsal=False)
    assert run_step(first, tmp_path, {}).exit_code == 0
    assert failure(second, run_step(second, tmp_path, {})) is None


# A runbook is several full migrations; on a loaded 2-core machine one can pass the suite's 300 s default.
# Each command still has its own limit (COMMAND_TIMEOUT_S), so a hang fails fast.
@pytest.mark.timeout(600)
@pytest.mark.slow
@pytest.mark.wire
@pytest.mark.parametrize("path", runbook_paths(), ids=lambda p: p.stem)
def test_runbook_commands_do_what_the_runbook_says(path: Path, tmp_path: Path) -> None:
    """Each command of the runbook, run in order against the emulator, exits and prints as documented (with
    RUNBOOKS_REGENERATE=1, its samples are then rewritten from what the commands printed)."""
    runbook = parse_runbook(path)
    outputs: list[tuple[Step, str]] = []
    with served_emulator(runbook.emulator_args, tmp_path) as emulator:
        secrets = {"key": emulator.env["BRIDGE_LEGACY_KEY"], "token": emulator.env["BRIDGE_V1_TOKEN"]}
        for step in runbook.steps:
            result = run_step(step, tmp_path, emulator.env)
            problem = failure(step, result)
            if problem is not None:
                pytest.fail(problem)
            outputs.append((step, normalized(result.output, tmp_path, secrets)))
    if os.environ.get(REGENERATE_VARIABLE):
        path.write_text(regenerated(path.read_text(encoding="utf-8"), outputs), encoding="utf-8")


def test_a_regenerated_sample_is_the_real_output_normalized_with_its_expectation_kept(tmp_path: Path) -> None:
    """Ports, paths, credentials, times and durations become constants; the command and `# expect:` stay."""
    path = _write(
        tmp_path,
        '```console\n$ bridge run \\\n  --concurrency 2\nold run 1\n# expect: exit 1, contains "run 1"\n'
        "$ true\nstale\n```\n",
    )
    first, second = parse_runbook(path).steps
    output = f"run 1 at 2026-11-28T13:37:07Z on http://127.0.0.1:41234 in 12.3 s, key rb-k1 in {tmp_path}/s.db\n"
    rewritten = regenerated(
        path.read_text(encoding="utf-8"),
        [(first, normalized(output, tmp_path, {"key": "rb-k1"})), (second, "")],
    )
    assert rewritten.endswith(
        "```console\n$ bridge run \\\n  --concurrency 2\n"
        "run 1 at 2026-01-01T00:00:00Z on http://127.0.0.1:8765 in N s, key <key> in ~/migration/s.db\n"
        '# expect: exit 1, contains "run 1"\n$ true\n```\n'
    )
    assert parse_runbook(_rewritten(tmp_path, rewritten)).steps[0].exit_code == 1


def _rewritten(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "rewritten.md"
    path.write_text(text, encoding="utf-8")
    return path
