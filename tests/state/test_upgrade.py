"""A state written by schema revision 0001 is upgraded in place, keeping every record (a SQLite file: with a backup).

Each case runs on both backends; the PostgreSQL 0001 state is the committed SQLite fixture's rows loaded into
a schema built by revision 0001.
"""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine, text

from mappings.kinds import Kind
from state import CrosswalkEntry, QuarantineEntry, SourceRecord, StateBindingError, StateStore, open_state
from state.schema import REVISIONS
from tests.pg import StateTarget, load_sqlite_file

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "state-0001.db"


def _at_0001(state_target: StateTarget) -> StateTarget:
    """``state_target`` holding the 0001 fixture's records, not opened yet."""
    if state_target.backend == "sqlite":
        shutil.copy(FIXTURE, state_target.location)
    else:
        load_sqlite_file(FIXTURE, state_target, "0001")
    return state_target


@pytest.fixture
def upgraded(state_target: StateTarget) -> Iterator[tuple[StateStore, StateTarget]]:
    """The 0001 fixture copied to a new state and opened (which upgrades it)."""
    store = _at_0001(state_target).open()
    yield store, state_target
    store.close()


def _version(state_target: StateTarget) -> str:
    engine = state_target.engine()
    try:
        with engine.connect() as connection:
            return str(connection.execute(text("SELECT version_num FROM alembic_version")).scalar_one())
    finally:
        engine.dispose()


def _file_version(path: Path) -> str:
    with sqlite3.connect(path) as connection:
        return str(connection.execute("SELECT version_num FROM alembic_version").fetchone()[0])


def test_fixture_is_a_revision_0001_file() -> None:
    """The committed fixture really is at the previous schema version (guards the test's premise)."""
    assert _file_version(FIXTURE) == "0001"
    assert REVISIONS.index("0001") < len(REVISIONS) - 1


def test_opening_an_0001_file_upgrades_it_to_the_current_version(upgraded: tuple[StateStore, StateTarget]) -> None:
    """After opening, the state records the newest revision."""
    store, state_target = upgraded
    assert store.schema_version() == REVISIONS[-1]
    assert _version(state_target) == REVISIONS[-1]


def test_every_record_survives_the_upgrade(upgraded: tuple[StateStore, StateTarget]) -> None:
    """Runs, crosswalk, the in-flight intent and quarantine written by 0001 read back unchanged."""
    store, _ = upgraded
    assert store.runs.binding() == ("legacy:ws-acme", "v1:wrk_acme")
    assert store.crosswalk.lookup("phases", "estimate", "P1") == "phs_1"
    assert store.crosswalk.counts() == {"spaces": 1, "projects": 1, "phases": 1}
    [flight] = store.journal.in_flight()
    assert (flight.step_key, flight.status, flight.idempotency_key) == (
        "lines:P1:bulk:0",
        "sent",
        "wb-lines-P1-0-0000000",
    )
    assert flight.body == '{"lines": [{"description": "Camera"}]}'
    assert flight.operation == "budget_createLinesBulk"  # 0003 names the operation of an earlier intent
    [old] = store.quarantine.entries()
    assert (old.legacy_id, old.code, old.field, old.value) == ("C9", "validation", "email", None)


def test_revision_0003_names_each_earlier_write_by_the_first_pattern_it_matches(tmp_path: Path) -> None:
    """Intents journalled before 0003 get the operation of their method and path (a bulk's path is not taken
    for a single create, a workspace library write not for a project's), and an unknown one stays unnamed."""
    path = tmp_path / "bridge-state.db"
    shutil.copy(FIXTURE, path)
    writes = {
        "a": ("POST", "/projects/P1/budget/lines/phase-data/bulk"),
        "b": ("POST", "/budget/lines"),
        "c": ("PATCH", "/projects/P1/library/fringes/F1"),
        "d": ("PATCH", "/library/fringes/F1"),
        "e": ("DELETE", "/spaces/S1"),
    }
    with sqlite3.connect(path) as connection:
        connection.executemany(
            "INSERT INTO intents VALUES (?, 1, 'k', '', ?, ?, ?, '{}', '[]', 'done', 1, NULL, NULL, NULL, "
            "'2026-03-01T09:00:00.000000Z', '2026-03-01T09:00:00.000000Z')",
            [(key, method, where, f"idem-{key}") for key, (method, where) in writes.items()],
        )
    with open_state(path) as store:
        named = {key: intent.operation for key in writes if (intent := store.journal.get(key)) is not None}
    assert named == {
        "a": "budget_updateLinePhaseDataBulk",
        "b": "budget_createLine",
        "c": "library_updateProjectFringe",
        "d": "library_updateFringe",
        "e": "",
    }


