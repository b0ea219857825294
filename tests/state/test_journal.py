"""The journal of intents behaves as a state machine; completion and crosswalk land in one transaction."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from datetime import timedelta

import pytest
from sqlalchemy import text

from state import (
    CrosswalkConflictError,
    CrosswalkEntry,
    IntentConflictError,
    IntentSpec,
    IntentTransitionError,
    QuarantineEntry,
    StateStore,
    UnknownIntentError,
    members_of,
)
from tests.pg import StateTarget


def _spec(
    step: str = "lines:P1:0", body: object = None, key: str | None = None, members: tuple[str, ...] = ("a", "b")
) -> IntentSpec:
    text = json.dumps(body if body is not None else {"lines": [{"description": m} for m in members]})
    return IntentSpec(step, "lines", "POST", "/budget/lines/bulk", key or f"key-{step}-000000000", text, members, "P1")


def test_record_stores_the_exact_request_as_pending(store: StateStore) -> None:
    """A recorded intent is pending, with the body text, key and ordered members exactly as given."""
    spec = _spec(members=("z", "a", "m"))
    intent = store.journal.record(spec)
    stored = store.journal.get(spec.step_key)
    assert stored is not None
    assert (stored.status, stored.attempts) == ("pending", 0)
    assert (stored.body, stored.idempotency_key, stored.path) == (spec.body, spec.idempotency_key, spec.path)
    assert members_of(stored) == ("z", "a", "m")
    assert stored.created_at == intent.created_at


def test_recording_the_same_step_again_returns_the_stored_intent(store: StateStore) -> None:
    """Re-recording a step (a resumed run re-plans it) changes nothing and returns the first record."""
    first = store.journal.record(_spec())
    store.journal.mark_sent(first.step_key)
    again = store.journal.record(_spec())
    assert (again.status, again.attempts, again.created_at) == ("sent", 1, first.created_at)


@pytest.mark.parametrize(
    ("changed", "named"),
    [
        (_spec(body={"lines": []}), "body"),
        (_spec(key="another-key-0000000000"), "idempotency key"),
        (_spec(members=("b", "a")), "members"),
    ],
)
def test_recording_a_step_with_another_request_is_refused(store: StateStore, changed: IntentSpec, named: str) -> None:
    """A step key journalled with one request and re-recorded with another raises, naming what differs."""
    store.journal.record(_spec())
    with pytest.raises(IntentConflictError, match=named):
        store.journal.record(changed)


def test_two_steps_never_share_an_idempotency_key(store: StateStore) -> None:
    """A second step with the first step's Idempotency-Key is refused (it would replay the wrong response)."""
    store.journal.record(_spec("s1", key="shared-key-000000000"))
    with pytest.raises(IntentConflictError, match="already used by step 's1'"):
        store.journal.record(_spec("s2", key="shared-key-000000000"))


def test_complete_writes_ids_and_completion_together(store: StateStore) -> None:
    """complete() makes the intent done and maps every member, with the response summary kept."""
    spec = _spec()
    store.journal.record(spec)
    store.journal.mark_sent(spec.step_key)
    entries = [CrosswalkEntry("lines", m, f"lin_{m}", "P1", "h") for m in spec.members]
    store.journal.complete(spec.step_key, entries, '{"status": 201}', request_id="req_9")
    done = store.journal.get(spec.step_key)
    assert done is not None
    assert (done.status, done.response_summary, done.last_request_id) == ("done", '{"status": 201}', "req_9")
    assert store.crosswalk.lookup_many("lines", spec.members, "P1") == {"a": "lin_a", "b": "lin_b"}
    assert store.journal.in_flight() == []


def test_a_failed_completion_leaves_neither_ids_nor_completion(store: StateStore) -> None:
    """When one crosswalk entry conflicts, no entry of the request is written and the intent stays sent."""
    store.crosswalk.put([CrosswalkEntry("lines", "b", "lin_OTHER", "P1")])
    spec = _spec()
    store.journal.record(spec)
    store.journal.mark_sent(spec.step_key)
    with pytest.raises(CrosswalkConflictError, match="lin_OTHER"):
        store.journal.complete(spec.step_key, [CrosswalkEntry("lines", m, f"lin_{m}", "P1") for m in spec.members])
    assert store.crosswalk.lookup("lines", "a", "P1") is None
    intent = store.journal.get(spec.step_key)
    assert intent is not None
    assert intent.status == "sent"


def test_completing_a_done_intent_again_is_harmless(store: StateStore) -> None:
    """Re-applying the same completion (a crash right after the commit) changes nothing."""
    spec = _spec()
    store.journal.record(spec)
    entries = [CrosswalkEntry("lines", m, f"lin_{m}", "P1") for m in spec.members]
    store.journal.complete(spec.step_key, entries)
    store.journal.complete(spec.step_key, entries)
    assert store.crosswalk.counts() == {"lines": 2}


