"""Hostile source text on a real terminal: `plan`, `run`, `verify`, `status` and `crosswalk export` run in a
pseudo-terminal against an emulator whose records hold markup, escape sequences, a bidi override and the
credentials in every encoding, and whose error message echoes them; the bytes the terminal received hold none
of it acting, and no form of a secret."""

from __future__ import annotations

import asyncio
import base64
import io
import json
import re
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote, quote_plus

import pytest
from starlette.types import ASGIApp, Receive, Scope, Send
from structlog.typing import EventDict, WrappedLogger

from bridge.engine.plan import Fate, Plan, Tally
from bridge.engine.progress import Activity, LineProgress, listening, planned
from bridge.terminal import SHOWN
from mappings.kinds import Kind
from tests.support.pty import OWN_CSI, on_terminal
from tests.support.world import SMALL_PROJECT, World, fast_controls, fresh_world

OSC8 = "\x1b]8;;https://evil.example\x1b\\click\x1b]8;;\x1b\\"
CLEAR = "\x1b[2J"
TITLE = "\x1b]0;pwned\x07"
BIDI = "\u202e"
MARKUP = "[bold red]x[/] [link=https://evil.example]here[/link]"
# What must never reach the terminal raw: each sequence above, as the bytes a terminal would act on.
ACTING = (b"\x1b]8;;https://evil", b"\x1b[2J", b"\x1b]0;pwned", BIDI.encode())


def forms(secret: str) -> set[str]:
    """Every encoding of ``secret`` a server might echo."""
    raw = secret.encode()
    return {
        secret,
        base64.b64encode(raw).decode(),
        base64.b64encode(raw).decode().rstrip("="),
        base64.urlsafe_b64encode(raw).decode(),
        raw.hex(),
        quote(secret, safe=""),
        quote_plus(secret),
    }


class Echo:
    """A middleware: once a message is in ``said``, every legacy request is answered 401 with it (a server
    echoing what it was sent, escape sequences and all)."""

    def __init__(self, app: ASGIApp, said: list[str]) -> None:
        self.app = app
        self.said = said

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if not self.said or scope["type"] != "http" or not scope["path"].startswith("/api/v1"):
            await self.app(scope, receive, send)
            return
        body = json.dumps({"error": self.said[-1], "code": "unauthorized"}).encode()
        headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
        await send({"type": "http.response.start", "status": 401, "headers": headers})
        await send({"type": "http.response.body", "body": body})


@pytest.fixture
def hostile(tmp_path: Path) -> Iterator[tuple[World, list[str]]]:
    """The `small` emulator with hostile text planted in the smallest project, on a loopback port."""
    world = fresh_world(tmp_path / "state.sqlite")
    key = world.legacy_key
    project = world.service.workspace("source").projects[SMALL_PROJECT]
    # Migrated as it is (no control character, within the name limit): shown by verify's table, as text.
    project.name = f"Crew {MARKUP} {BIDI}gpj.exe {base64.b64encode(key.encode()).decode()} {key.encode().hex()}"
    lines = [n for n in project.nodes.values() if n.type == "line"]
    # Quarantined (control characters): the run lists each with its value.
    lines[0].description = f"[bold red]x[/] {OSC8} {CLEAR} {TITLE}"
    lines[1].description = "y" * (SHOWN * 50)
    said: list[str] = []
    world.app.add_middleware(Echo, said=said)
    with world.served() as live:
        yield live, said


def assert_safe(screen: bytes, secrets: list[str]) -> None:
    for sequence in ACTING:
        assert sequence not in screen, (sequence, screen[-2000:])
    # Rich wraps long cells: look for a secret across line breaks and table borders too.
    text = OWN_CSI.sub("", screen.decode("utf-8", "replace"))
    joined = re.sub(r"[\s\u2500-\u257f]", "", text)
    for secret in secrets:
        for form in forms(secret):
            assert form not in text, form
            assert form not in joined, form