def test_an_upgraded_file_takes_new_writes_and_resumes(upgraded: tuple[StateStore, StateTarget]) -> None:
    """The upgraded file accepts the new columns and the in-flight intent completes."""
    store, _ = upgraded
    store.runs.start("acme", "legacy:ws-acme", "v1:wrk_acme", {})
    store.quarantine.add([QuarantineEntry("contacts", "C10", "validation", "bad", field="email", value="x@")])
    store.journal.complete("lines:P1:bulk:0", [CrosswalkEntry("lines", "L1", "lin_1", "P1")])
    assert store.crosswalk.lookup("lines", "L1", "P1") == "lin_1"
    assert {q.legacy_id: q.value for q in store.quarantine.entries()} == {"C9": None, "C10": "x@"}


def test_an_upgraded_file_knows_its_legacy_workspace_by_what_it_migrated_and_quarantined(
    upgraded: tuple[StateStore, StateTarget],
) -> None:
    """0004 takes the workspace-wide records of the crosswalk and the quarantine (kinds read in the singular) as
    the source's: the same workspace is recognised, another behind the same URL is refused."""
    store, _ = upgraded
    assert store.source.known() == {
        SourceRecord(Kind.SPACE, "S1"),
        SourceRecord(Kind.PROJECT, "P1"),
        SourceRecord(Kind.CONTACT, "C9"),
    }
    store.source.recognise([SourceRecord(Kind.PROJECT, "P1"), SourceRecord(Kind.PROJECT, "P2")], "ws-acme")
    with pytest.raises(StateBindingError):
        store.source.recognise([SourceRecord(Kind.PROJECT, "Q1")], "ws-acme")


def test_the_upgrade_keeps_a_backup_of_the_old_file(tmp_path: Path) -> None:
    """Before upgrading, the 0001 file is copied next to it (mode 0600) and the copy stays at 0001."""
    # SQLite only: a file can be copied beside itself; on PostgreSQL each revision's own transaction stands in.
    path = tmp_path / "bridge-state.db"
    shutil.copy(FIXTURE, path)
    open_state(path).close()
    backup = path.with_name(f"{path.name}.v0001.bak")
    assert _file_version(backup) == "0001"
    assert backup.stat().st_mode & 0o077 == 0


def test_an_upgrade_stopped_inside_a_revision_keeps_the_revisions_before_it(
    state_target: StateTarget, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each revision commits on its own: one failing inside 0005 leaves an 0001 state at 0004, and the next
    open applies 0005 and the revisions after it."""
    from alembic import op

    def refuse(*args: object, **kwargs: object) -> None:
        raise RuntimeError("stopped inside revision 0005")

    old = _at_0001(state_target)
    with monkeypatch.context() as patched:
        patched.setattr(op, "add_column", refuse)  # only revision 0005 adds a column
        with pytest.raises(RuntimeError, match="inside revision 0005"):
            old.open()
    assert _version(old) == "0004"
    with old.open() as store:
        assert store.schema_version() == REVISIONS[-1]
        assert store.crosswalk.counts() == {"spaces": 1, "projects": 1, "phases": 1}


def test_a_state_at_the_current_revision_opens_without_alembic(
    state_target: StateTarget, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Opening a state already at this bridge's revision reads its version and runs no upgrade."""
    from state import upgrade

    state_target.open().close()

    def refuse(engine: Engine, target: str) -> None:
        raise AssertionError(f"an upgrade to {target} ran on a current state")

    monkeypatch.setattr(upgrade, "apply", refuse)
    with state_target.open() as store:
        assert store.schema_version() == REVISIONS[-1]