def test_fail_keeps_code_and_request_id_and_allows_a_retry(store: StateStore) -> None:
    """A failed intent keeps the error code and request id; mark_sent retries it and counts the attempt."""
    spec = _spec()
    store.journal.record(spec)
    store.journal.mark_sent(spec.step_key)
    failed = store.journal.fail(spec.step_key, "internal_error", "req_1")
    assert (failed.status, failed.last_error_code, failed.last_request_id) == ("failed", "internal_error", "req_1")
    retried = store.journal.mark_sent(spec.step_key)
    assert (retried.status, retried.attempts) == ("sent", 2)


def test_quarantine_files_the_records_and_closes_the_intent(store: StateStore) -> None:
    """quarantine() marks the intent quarantined and files each record with code, field and value."""
    spec = _spec()
    store.journal.record(spec)
    entry = QuarantineEntry("lines", "a", "validation", "rate is not a number", "P1", "rate", "1,000.00")
    store.journal.quarantine(spec.step_key, [entry], request_id="req_2")
    intent = store.journal.get(spec.step_key)
    assert intent is not None
    assert (intent.status, intent.last_error_code) == ("quarantined", "validation")
    [row] = store.quarantine.entries()
    assert (row.legacy_id, row.code, row.field, row.value, row.step_key) == (
        "a",
        "validation",
        "rate",
        "1,000.00",
        spec.step_key,
    )


TRANSITIONS: dict[str, Callable[[StateStore, str], object]] = {
    "mark_sent": lambda s, k: s.journal.mark_sent(k),
    "complete": lambda s, k: s.journal.complete(k, []),
    "fail": lambda s, k: s.journal.fail(k, "x"),
    "quarantine": lambda s, k: s.journal.quarantine(k, []),
}
ALLOWED = {
    "pending": {"mark_sent", "complete", "fail", "quarantine"},
    "sent": {"mark_sent", "complete", "fail", "quarantine"},
    "failed": {"mark_sent", "fail", "quarantine"},
    "done": {"complete"},
    "quarantined": {"quarantine"},
}
REACH: dict[str, tuple[str, ...]] = {
    "pending": (),
    "sent": ("mark_sent",),
    "failed": ("fail",),
    "done": ("complete",),
    "quarantined": ("quarantine",),
}


@pytest.mark.parametrize("status", list(ALLOWED))
@pytest.mark.parametrize("transition", list(TRANSITIONS))
def test_only_the_state_machines_transitions_are_allowed(store: StateStore, status: str, transition: str) -> None:
    """Each (status, transition) pair is allowed or refused exactly as the journal's diagram says."""
    spec = _spec()
    store.journal.record(spec)
    for step in REACH[status]:
        TRANSITIONS[step](store, spec.step_key)
    if transition in ALLOWED[status]:
        TRANSITIONS[transition](store, spec.step_key)
    else:
        with pytest.raises(IntentTransitionError, match=f"it is {status}"):
            TRANSITIONS[transition](store, spec.step_key)
        intent = store.journal.get(spec.step_key)
        assert intent is not None
        assert intent.status == status


def test_an_unknown_step_key_is_an_error(store: StateStore) -> None:
    """A transition on a step never recorded is refused with the key named."""
    with pytest.raises(UnknownIntentError, match="nope"):
        store.journal.mark_sent("nope")


def test_in_flight_lists_pending_and_sent_oldest_first_with_their_age(store: StateStore) -> None:
    """in_flight() returns pending and sent intents, oldest first, each with its creation time."""
    for step in ("c", "a", "b", "d"):
        store.journal.record(_spec(step))
    store.journal.mark_sent("a")
    store.journal.complete("b", [])
    flight = store.journal.in_flight()
    assert [i.step_key for i in flight] == ["c", "a", "d"]
    assert flight[0].created_at <= flight[1].created_at <= flight[2].created_at
    assert flight[-1].created_at - flight[0].created_at < timedelta(minutes=1)


def test_counts_show_every_status_per_kind(store: StateStore) -> None:
    """counts() gives, per kind, how many intents are in each status (zeros included)."""
    for step in ("a", "b", "c"):
        store.journal.record(_spec(step))
    store.journal.mark_sent("b")
    store.journal.quarantine("c", [])
    assert store.journal.counts() == {"lines": {"pending": 1, "sent": 1, "done": 0, "failed": 0, "quarantined": 1}}


def test_concurrent_writers_from_threads_all_commit(store: StateStore) -> None:
    """Completions from many threads at once (the engine's to_thread calls) all commit, none hit a lock error."""
    from concurrent.futures import ThreadPoolExecutor

    steps = [f"lines:P1:{n}" for n in range(40)]
    for step in steps:
        store.journal.record(_spec(step, members=(f"{step}-a", f"{step}-b")))

    def finish(step: str) -> None:
        store.journal.complete(step, [CrosswalkEntry("lines", f"{step}-{m}", f"lin_{step}_{m}", "P1") for m in "ab"])

    with ThreadPoolExecutor(max_workers=8) as pool:
        list(pool.map(finish, steps))
    assert store.journal.counts()["lines"]["done"] == 40
    assert store.crosswalk.counts() == {"lines": 80}


