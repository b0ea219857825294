"""A throw-away PostgreSQL server on a loopback port, for the tests, ``make fleet-demo`` and the bench.

::

    with LocalPostgres() as server:
        url = server.url                          # postgresql+psycopg://bridge@127.0.0.1:PORT/postgres
        fresh = server.create_database("case_1")  # a new empty database, its URL

It finds the server binaries (``pg_config --bindir``, else the newest /usr/lib/postgresql/*/bin), runs
``initdb`` into a new temporary directory and ``postgres`` on a free port of 127.0.0.1 with trust
authentication for that address only (no other host can connect, and no password exists to leak). PostgreSQL
refuses to run as root, so as root both run as ``nobody`` through ``setpriv`` and the directory is handed to
it. The data is thrown away on stop, so the server runs with ``fsync=off``: a crash test kills clients, never
this server, and a killed client's committed work is in the server's memory either way.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from types import TracebackType

from bridge.errors import ConfigError

USER = "bridge"
START_TIMEOUT_S = 30.0
UNPRIVILEGED = "nobody"


class LocalPostgresUnavailable(ConfigError):  # noqa: N818 -- the tree names conditions (see bridge.errors)
    remedy = "install the PostgreSQL server (`make test` does: apt-get install postgresql), then run again"


def installed_bindirs() -> list[Path]:
    """Where the server binaries may be: ``pg_config --bindir``, then /usr/lib/postgresql/*/bin, newest first."""
    candidates: list[Path] = []
    pg_config = shutil.which("pg_config")
    if pg_config is not None:
        with contextlib.suppress(OSError, subprocess.CalledProcessError):
            answer = subprocess.run([pg_config, "--bindir"], capture_output=True, text=True, check=True)  # noqa: S603
            candidates.append(Path(answer.stdout.strip()))
    # Debian's pg_config (libpq-dev) names /usr/bin, which has no initdb: the versioned directories do.
    installed = Path("/usr/lib/postgresql").glob("*/bin")
    candidates += sorted(installed, key=lambda p: int(p.parent.name) if p.parent.name.isdigit() else 0, reverse=True)
    return candidates


def find_bindir(candidates: list[Path] | None = None) -> Path:
    """The first of ``candidates`` (``installed_bindirs()`` unless given) that holds ``initdb`` and ``postgres``."""
    searched = installed_bindirs() if candidates is None else candidates
    for bindir in searched:
        if (bindir / "initdb").is_file() and (bindir / "postgres").is_file():
            return bindir
    shown = ", ".join(str(path) for path in searched) or "nothing found through pg_config or /usr/lib/postgresql/*/bin"
    raise LocalPostgresUnavailable(f"no PostgreSQL server binaries (initdb, postgres) in {shown}")


