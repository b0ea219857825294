"""The step graph: every kind is written after the kinds whose v1 ids it needs."""

from __future__ import annotations

from bridge.engine.steps import ORDER, SPECS, Scope, spec, stages
from mappings.kinds import Kind


def test_every_kind_comes_after_what_it_needs() -> None:
    """A kind's requests are built from earlier kinds' v1 ids, so those kinds must be written first."""
    position = {kind: index for index, kind in enumerate(ORDER)}
    for entry in SPECS:
        for need in entry.needs:
            assert position[need] < position[entry.kind], f"{entry.kind} is scheduled before {need}"


def test_order_covers_every_kind_once() -> None:
    """No kind is forgotten or written twice by a run."""
    assert sorted(ORDER) == sorted(Kind)


def test_kinds_in_one_wave_are_independent() -> None:
    """Kinds that run side by side never wait on each other."""
    for wave in stages():
        for kind in wave:
            assert not set(spec(kind).needs) & set(wave)


def test_bulk_limits_are_the_documented_ones() -> None:
    """Lines go 100 per bulk and transactions 500 per bulk (v1 document and A16); other kinds one by one."""
    assert spec(Kind.LINE).bulk_limit == 100
    assert spec(Kind.ACTUAL).bulk_limit == 500
    assert spec(Kind.SPACE).bulk_limit == 1
    assert spec(Kind.PHASE).scope is Scope.PROJECT
