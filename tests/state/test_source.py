"""A state file knows its legacy workspace by the records it has seen there, not by the URL they share."""

from __future__ import annotations

import pytest

from mappings.kinds import Kind
from state import SourceRecord, StateBindingError, StateStore

URL = "https://api.example.com/api/v1"
A = [SourceRecord(Kind.SPACE, "spc_a1"), SourceRecord(Kind.PROJECT, "prj_a1"), SourceRecord(Kind.CONTACT, "con_a1")]
B = [SourceRecord(Kind.PROJECT, "prj_b1"), SourceRecord(Kind.CONTACT, "con_b1")]


def _bind(store: StateStore) -> None:
    store.runs.start("m", f"legacy:{URL}", "v1:wsp_target", {})


def test_before_the_first_run_the_last_source_seen_replaces_the_one_before(store: StateStore) -> None:
    """A plan of another workspace binds nothing: the next preflight's records replace it, and bind at the run."""
    store.source.recognise(B, URL)
    store.source.recognise(A, URL)
    _bind(store)
    assert store.source.known() == set(A)
    with pytest.raises(StateBindingError):
        store.source.recognise(B, URL)


def test_another_workspace_behind_the_same_url_is_refused_naming_both_and_the_remedy(store: StateStore) -> None:
    """None of the file's records in the source: refused, saying what the source holds, what the file has
    seen, and to use that workspace's key or another --state; nothing is learnt from the refused source."""
    store.source.recognise(A, URL)
    _bind(store)
    with pytest.raises(StateBindingError) as caught:
        store.source.recognise(B, URL)
    message = str(caught.value)
    for part in (URL, "0 spaces, 1 project, 1 contact", "among the 3", "prj_a1", "rotated key", "--state"):
        assert part in message
    assert store.source.known() == set(A)
    assert not store.source.recognises(B)
    with pytest.raises(StateBindingError):
        store.source.check(B, URL)


def test_the_same_workspace_is_followed_as_its_records_come_and_go(store: StateStore) -> None:
    """One record still there recognises the workspace and its new records are learnt, so a later source whose
    every first-seen record was deleted is still known by the ones learnt since."""
    store.source.recognise(A, URL)
    _bind(store)
    grown = [A[1], SourceRecord(Kind.PROJECT, "prj_a2")]
    store.source.recognise(grown, URL)
    assert store.source.known() == {*A, grown[1]}
    store.source.recognise([grown[1]], URL)
    assert store.source.recognises([grown[1]])


def test_an_empty_source_is_refused_once_bound_to_records(store: StateStore) -> None:
    """A source listing nothing shows nothing of the file's workspace: refused like another workspace."""
    store.source.recognise(A, URL)
    _bind(store)
    with pytest.raises(StateBindingError) as caught:
        store.source.recognise([], URL)
    assert "0 spaces, 0 projects, 0 contacts" in str(caught.value)


def test_a_file_that_has_seen_an_empty_workspace_learns_the_next_source(store: StateStore) -> None:
    """Bound while its workspace was empty, a file has nothing to recognise it by: it accepts and learns."""
    store.source.recognise([], URL)
    _bind(store)
    assert store.source.recognises(A)
    store.source.recognise(A, URL)
    assert store.source.known() == set(A)
