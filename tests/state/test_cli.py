"""`bridge status` and `bridge crosswalk export|lookup` read the state file an operator points them at."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Mapping
from pathlib import Path

import pytest
from click.testing import CliRunner

from bridge.cli import cli
from state import CrosswalkEntry, IntentSpec, QuarantineEntry, QuarantineRow, open_state
from state.models import utc_now


@pytest.fixture
def state_file(tmp_path: Path) -> Path:
    """A state file with one finished run, mapped records, an in-flight intent and quarantined records."""
    path = tmp_path / "bridge-state.db"
    with open_state(path) as store:
        run = store.runs.start("acme", "legacy:ws-acme", "v1:wrk_acme", {"concurrency": 4})
        assert run.id is not None
        store.crosswalk.put([CrosswalkEntry("spaces", "S1", "spc_1"), CrosswalkEntry("phases", "est", "phs_1", "P1")])
        store.journal.record(
            IntentSpec("lines:P1:0", "lines", "POST", "/budget/lines/bulk", "k" * 20, "{}", ("L1",), "P1")
        )
        store.journal.mark_sent("lines:P1:0")
        store.quarantine.add(
            [QuarantineEntry("lines", "L9", "amount_not_a_number", "rate is NaN", "P1", "rate", "NaN")]
        )
        store.runs.finish(run.id, "stopped")
    return path


def _invoke(*args: str, env: Mapping[str, str | None] | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args), env=env)
    return result.exit_code, result.stdout, result.stderr


def test_status_shows_runs_counts_in_flight_and_quarantine(state_file: Path) -> None:
    """The status tables name the run, per-kind counts, the in-flight intent and quarantine codes."""
    code, out, _ = _invoke("status", "--state", str(state_file))
    assert code == 0
    assert "acme" in out
    assert "stopped" in out
    assert "in flight: 1 intent(s)" in out
    assert "lines:P1:0" in out
    assert "amount_not_a_number x1" in out


def test_status_json_is_machine_readable(state_file: Path) -> None:
    """--json gives the same facts as a JSON document."""
    code, out, _ = _invoke("status", "--json", "--state", str(state_file))
    assert code == 0
    status = json.loads(out)
    assert (status["source"], status["target"]) == ("legacy:ws-acme", "v1:wrk_acme")
    assert status["runs"][0]["status"] == "stopped"
    assert status["records"]["spaces"] == {"migrated": 1, "quarantined": 0}
    assert status["records"]["lines"] == {"migrated": 0, "quarantined": 1}
    assert status["journal"]["lines"]["sent"] == 1
    assert [i["step_key"] for i in status["in_flight"]] == ["lines:P1:0"]
    assert status["quarantine_by_code"] == {"amount_not_a_number": 1}


def test_state_location_comes_from_bridge_state(state_file: Path) -> None:
    """With no --state option, BRIDGE_STATE names the file."""
    code, out, _ = _invoke("crosswalk", "lookup", "spaces", "S1", env={"BRIDGE_STATE": str(state_file)})
    assert (code, out.strip()) == (0, "spc_1")


def test_lookup_as_json_names_the_record_and_its_v1_id(state_file: Path) -> None:
    """--json: one object a script can read, the record named as asked."""
    code, out, _ = _invoke(
        "crosswalk", "lookup", "--json", "--state", str(state_file), "--scope", "P1", "phases", "est"
    )
    assert code == 0
    assert json.loads(out) == {"kind": "phases", "scope": "P1", "legacy_id": "est", "v1_id": "phs_1"}


def test_lookup_respects_the_project_scope(state_file: Path) -> None:
    """A record inside a project is found with --scope and not without it (exit 1, message on stderr)."""
    code, out, _ = _invoke("crosswalk", "lookup", "--state", str(state_file), "--scope", "P1", "phases", "est")
    assert (code, out.strip()) == (0, "phs_1")
    code, out, err = _invoke("crosswalk", "lookup", "--state", str(state_file), "phases", "est")
    assert (code, out) == (1, "")
    assert "not in the crosswalk" in err


@pytest.mark.parametrize("fmt", ["csv", "json"])
def test_export_writes_every_entry_or_one_kind(state_file: Path, fmt: str) -> None:
    """export lists every mapping in CSV or JSON; --kind keeps one kind."""
    code, out, _ = _invoke("crosswalk", "export", "--state", str(state_file), "--format", fmt)
    assert code == 0
    rows = json.loads(out) if fmt == "json" else list(csv.DictReader(io.StringIO(out)))
    assert sorted((r["kind"], r["legacy_id"], r["v1_id"]) for r in rows) == [
        ("phases", "est", "phs_1"),
        ("spaces", "S1", "spc_1"),
    ]
    code, out, _ = _invoke("crosswalk", "export", "--state", str(state_file), "--format", fmt, "--kind", "spaces")
    rows = json.loads(out) if fmt == "json" else list(csv.DictReader(io.StringIO(out)))
    assert [r["v1_id"] for r in rows] == ["spc_1"]


def test_export_of_an_unmapped_kind_says_which_kinds_exist(state_file: Path) -> None:
    """A mistyped kind is not an empty export that looks like success: exit 1 naming the kinds mapped."""
    code, out, err = _invoke("crosswalk", "export", "--state", str(state_file), "--kind", "space")
    assert (code, out) == (1, "")
    assert "'space'" in err
    assert "phases, spaces" in err


def test_export_to_a_file(state_file: Path, tmp_path: Path) -> None:
    """--out writes the export to a file instead of stdout."""
    target = tmp_path / "crosswalk.csv"
    code, out, _ = _invoke("crosswalk", "export", "--state", str(state_file), "--out", str(target))
    assert (code, out) == (0, "")
    assert target.read_text().splitlines()[0].startswith("kind,scope,legacy_id,v1_id")


def test_reading_commands_never_create_a_state_file(tmp_path: Path) -> None:
    """status on a missing file exits 2 with the path named, and creates nothing."""
    missing = tmp_path / "nope.db"
    code, _, err = _invoke("status", "--state", str(missing))
    assert code == 2
    assert str(missing) in err
    assert list(tmp_path.iterdir()) == []


def test_status_answers_while_a_writer_holds_the_write_lock(state_file: Path) -> None:
    """A migration mid-transaction does not block `bridge status` (WAL readers never wait for the writer)."""
    with open_state(state_file) as store, store.database.write() as session:
        session.add(
            QuarantineRow(kind="lines", scope="P1", legacy_id="L10", code="late", message="m", created_at=utc_now())
        )
        session.flush()
        code, out, _ = _invoke("status", "--json", "--state", str(state_file))
        assert code == 0
        assert json.loads(out)["quarantine_by_code"] == {"amount_not_a_number": 1}


def test_status_check_reports_a_sound_file(state_file: Path) -> None:
    """status --check runs the integrity check and says ok for a sound file."""
    code, out, _ = _invoke("status", "--check", "--state", str(state_file))
    assert code == 0
    assert "integrity: ok" in out


def test_state_location_comes_from_the_config_file(state_file: Path, tmp_path: Path) -> None:
    """With neither --state nor BRIDGE_STATE, the --config file's `state` names the file (as for `bridge run`)."""
    config = tmp_path / "bridge.toml"
    config.write_text(f'state = "{state_file}"\n')
    code, out, _ = _invoke("crosswalk", "lookup", "--config", str(config), "spaces", "S1", env={"BRIDGE_STATE": None})
    assert (code, out.strip()) == (0, "spc_1")


def test_without_any_setting_the_bridge_default_file_is_read(
    state_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With no setting at all, the commands read the same default file `bridge run` writes."""
    from bridge.config import Settings

    monkeypatch.chdir(tmp_path)
    state_file.rename(tmp_path / Settings().state)
    code, out, _ = _invoke("crosswalk", "lookup", "spaces", "S1", env={"BRIDGE_STATE": None})
    assert (code, out.strip()) == (0, "spc_1")


def test_a_sqlalchemy_url_names_the_state(state_file: Path) -> None:
    """--state also takes a SQLAlchemy URL."""
    code, out, _ = _invoke("crosswalk", "lookup", "--state", f"sqlite:///{state_file}", "spaces", "S1")
    assert (code, out.strip()) == (0, "spc_1")
