"""`bridge run` in a forked child that the test can SIGKILL: at a named write point, or at an instant it picks.

The child is forked from the test after the imports, so a run costs its work, not an interpreter start; it
talks to an emulator served on a loopback port (``tests.support.serving``). A ``KillSwitch`` handed to the
command as its observer of the engine's write points makes it SIGKILL itself at a named one; otherwise the
test kills it from outside, wherever it is.
"""

from __future__ import annotations

import contextlib
import gc
import os
import signal
import time
from collections.abc import Callable

from tests.support.killswitch import KillSwitch
from tests.support.world import World

KILLED = -9
POLL_S = 0.005


def fork() -> int:
    """``os.fork()`` with no garbage collection under way in any thread; the child's pid (0 in the child).

    A collection in the server thread may be closing a dead SQLite connection (the GIL released, SQLite's
    global mutex held) at the instant of the fork; the child would inherit the held mutex and hang on its
    first open. So garbage is collected here, and no collection starts in any thread until the fork is done.
    """
    gc.collect()
    gc.disable()
    try:
        return os.fork()
    finally:
        gc.enable()


def run_forked(
    world: World,
    kill_at: str | None = None,
    kill_after: float | None = None,
    armed: Callable[[], bool] | None = None,
) -> int:
    """`bridge run` of the world's projects (all when none) in a forked child; its exit status (-9 if killed).

    ``kill_at`` names a write point (``KillSwitch``). ``kill_after`` has the test SIGKILL the child that
    many seconds after ``armed`` first holds (after the start without ``armed``), wherever it is then: a truly
    random instant, not a named point.
    """
    env = world.env()
    observer = KillSwitch(kill_at) if kill_at else None
    pid = fork()
    if pid == 0:  # the child: import the CLI here, run, and leave without running the parent's cleanups
        code = 70
        try:
            os.environ.clear()
            os.environ.update(env)
            from bridge.cli import cli

            args = ["run", *(f"--project={project}" for project in world.projects)]
            cli.main(args=args, standalone_mode=False, obj=observer)
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
        finally:
            os._exit(code)
    if kill_after is not None:
        deadline = None if armed is not None else time.monotonic() + kill_after
        while deadline is None or time.monotonic() < deadline:
            reaped, status = os.waitpid(pid, os.WNOHANG)
            if reaped:  # finished before its kill time
                return os.waitstatus_to_exitcode(status)
            if deadline is None and armed is not None and armed():
                deadline = time.monotonic() + kill_after
            time.sleep(POLL_S)
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)
