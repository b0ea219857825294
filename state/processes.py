"""Whether the process a state names as its writer (host and pid) still runs."""

from __future__ import annotations

import os
import socket


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
