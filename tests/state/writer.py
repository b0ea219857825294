"""A scripted writer: the sequence of state transitions the crash and disk-full tests interrupt.

Imported by the tests (to compute the snapshot after each transition) and run as a separate process that the
tests kill or starve of disk: forked from the test (``conftest.forked_writer``) or as a fresh interpreter
(``python tests/state/writer.py STATE MODE [ARG]``), STATE a file or a PostgreSQL URL whose migration is in
$WRITER_MIGRATION:

- ``kill-after K``: commit transitions 1..K, then SIGKILL itself (a crash between two transitions);
- ``kill-inside K``: SIGKILL itself inside transition K, after its statements and before its COMMIT;
- ``kill-upgrade K``: open a file of an older schema and SIGKILL itself inside the K-th commit of the open
  (the upgrade's revisions commit first, then the writer's session row);
- ``loop``: run the transitions (resuming where the file stands) and then idle, for a timed kill;
- ``disk-full OUT_DIR``: for N = 1, 2, ... copy STATE_FILE, lower RLIMIT_FSIZE so the N-th WAL frame
  appended cannot be written, run the scenario and write what happened to OUT_DIR (see test_disk_full.py).

``drive`` resumes: it finds which prefix of the transitions the file holds and applies the rest, the way
the engine resumes a run, so every interrupted file can be checked for being resumable too.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path

from sqlalchemy import Engine, event
from sqlalchemy.engine import Connection

from state import CrosswalkEntry, IntentSpec, QuarantineEntry, StateError, StateStore, open_state

SOURCE = "legacy:https://legacy.example/api/v1#ws-acme"
TARGET = "v1:https://v1.example/v1#wrk_acme"
LINE_COUNT = 60
MIGRATION_VARIABLE = "WRITER_MIGRATION"

Transition = Callable[[StateStore], object]


def _run_id(store: StateStore) -> int:
    runs = store.runs.last_runs(1)
    run_id = runs[0].id if runs else None
    assert run_id is not None
    return run_id


def _spec(
    store: StateStore, step: str, kind: str, path: str, members: tuple[str, ...], *, scope: str = ""
) -> IntentSpec:
    body = json.dumps({"items": [{"name": f"{kind} {m}", "memo": "Café ünïcode 東京"} for m in members]})
    return IntentSpec(step, kind, "POST", path, f"wb-{step}-0000000000", body, members, scope, _run_id(store))


LINES = tuple(f"L{n:03d}" for n in range(LINE_COUNT))

TRANSITIONS: tuple[Transition, ...] = (
    lambda s: s.runs.start("acme", SOURCE, TARGET, {"concurrency": 4, "projects": ["P1"]}, "fp-1"),
    lambda s: s.journal.record(_spec(s, "spaces:bulk:0", "spaces", "/spaces", ("S1", "S2", "S3"))),
    lambda s: s.journal.mark_sent("spaces:bulk:0"),
    lambda s: s.journal.complete(
        "spaces:bulk:0", [CrosswalkEntry("spaces", f"S{n}", f"spc_{n}", "", f"h{n}") for n in (1, 2, 3)], "201"
    ),
    lambda s: s.journal.record(_spec(s, "contacts:bulk:0", "contacts", "/contacts", ("C1", "C2"))),
    lambda s: s.journal.mark_sent("contacts:bulk:0"),
    lambda s: s.journal.fail("contacts:bulk:0", "rate_limited", "req_1"),
    lambda s: s.journal.mark_sent("contacts:bulk:0"),
    lambda s: s.journal.quarantine(
        "contacts:bulk:0",
        [
            QuarantineEntry("contacts", c, "validation", "email is invalid", "", "email", "not-an-email")
            for c in ("C1", "C2")
        ],
    ),
    lambda s: s.quarantine.add(
        [QuarantineEntry("lines", "L999", "amount_not_a_number", "rate is NaN", "P1", "rate", "NaN")]
    ),
    lambda s: s.journal.record(_spec(s, "lines:P1:bulk:0", "lines", "/budget/lines/bulk", LINES, scope="P1")),
    lambda s: s.journal.mark_sent("lines:P1:bulk:0"),
    lambda s: s.journal.complete(
        "lines:P1:bulk:0", [CrosswalkEntry("lines", line, f"lin_{line}", "P1", "h") for line in LINES], "201"
    ),
    lambda s: s.runs.finish(_run_id(s), "completed_with_quarantine"),
)

Snapshot = dict[str, list[tuple[object, ...]]]


def snapshot(store: StateStore) -> Snapshot:
    """Everything a transition changes, without timestamps (so two files with the same history compare equal)."""
    return {
        "runs": [
            (r.migration, r.status, r.finished_at is not None, r.plan_fingerprint) for r in store.runs.last_runs(99)
        ],
        "intents": [
            (i.step_key, i.status, i.attempts, i.last_error_code, i.last_request_id, i.response_summary, i.body)
            for status in ("pending", "sent", "done", "failed", "quarantined")
            for i in store.journal.by_status(status)
        ],
        "crosswalk": [(c.kind, c.scope, c.legacy_id, c.v1_id, c.source_hash) for c in store.crosswalk.entries()],
        "quarantine": [
            (q.kind, q.scope, q.legacy_id, q.code, q.field, q.value, q.step_key)
            for q in store.quarantine.entries(include_resolved=True)
        ],
    }


def expected_snapshots(path: Path) -> list[Snapshot]:
    """The snapshot before any transition (index 0) and after each one (index k), from an uninterrupted run."""
    with open_state(path) as store:
        snapshots = [snapshot(store)]
        for transition in TRANSITIONS:
            transition(store)
            snapshots.append(snapshot(store))
    return snapshots


def save_snapshots(snapshots: list[Snapshot], path: Path) -> None:
    """Hand the expected snapshots to a writer subprocess (JSON lines)."""
    path.write_text("".join(json.dumps(snap) + "\n" for snap in snapshots))


def load_snapshots(path: Path) -> list[Snapshot]:
    """Read snapshots written by ``save_snapshots`` (JSON arrays back into tuples)."""
    raw = [json.loads(line) for line in path.read_text().splitlines()]
    return [{table: [tuple(row) for row in rows] for table, rows in snap.items()} for snap in raw]


def drive(
    store: StateStore,
    expected: list[Snapshot],
    *,
    upto: int = len(TRANSITIONS),
    on_start: Callable[[int], None] | None = None,
) -> None:
    """Apply the transitions 1..upto the file does not hold yet; the file must hold an exact prefix of them."""
    done = expected.index(snapshot(store))
    for number, transition in enumerate(TRANSITIONS[done:upto], start=done + 1):
        if on_start is not None:
            on_start(number)
        transition(store)


def _kill_self() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def _kill_inside(store: StateStore, target: int) -> Callable[[int], None]:
    current = {"number": 0}

    @event.listens_for(store.database.engine, "commit")
    def _before_commit(_connection: Connection) -> None:
        if current["number"] == target:
            _kill_self()

    def on_start(number: int) -> None:
        current["number"] = number

    return on_start


def _kill_inside_open(location: str, migration: str, target: int) -> None:
    commits = {"seen": 0}

    # The engine is made inside open_state, so the hook goes on the Engine class (every engine).
    @event.listens_for(Engine, "commit")
    def _before_commit(_connection: Connection) -> None:
        commits["seen"] += 1
        if commits["seen"] == target:
            _kill_self()

    open_state(location, migration=migration)
    raise SystemExit(f"the open made {commits['seen']} commits, fewer than {target}: nothing to kill inside")


def _disk_full_sweep(base: Path, out_dir: Path, expected: list[Snapshot]) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    # Past the limit the kernel sends SIGXFSZ (default: kill); ignored, the write fails with EFBIG instead,
    # which SQLite reports as an I/O error: the same path a full disk (ENOSPC) takes.
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    for n in range(1, 500):
        path = out_dir / f"n{n:03d}.db"
        shutil.copy(base, path)
        outcome: dict[str, object] = {"n": n}
        store = open_state(path)
        page_size = int(store.database.engine.connect().exec_driver_sql("PRAGMA page_size").scalar_one())
        wal = Path(f"{path}-wal")
        limit = wal.stat().st_size + n * (page_size + 24) - 1
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, hard))
        try:
            drive(store, expected)
            outcome["error"] = None
        except StateError as exc:
            outcome["error"] = type(exc).__name__
            outcome["message"] = str(exc)
        try:
            store.close()
        except StateError as exc:
            outcome["close_error"] = type(exc).__name__
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
        (out_dir / f"n{n:03d}.json").write_text(json.dumps(outcome))
        if outcome["error"] is None:
            return


def main(argv: list[str]) -> None:
    location, mode = argv[0], argv[1]
    migration = os.environ.get(MIGRATION_VARIABLE, "default")
    expected = load_snapshots(Path(os.environ["WRITER_EXPECTED"])) if "WRITER_EXPECTED" in os.environ else []
    if mode == "disk-full":
        _disk_full_sweep(Path(location), Path(argv[2]), expected)
        return
    if mode == "kill-upgrade":
        _kill_inside_open(location, migration, int(argv[2]))
    store = open_state(location, migration=migration)
    if mode == "kill-after":
        after = int(argv[2])
        drive(store, expected, upto=after)
        _kill_self()
    if mode == "kill-inside":
        drive(store, expected, on_start=_kill_inside(store, int(argv[2])))
        raise SystemExit("transition never committed: nothing to kill inside")
    print("started", flush=True)
    drive(store, expected, on_start=lambda _n: time.sleep(0.002))
    print("finished", flush=True)
    time.sleep(60)


if __name__ == "__main__":
    main(sys.argv[1:])
