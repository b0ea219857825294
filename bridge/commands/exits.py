"""The exit codes: one table that `bridge.cli`'s endings, every command's `--help` and docs/exit-codes.md read.

A code is a class of remedy (issue 33, point 3), the same for every command: what the operator does next
depends on the code alone, never on parsing the message. Which codes a command can return follows from what it
touches (nothing but its arguments, a state file, or the services) and whether a finished command can have
something to look at (exit 1, in its own words); whether it resumes says how exit 3 and 130 read.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from enum import Enum


@dataclass(frozen=True, slots=True)
class Exit:
    """One exit code: what it means for every command, and what to do about it."""

    code: int
    meaning: str
    todo: str


DONE = Exit(0, "done: migrated, planned, reconciled, printed", "nothing")
FINDINGS = Exit(1, "finished, with something to look at (never a stop)", "read what it lists")
USAGE = Exit(
    2,
    "a usage or configuration error, or an address where nothing answers at the first request: the message "
    "names the setting or the URL",
    "fix it, then run again",
)
STOPPED = Exit(
    3,
    "stopped before the end: the service failed past the retry budget, a legacy read was refused, or another "
    "process holds the state file",
    "run the same command again (later)",
)
FATAL = Exit(
    4,
    "fatal: the service answered outside its published contract (idempotency_conflict, a repeated cursor), or "
    "the state file failed its integrity check",
    "keep the state file and the log; report it; do not resume on a damaged state",
)
CREDENTIALS = Exit(
    5,
    "credentials refused: the legacy key or the v1 token (a 401, or legacy's 403 'workspace access "
    "restricted', A129): the message names the variable",
    "set a valid key or token in that variable, then run again",
)
# sysexits.h's EX_SOFTWARE ("internal software error"): a bug is told apart from every remedy above.
BUG = Exit(
    70,
    "a bug in the bridge (an unexpected error): the message says where its traceback was written (the "
    "--log-file, else a bridge-bug-*.log of mode 0600)",
    "keep the state file and that log; report it",
)
# The shell's own code for a process ended by SIGINT (128 + 2): a script tells the operator's stop from a failure.
INTERRUPTED = Exit(130, "interrupted by the operator (SIGINT, SIGTERM, Ctrl-C): nothing is lost", "run again")

CODES = (DONE, FINDINGS, USAGE, STOPPED, FATAL, CREDENTIALS, BUG, INTERRUPTED)


class Touches(Enum):
    """What a command reads or writes, which decides the ways it can stop."""

    ARGUMENTS = "its arguments and files"
    STATE = "the state file"
    SERVICE = "the services and the state file"


@dataclass(frozen=True, slots=True)
class Returns:
    """What one command can end with."""

    touches: Touches
    findings: str | None = None
    """What exit 1 means for this command; None when it never ends with 1."""
    resumes: bool = False
    """A stopped or interrupted run of it resumes from its journal (`run`), rather than starting again."""

    def codes(self) -> tuple[Exit, ...]:
        """The codes this command can return, in the table's order."""
        stops = self.touches is not Touches.ARGUMENTS
        return tuple(
            code
            for code in CODES
            if (code is not FINDINGS or self.findings is not None)
            and (code not in {STOPPED, FATAL} or stops)
            and (code is not CREDENTIALS or self.touches is Touches.SERVICE)
        )

    def explained(self, code: Exit) -> str:
        """One line of the epilog: the code's meaning for this command, and what to do."""
        meaning = self.findings if code is FINDINGS and self.findings is not None else code.meaning
        todo = code.todo
        if self.resumes and code in {STOPPED, INTERRUPTED}:
            todo = "run the same command again: it resumes where this one stopped"
        return f"{meaning}; {todo}" if code is not DONE else meaning


_SERVICE = Returns(Touches.SERVICE)
_STATE = Returns(Touches.STATE)
_ARGUMENTS = Returns(Touches.ARGUMENTS)

RETURNS: dict[str, Returns] = {
    "bridge": Returns(Touches.SERVICE, findings="finished with something to look at (each command's --help says what)"),
    "bridge assumptions": _ARGUMENTS,
    "bridge config show": _ARGUMENTS,
    "bridge conflicts list": _SERVICE,
    "bridge conflicts resolve": _SERVICE,
    "bridge crosswalk export": Returns(Touches.STATE, findings="no record of the --kind asked is in the crosswalk"),
    "bridge crosswalk lookup": Returns(Touches.STATE, findings="that record is not in the crosswalk (not migrated)"),
    "bridge crosswalk rebuild": _SERVICE,
    "bridge cutover check": Returns(Touches.SERVICE, findings="the project is not ready (each reason is named)"),
    "bridge cutover finalize": Returns(Touches.SERVICE, findings="something holds the cutover back (named)"),
    "bridge cutover freeze": _SERVICE,
    "bridge cutover sign": _ARGUMENTS,
    "bridge cutover verify": Returns(Touches.ARGUMENTS, findings="a subject or a signature does not match (named)"),
    "bridge demo": Returns(Touches.SERVICE, findings="the demo's verify found differences"),
    "bridge emulate": _ARGUMENTS,
    "bridge fleet cancel": _STATE,
    "bridge fleet demo": Returns(Touches.SERVICE, findings="a workspace did not reconcile"),
    "bridge fleet retry": _STATE,
    "bridge fleet status": _STATE,
    "bridge fleet submit": _STATE,
    "bridge fleet sync": _SERVICE,
    "bridge fleet worker": _SERVICE,
    "bridge plan": _SERVICE,
    "bridge run": Returns(Touches.SERVICE, findings="some records are quarantined (listed)", resumes=True),
    "bridge status": _STATE,
    "bridge sync": Returns(
        Touches.SERVICE, findings="an open conflict, a difference, or records quarantined", resumes=True
    ),
    "bridge sync status": Returns(Touches.STATE, findings="--check: past --max-lag, or an open conflict"),
    "bridge verify": Returns(Touches.SERVICE, findings="differences found: the reports say where"),
}
"""Every command by its path (`bridge crosswalk lookup`); a group stands for its own invocation."""


# click indents an epilog by two more columns: the lines stay within an 80-column terminal.
HELP_WIDTH = 76


def epilog(path: str) -> str:
    """The `Exit codes:` section ending the command's help (``\\b`` keeps click from rewrapping it)."""
    returns = RETURNS[path]
    width = max(len(str(code.code)) for code in returns.codes())
    lines = [
        textwrap.fill(
            f"{code.code:<{width}}  {returns.explained(code)}",
            width=HELP_WIDTH,
            initial_indent="  ",
            subsequent_indent=" " * (width + 4),
        )
        for code in returns.codes()
    ]
    return "\b\nExit codes (docs/exit-codes.md):\n" + "\n".join(lines)


def as_markdown() -> str:
    """docs/exit-codes.md's generated tables: each code, then each command's codes."""
    rows = ["| code | meaning | what to do |", "|---|---|---|"]
    rows += [f"| {code.code} | {code.meaning} | {code.todo} |" for code in CODES]
    rows += ["", "| command | can exit with | exit 1 means | after 3 or 130 |", "|---|---|---|---|"]
    for path, returns in sorted(RETURNS.items()):
        if path == "bridge":  # the group's own help sums up every code; the commands are the rows
            continue
        codes = ", ".join(str(code.code) for code in returns.codes())
        again = "it resumes from its journal" if returns.resumes else "it starts again"
        rows.append(f"| `{path}` | {codes} | {returns.findings or '(never)'} | {again} |")
    return "\n".join(rows) + "\n"