@pytest.mark.wire
@pytest.mark.slow
def test_hostile_text_never_acts_on_the_terminal_nor_shows_a_secret(
    hostile: tuple[World, list[str]], tmp_path: Path
) -> None:
    """Each command a user runs, in a real terminal: the hostile values are shown escaped, never acting."""
    world, said = hostile
    secrets = [world.legacy_key, world.token]
    project = ("--project", SMALL_PROJECT)
    screens: dict[str, bytes] = {}
    for name, args, codes in (
        ("plan", ("plan", *project), {0}),
        ("run", ("run", *project), {1}),
        ("verify", ("verify", *project, "--report-dir", str(tmp_path / "reports")), {0, 1}),
        ("status", ("status",), {0}),
        ("export", ("crosswalk", "export"), {0}),
    ):
        code, screens[name] = on_terminal(world, *args)
        assert code in codes, (name, code, screens[name][-3000:])
        assert_safe(screens[name], secrets)
    run, verify = screens["run"].decode(), screens["verify"].decode()
    # The quarantined lines are listed with their values escaped, markup left as text, a long one cut.
    for sequence in ("\\x1b]8;;https://evil.example", "\\x1b[2J", "\\x1b]0;pwned", "[bold red]x[/]"):
        assert sequence in run, sequence
    long = [line.strip() for line in run.splitlines() if "y" * 50 in line]
    assert long, run[-3000:]
    assert all(len(line) < SHOWN + 100 and line.endswith("\u2026") for line in long), long
    # The migrated project's name, in verify's table: markup as text, the override escaped.
    assert "[bold red]x[/]" in verify
    assert "\\u202egpj.exe" in verify
    said.append(f"key {OSC8}{CLEAR}{TITLE} {MARKUP} " + " ".join(sorted(forms(world.legacy_key))))
    code, refused = on_terminal(world, "run", *project)
    # A refused key is its own class (exit 5): the variable to fix is named, and nothing says "resume".
    assert code == 5, refused[-3000:]
    assert b"BRIDGE_LEGACY_KEY" in refused
    assert b"resume with:" not in refused
    assert_safe(refused, secrets)


class Seen(Activity):
    """An activity whose clock stands still, noting the status line after every event it hears."""

    def __init__(self) -> None:
        super().__init__(clock=lambda: 0.0)
        self.lines: list[str] = []

    def __call__(self, logger: WrappedLogger, method_name: str, event_dict: EventDict) -> EventDict:
        passed = super().__call__(logger, method_name, event_dict)
        self.lines.append(self.status().plain)
        return passed


def test_a_429_shows_as_waiting_rate_limited_with_its_retry_after(tmp_path: Path) -> None:
    """The display learns a wait on a 429 from the clients' own events: a state of its own, with the wait."""
    world = fresh_world(tmp_path / "state.sqlite")
    rule = {"kind": "rate_limit", "rate": 0.05, "route": "/api/v1/*", "retryAfterS": 2}
    asyncio.run(world.control("POST", "/faults", {"seed": 3, "rules": [rule]}))
    with listening(Seen()) as seen:
        asyncio.run(world.run(dry_run=True, controls=fast_controls(retry_ratio=50.0)))
    assert any(line.startswith("working: legacy GET /") for line in seen.lines), seen.lines[:5]
    waits = [line for line in seen.lines if line.startswith("waiting: ")]
    assert waits, seen.lines[:5]
    assert all(line.startswith("waiting: rate-limited, Retry-After 2 s: legacy GET /") for line in waits), waits


def test_without_a_terminal_one_line_per_period_names_only_the_kinds_that_moved() -> None:
    """A pipe or a CI log sees one line per period, never redrawn: the overall figures, then only the kinds
    that moved since the line before; and a last one when the display ends."""
    out = io.StringIO()
    report = Plan("m", "source", "target", 0.01, 8)
    report.fold(Tally.of(Kind.LINE, Fate.CREATED, 3))
    report.fold(Tally.of(Kind.ACTUAL, Fate.UNCHANGED, 2))
    with LineProgress(out, every=0.05) as progress:
        progress.listed(Kind.LINE, 10)
        progress.listed(Kind.ACTUAL, 2)
        progress.show(report)
        time.sleep(0.3)
        report.fold(Tally.of(Kind.LINE, Fate.CREATED, 7))
        progress.show(report)
        time.sleep(0.3)
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("progress: working: starting"), lines  # nothing read yet: no figures
    moved = [line for line in lines if "moved:" in line]
    assert [line.split("moved: ")[1] for line in moved] == [
        "budget lines 3/10, transactions 2/2",
        "budget lines 10/10",
    ], lines
    assert "progress: 5 of 12 records (42%)" in moved[0], moved
    assert "progress: 12 of 12 records (100%)" in moved[1], moved
    assert all(line.startswith("progress: ") and "moved:" not in line for line in lines if line not in moved)
    assert lines[-1].startswith("progress: 12 of 12 records (100%)"), lines  # the figures it ended on


def test_a_plan_read_back_from_plan_json_gives_the_bars_their_totals_and_the_estimate() -> None:
    """`run --plan plan.json`: each kind's records and the time estimate are the plan's, after a JSON trip."""
    plan = Plan("m", "source", "target", 0.02, 4)
    plan.fold(Tally.of(Kind.LINE, Fate.CREATED, 3, requests=5))
    plan.fold(Tally.of(Kind.LINE, Fate.UNCHANGED, 2))
    plan.fold(Tally.of(Kind.ACTUAL, Fate.HELD_BACK, 7, requests=9))
    again = planned(json.loads(json.dumps(plan.to_json())))
    assert LineProgress(io.StringIO(), again).total(Kind.LINE) == 5
    assert LineProgress(io.StringIO(), again).total(Kind.ACTUAL) == 7
    assert LineProgress(io.StringIO(), again).total(Kind.SPACE) is None
    assert again.estimate_s == plan.estimate_s > 0
