"""`bridge` driven on a pseudo-terminal of a given size, as an operator's terminal runs it."""

from __future__ import annotations

import fcntl
import os
import re
import select
import struct
import subprocess
import sys
import termios
from pathlib import Path

import pytest

from tests.support.world import World

# The bridge's own colours and cursor moves (rich's live display).
OWN_CSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def on_terminal(
    world: World, *args: str, columns: int = 160, rows: int = 50, cwd: Path | None = None
) -> tuple[int, bytes]:
    """Run `bridge ARGS` with stdin, stdout and stderr on a pseudo-terminal of ``columns`` x ``rows``; its exit
    code and every byte it drew."""
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
    env = world.env(TERM="xterm-256color", COLUMNS=str(columns), LINES=str(rows))
    for name in ("NO_COLOR", "FORCE_COLOR", "TERM_PROGRAM"):
        env.pop(name, None)
    bridge = Path(sys.executable).with_name("bridge")
    child = subprocess.Popen(
        [str(bridge), *args], stdin=slave, stdout=slave, stderr=slave, env=env, close_fds=True, cwd=cwd
    )
    os.close(slave)
    screen = bytearray()
    try:
        while True:
            ready, _, _ = select.select([master], [], [], 120)
            if not ready:
                child.kill()
                pytest.fail(f"bridge {' '.join(args)} printed nothing for 120 s")
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: every holder of the terminal's other end has closed it
                break
            if not chunk:
                break
            screen += chunk
    finally:
        os.close(master)
    return child.wait(timeout=60), bytes(screen)


def text_of(screen: bytes) -> str:
    """What a terminal's scrollback holds of ``screen``, without the colours and cursor moves."""
    return OWN_CSI.sub("", screen.decode("utf-8", "replace")).replace("\r\n", "\n").replace("\r", "\n")