def test_read_modify_write_transitions_from_threads_lose_no_update(store: StateStore) -> None:
    """Eighty retries of one intent from eight threads count eighty attempts; one step recorded by all is one row."""
    from concurrent.futures import ThreadPoolExecutor

    store.journal.record(_spec("lines:P1:retried"))
    with ThreadPoolExecutor(max_workers=8) as pool:
        list(pool.map(lambda _n: store.journal.mark_sent("lines:P1:retried"), range(80)))
        recorded = list(pool.map(lambda _n: store.journal.record(_spec("lines:P1:raced")), range(16)))
    retried = store.journal.get("lines:P1:retried")
    assert retried is not None
    assert retried.attempts == 80
    assert {row.created_at for row in recorded} == {recorded[0].created_at}
    assert store.journal.counts()["lines"]["pending"] == 1


def test_group_commit_records_and_completes_several_intents_at_once(store: StateStore) -> None:
    """record_many and complete_many apply each intent's transition, all in one transaction."""
    specs = [_spec(f"s{n}", members=(f"m{n}",)) for n in range(3)]
    store.journal.record_many(specs)
    assert [i.step_key for i in store.journal.in_flight()] == ["s0", "s1", "s2"]
    store.journal.complete_many(
        [(s.step_key, [CrosswalkEntry("lines", f"m{n}", f"lin_{n}", "P1")]) for n, s in enumerate(specs)]
    )
    assert store.journal.in_flight() == []
    assert store.crosswalk.lookup_many("lines", ["m0", "m1", "m2"], "P1") == {
        "m0": "lin_0",
        "m1": "lin_1",
        "m2": "lin_2",
    }


def test_a_group_commit_with_one_bad_completion_writes_none_of_them(store: StateStore) -> None:
    """When one completion of a group conflicts, no intent of the group is done and no id is written."""
    store.crosswalk.put([CrosswalkEntry("lines", "m1", "lin_OTHER", "P1")])
    specs = [_spec(f"s{n}", members=(f"m{n}",)) for n in range(3)]
    store.journal.record_many(specs)
    with pytest.raises(CrosswalkConflictError):
        store.journal.complete_many(
            [(s.step_key, [CrosswalkEntry("lines", f"m{n}", f"lin_{n}", "P1")]) for n, s in enumerate(specs)]
        )
    assert len(store.journal.in_flight()) == 3
    assert store.crosswalk.lookup_many("lines", ["m0", "m2"], "P1") == {}


AWKWARD = 'say "hi" \\ back\\slash\tand\nnewline, é ß 😀, {"json": [1, null]}, \\u00e9'
STAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z")


def test_a_group_commit_keeps_every_character_null_and_timestamp_it_writes(state_target: StateTarget) -> None:
    """Intents and crosswalk entries written in groups keep quotes, backslashes, control and non-ASCII characters
    exactly, a run id or none, unset columns as NULL, and timestamps as fixed-width UTC text (text order is
    time order); a refresh rewrites the hash and run of existing entries only."""
    body = json.dumps({"lines": [{"description": AWKWARD}]}, ensure_ascii=False)
    with state_target.open() as store:
        run = store.runs.start("m", "src", "dst", {})
        specs = [
            IntentSpec("s0", "lines", "POST", "/p/é", "k0", body, (AWKWARD, "b"), "P é", run.id, "op"),
            IntentSpec("s1", "lines", "POST", "/p", "k1", AWKWARD),
        ]
        assert store.journal.record_many(specs) == ["pending", "pending"]
        for spec in specs:
            stored = store.journal.get(spec.step_key)
            assert stored is not None
            assert IntentSpec(
                stored.step_key, stored.kind, stored.method, stored.path, stored.idempotency_key, stored.body,
                members_of(stored), stored.scope, stored.run_id, stored.operation,
            ) == spec  # fmt: skip
            assert (stored.status, stored.attempts, stored.last_error_code, stored.response_summary) == (
                "pending", 0, None, None,
            )  # fmt: skip
        store.journal.complete_many([("s0", [CrosswalkEntry("lines", AWKWARD, "lin_é", "P é", AWKWARD)]), ("s1", [])])
        store.crosswalk.put([CrosswalkEntry("lines", AWKWARD, "lin_é", "P é", "new"), CrosswalkEntry("x", "y", "z")])
        (entry,) = store.crosswalk.entries("lines")
        assert (entry.legacy_id, entry.v1_id, entry.scope, entry.source_hash, entry.run_id) == (
            AWKWARD, "lin_é", "P é", "new", None,
        )  # fmt: skip
        assert ("x", "", "y", "z", None) in store.crosswalk.links()
    engine = state_target.engine()
    try:
        with engine.connect() as connection:
            stamps = [
                *connection.execute(text("SELECT created_at, updated_at FROM intents")),
                *connection.execute(text("SELECT created_at, updated_at FROM crosswalk")),
            ]
    finally:
        engine.dispose()
    assert len(stamps) == 4
    assert all(STAMP.fullmatch(stamp) for row in stamps for stamp in row)
