"""Runs record what was run against what; a state file is bound to one source and one target."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from state import SecretInStateError, StateBindingError, StateStore, options_of


def test_a_run_records_its_identities_options_and_fingerprint(store: StateStore) -> None:
    """start() keeps the migration, both identities, options and plan fingerprint; finish() stamps the end."""
    run = store.runs.start("acme", "legacy:ws-1", "v1:wrk_1", {"concurrency": 4, "projects": ["P1"]}, "fp-9")
    assert run.id is not None
    assert (run.status, run.finished_at) == ("running", None)
    finished = store.runs.finish(run.id, "completed")
    assert finished.status == "completed"
    assert finished.finished_at is not None
    [latest] = store.runs.last_runs(1)
    assert (latest.migration, latest.plan_fingerprint) == ("acme", "fp-9")
    assert options_of(latest) == {"concurrency": 4, "projects": ["P1"]}


def test_last_runs_are_newest_first(store: StateStore) -> None:
    """last_runs(n) gives the n most recent runs, newest first."""
    for name in ("one", "two", "three"):
        store.runs.start(name, "src", "tgt", {})
    assert [r.migration for r in store.runs.last_runs(2)] == ["three", "two"]


@pytest.mark.parametrize(("source", "target"), [("other-src", "tgt"), ("src", "other-tgt")])
def test_a_state_file_refuses_another_source_or_target(store: StateStore, source: str, target: str) -> None:
    """Resuming a state file against another workspace pair is refused, naming both pairs."""
    store.runs.start("m", "src", "tgt", {})
    with pytest.raises(StateBindingError) as caught:
        store.runs.start("m", source, target, {})
    message = str(caught.value)
    assert all(name in message for name in ("src", "tgt", source, target))
    assert "--state" in message
    assert len(store.runs.last_runs(9)) == 1


@pytest.mark.parametrize("name", ["token", "legacy_key", "v1-token", "webhook_secret", "api_key", "password"])
def test_options_that_name_a_secret_are_refused_without_echoing_the_value(store: StateStore, name: str) -> None:
    """A run whose options carry a credential is refused; the message names the option, never its value."""
    with pytest.raises(SecretInStateError, match=name) as caught:
        store.runs.start("m", "src", "tgt", {name: "canary-s3cr3t-value"})
    assert "canary-s3cr3t-value" not in str(caught.value)
    assert store.runs.last_runs() == []


def test_a_run_cannot_finish_as_running(store: StateStore) -> None:
    """finish() takes a final status only."""
    run = store.runs.start("m", "src", "tgt", {})
    assert run.id is not None
    with pytest.raises(ValueError, match="not 'running'"):
        store.runs.finish(run.id, "running")


def test_a_run_left_running_is_marked_interrupted_when_the_next_starts(store: StateStore) -> None:
    """A killed run never finished; the next run marks it interrupted, and finished runs keep their status."""
    done = store.runs.start("m", "src", "tgt", {})
    store.runs.finish(done.id or 0, "completed")
    killed = store.runs.start("m", "src", "tgt", {})
    store.runs.start("m", "src", "tgt", {})
    statuses = {run.id: run.status for run in store.runs.last_runs(3)}
    assert statuses[done.id] == "completed"
    assert statuses[killed.id] == "interrupted"
    assert sorted(statuses.values()) == ["completed", "interrupted", "running"]


def test_a_runs_times_read_back_as_the_utc_instants_written(store: StateStore) -> None:
    """A run's start and end read back as aware UTC datetimes, to the microsecond of the moment written."""
    before = datetime.now(UTC)
    run = store.runs.start("m", "legacy:a", "v1:b", {})
    assert run.id is not None
    store.runs.finish(run.id, "completed")
    after = datetime.now(UTC)
    stored = store.runs.get(run.id)
    assert stored is not None
    assert stored.finished_at is not None
    assert stored.started_at.tzinfo == UTC
    assert before <= stored.started_at <= stored.finished_at <= after
    assert stored.started_at == run.started_at