def free_port() -> int:
    """A TCP port of 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class LocalPostgres:
    """One temporary PostgreSQL server: ``start`` (or ``with``) runs it, ``stop`` ends it and deletes its data."""

    def __init__(self, bindir: Path | None = None) -> None:
        self._bindir = bindir
        self._directory: Path | None = None
        self._process: subprocess.Popen[bytes] | None = None
        self.port = 0

    @property
    def directory(self) -> Path | None:
        """The server's temporary directory while it runs (data and log), None once stopped."""
        return self._directory

    @property
    def url(self) -> str:
        """The SQLAlchemy URL of the server's ``postgres`` database."""
        return self.url_of("postgres")

    def url_of(self, database: str) -> str:
        """The SQLAlchemy URL of one database of this server."""
        return f"postgresql+psycopg://{USER}@127.0.0.1:{self.port}/{database}"

    def start(self) -> LocalPostgres:
        """Make the data directory, run initdb and the server, and wait until it accepts connections."""
        bindir = find_bindir(None if self._bindir is None else [self._bindir])
        self._directory = Path(tempfile.mkdtemp(prefix="bridge-pg-"))
        data = self._directory / "data"
        try:
            as_user = self._unprivileged(self._directory)
            self._run([*as_user, str(bindir / "initdb"), "-D", str(data), "-U", USER, "-A", "trust", "-E", "UTF8"])
            (data / "pg_hba.conf").write_text("host all all 127.0.0.1/32 trust\n")
            self.port = free_port()
            self._launch()
        except BaseException:
            self.stop()
            raise
        return self

    def _launch(self) -> None:
        """Run the server on this directory's data and port, and wait until it accepts connections."""
        assert self._directory is not None
        bindir = find_bindir(None if self._bindir is None else [self._bindir])
        settings = {"listen_addresses": "127.0.0.1", "port": str(self.port), "unix_socket_directories": ""}
        settings |= {"fsync": "off", "synchronous_commit": "off", "full_page_writes": "off"}
        settings |= {"max_connections": "200", "shared_buffers": "32MB"}
        options = [arg for name, value in settings.items() for arg in ("-c", f"{name}={value}")]
        as_user = self._unprivileged(self._directory)
        with (self._directory / "server.log").open("ab") as log:
            self._process = subprocess.Popen(  # noqa: S603 -- our own binaries and settings, no shell
                [*as_user, str(bindir / "postgres"), "-D", str(self._directory / "data"), *options],
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # a Ctrl-C in the terminal reaches the tests, and stop() ends this
            )
        self._wait_until_ready()

    def halt(self) -> None:
        """End the server (a fast shutdown: clients are cut off) and keep its data, for ``resume``: a database
        restart, as an operator's fleet meets one."""
        self._end()

    def resume(self) -> None:
        """Run the halted server again on the same data and port."""
        self._launch()

    def create_database(self, name: str) -> str:
        """Create an empty database and return its URL (``name`` goes into the URL as is: keep it plain)."""
        import psycopg  # noqa: PLC0415 -- only the callers that start a server need the driver
        from psycopg import sql  # noqa: PLC0415

        with psycopg.connect(host="127.0.0.1", port=self.port, user=USER, dbname="postgres", autocommit=True) as conn:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
        return self.url_of(name)

    def stop(self) -> None:
        """End the server (a fast shutdown) and remove its directory."""
        self._end()
        if self._directory is not None:
            shutil.rmtree(self._directory, ignore_errors=True)
            self._directory = None

    def _end(self) -> None:
        if self._process is not None:
            self._process.terminate()
            try:
                self._process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
            self._process = None

    def __enter__(self) -> LocalPostgres:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.stop()

    def _unprivileged(self, directory: Path) -> list[str]:
        """The command prefix that drops root for the server (nothing when not root), the directory handed over."""
        if os.geteuid() != 0:
            return []
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            raise LocalPostgresUnavailable("as root, PostgreSQL must run as another user, and setpriv is absent")
        shutil.chown(directory, UNPRIVILEGED, "nogroup")
        # The directory under /tmp must be reachable by that user: mkdtemp made it 0700 for root.
        directory.chmod(0o700)
        return [setpriv, "--reuid", UNPRIVILEGED, "--regid", "nogroup", "--clear-groups"]

    def _run(self, command: list[str]) -> None:
        answer = subprocess.run(command, capture_output=True, text=True, check=False)  # noqa: S603
        if answer.returncode != 0:
            raise LocalPostgresUnavailable(f"{' '.join(command)} failed: {answer.stderr.strip()[-500:]}")

    def _wait_until_ready(self) -> None:
        import psycopg  # noqa: PLC0415

        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            if self._process is not None and self._process.poll() is not None:
                raise LocalPostgresUnavailable(f"the PostgreSQL server exited at start: {self._log_tail()}")
            try:
                psycopg.connect(
                    host="127.0.0.1", port=self.port, user=USER, dbname="postgres", connect_timeout=2
                ).close()
            except psycopg.OperationalError:
                if time.monotonic() > deadline:
                    raise LocalPostgresUnavailable(
                        f"the PostgreSQL server did not accept connections within {START_TIMEOUT_S:.0f} s: "
                        f"{self._log_tail()}"
                    ) from None
                time.sleep(0.05)
            else:
                return

    def _log_tail(self) -> str:
        log = self._directory / "server.log" if self._directory else None
        return log.read_text(errors="replace").strip()[-500:] if log and log.is_file() else "(no log)"
