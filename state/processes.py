"""Whether the process a state names (a writer's session, a run) still runs."""

from __future__ import annotations

import os
import socket
from pathlib import Path
from typing import Literal

PROC = Path("/proc")
Liveness = Literal["live", "gone", "unknown"]


def process_alive(host: str, pid: int) -> bool:
    """True unless ``pid`` on this host is known to be gone (a process on another host counts as gone)."""
    if host != socket.gethostname():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _stat_fields(pid: int) -> list[str] | None:
    """The fields of ``/proc/PID/stat`` from the third (the state) on, or None where /proc does not say."""
    try:
        text = (PROC / str(pid) / "stat").read_text(encoding="ascii", errors="replace")
    except OSError:
        return None
    # The second field, the command's name, is in parentheses and may itself hold spaces or parentheses.
    return text[text.rindex(")") + 2 :].split()


def process_identity(pid: int) -> str | None:
    """What names one process for its whole life: the boot it runs in and its start (clock ticks since boot),
    so a pid reused by a later process is told apart; None where /proc does not say (not Linux)."""
    fields = _stat_fields(pid)
    try:
        boot = (PROC / "sys" / "kernel" / "random" / "boot_id").read_text(encoding="ascii").strip()
    except OSError:
        return None
    # starttime is field 22 of stat(5); the list starts at field 3.
    return None if fields is None or len(fields) < 20 else f"{boot}:{fields[19]}"


def run_liveness(host: str | None, pid: int | None, identity: str | None) -> Liveness:
    """Whether the process a run recorded still runs: ``unknown`` when it recorded none (a run from before
    revision 0008) or ran on another host; ``gone`` when the pid is free, a zombie (killed, not yet reaped) or
    now another process (another start)."""
    if host is None or pid is None or host != socket.gethostname():
        return "unknown"
    if not process_alive(host, pid):
        return "gone"
    fields = _stat_fields(pid)
    if fields is not None and fields[0] in {"Z", "X"}:
        return "gone"
    now = process_identity(pid)
    return "gone" if identity is not None and now is not None and now != identity else "live"
