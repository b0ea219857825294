"""Runs: each invocation of a migration, and the source/target pair a state file is bound to.

The first run binds the file to one source workspace and one target workspace. A later run against any
other pair is refused (``StateBindingError``): its crosswalk would point at objects in the wrong workspace,
and resuming on it would create everything again or, worse, patch the wrong objects. The identities are the
source's URL and the target's workspace id; since every legacy workspace shares the URL, the legacy workspace
itself is recognised by its records (``state.source``).
"""

from __future__ import annotations

import json
import os
import socket
from collections.abc import Mapping

from sqlmodel import col, select

from state.db import Database
from state.errors import SecretInStateError, StateBindingError
from state.models import RUN_STATUSES, RunRow, RunStatus, utc_now
from state.processes import process_identity
from state.redaction import names_a_secret

OptionValue = str | int | float | bool | None | list[str]
"""What a run's options may hold: plain settings (never credentials)."""


class Runs:
    """Starts, finishes and lists runs; guards the state file's source/target binding."""

    def __init__(self, database: Database) -> None:
        self._db = database

    def binding(self) -> tuple[str, str] | None:
        """The (source, target) identities this file is bound to, or None before the first run."""
        with self._db.read() as session:
            # Two columns, not the row: a run's options and report are text of their own, read for nothing here.
            first = session.exec(
                select(RunRow.source_identity, RunRow.target_identity).order_by(col(RunRow.id)).limit(1)
            ).first()
        return (first[0], first[1]) if first else None

    def check_binding(self, source_identity: str, target_identity: str) -> None:
        """Refuse a source/target pair other than the one the file is bound to (preflight calls this)."""
        bound = self.binding()
        if bound is None or bound == (source_identity, target_identity):
            return
        raise StateBindingError(
            f"this state file belongs to source {bound[0]!r} -> target {bound[1]!r}, not source "
            f"{source_identity!r} -> target {target_identity!r}. Point --state (BRIDGE_STATE) at the file of "
            "this pair, or at a new file to start a separate migration"
        )

    def start(
        self,
        migration: str,
        source_identity: str,
        target_identity: str,
        options: Mapping[str, OptionValue],
        plan_fingerprint: str = "",
    ) -> RunRow:
        """Record a new running run; refuses another source/target pair and any option that names a secret.

        A run still marked running when the next one starts was killed before it could finish (runs on one
        state file follow each other): it is marked interrupted, so `bridge status` does not show it as live.
        The run records this process (host, pid, its start), so a reader can tell it is gone before then.
        """
        secret_names = sorted(name for name in options if names_a_secret(name))
        if secret_names:
            raise SecretInStateError(
                f"run options {', '.join(secret_names)} look like credentials and would be stored in the state "
                "file; pass the run's options without secrets (this is a bug in the caller: report it)"
            )
        self.check_binding(source_identity, target_identity)
        with self._db.write() as session:
            for dead in session.exec(select(RunRow).where(col(RunRow.status) == "running")):
                dead.status = "interrupted"
                session.add(dead)
            row = RunRow(
                migration=migration,
                source_identity=source_identity,
                target_identity=target_identity,
                started_at=utc_now(),
                status="running",
                options_json=json.dumps(dict(options), sort_keys=True),
                plan_fingerprint=plan_fingerprint,
                host=socket.gethostname(),
                pid=os.getpid(),
                process_started=process_identity(os.getpid()),
            )
            session.add(row)
            session.flush()
            return row

    def finish(self, run_id: int, status: RunStatus, report: Mapping[str, object] | None = None) -> RunRow:
        """Stamp the run's end, final status and ``report`` (what it did per kind, plain JSON values)."""
        if status not in RUN_STATUSES or status == "running":
            raise ValueError(f"a run finishes as one of {', '.join(RUN_STATUSES[1:])}, not {status!r}")
        with self._db.write() as session:
            row = session.get(RunRow, run_id)
            if row is None:
                raise ValueError(f"no run {run_id} in this state file")
            row.status = status
            row.finished_at = utc_now()
            if report is not None:
                row.report_json = json.dumps(dict(report), sort_keys=True)
            return row

    def last_runs(self, n: int = 5) -> list[RunRow]:
        """The ``n`` most recent runs, newest first."""
        with self._db.read() as session:
            return list(session.exec(select(RunRow).order_by(col(RunRow.id).desc()).limit(n)))

    def get(self, run_id: int) -> RunRow | None:
        """One run by id."""
        with self._db.read() as session:
            return session.get(RunRow, run_id)


def report_of(run: RunRow) -> dict[str, object]:
    """What a run did per kind, as it recorded it when it ended (empty for a run still going or killed)."""
    report: dict[str, object] = json.loads(run.report_json)
    return report


def options_of(run: RunRow) -> dict[str, OptionValue]:
    """The options a run was started with."""
    options: dict[str, OptionValue] = json.loads(run.options_json)
    return options
