"""Comments, root budget notes and workspace rates through the emulator: a plan without rate packs, a crash in the
middle of the comments, and the dirty world's comment on a quarantined line and rate without a unit."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path

import pytest

from bridge.emulator.core.records import ROOT_NOTE
from bridge.engine.kinds import spec
from bridge.engine.plan import Plan
from mappings.kinds import Kind
from tests.support.forked import KILLED, run_forked
from tests.support.world import World, fresh_world

STARTER = {"plan": "starter"}  # a v1 plan without rate packs (the emulator's ``core.rates.PLANS``)


def _noted(world: World, project_id: str) -> int:
    """1 when the legacy project has a root budget note holding anything, else 0."""
    note = world.service.workspace("source").projects[project_id].notes.get(ROOT_NOTE)
    return int(note is not None and bool(note.text.strip() or note.html.strip()))


def test_rates_on_a_plan_without_rate_packs_are_not_carried_and_the_run_goes_on(world: World) -> None:
    """v1 answers 402 feature_not_available on rate packs: plan and run count every rate as not carried, with
    its money, create no pack, quarantine nothing, and carry everything else."""
    rates = list(world.service.workspace("source").rates.values())

    async def both() -> tuple[Plan, Plan]:
        await world.control("PUT", "/workspaces/target/plan", STARTER)
        return (await world.run(dry_run=True)).ledger, (await world.run()).ledger

    planned, done = asyncio.run(both())
    for ledger in (planned, done):
        assert not ledger.quarantine
        assert ledger.of(Kind.RATE).records == ledger.of(Kind.RATE_PACK).records == 0
        held = {h.kind: s for h, s in ledger.held()}["rate"]
        assert held.count == len(rates)
        assert held.money == {"USD": sum((r.rate for r in rates if r.rate is not None), Decimal(0))}
        assert ledger.of(Kind.COMMENT).to_create > 0
        assert ledger.to_json()["carried_with_losses"] == [
            {
                "kind": "comment",
                "label": spec(Kind.COMMENT).label,
                "records": ledger.of(Kind.COMMENT).records,
                "lost": spec(Kind.COMMENT).losses,
            }
        ]
        assert "the author and the time" in spec(Kind.COMMENT).losses
    assert done.of(Kind.RATE_PACK).requests == 0
    asyncio.run(world.control("PUT", "/workspaces/target/plan", {"plan": "studio"}))
    assert world.list_all("/library/rate-packs") == []


@pytest.fixture
def live(tmp_path: Path) -> Iterator[World]:
    with fresh_world(tmp_path / "state.sqlite").served() as world:
        yield world


@pytest.mark.wire
def test_a_crash_in_the_middle_of_the_comments_resumes_with_no_duplicate_comment(live: World) -> None:
    """Killed right after v1 committed the third comment (before its answer was read), resumed: v1 lists each
    legacy comment and the root note once, each carrying its legacy id."""
    assert run_forked(live, "comment:service:3") == KILLED
    assert run_forked(live) == 0
    project = live.service.workspace("source").projects[live.project_id]
    (v1_project,) = [p["id"] for p in live.list_all("/projects") if p["name"] == project.name]
    listed = live.list_all(f"/projects/{v1_project}/comments")
    assert len(listed) == len(project.comments) + _noted(live, live.project_id)
    assert max(Counter(c["content"] for c in listed).values()) == 1
    for legacy_id in project.comments:
        assert sum(f"(legacy id {legacy_id.replace('_', chr(92) + '_')})" in c["content"] for c in listed) == 1


def test_the_dirty_comment_goes_on_the_project_and_the_rate_without_unit_is_quarantined(tmp_path: Path) -> None:
    """The comment on a line the bridge quarantines is posted on the project (its v1 comment names no line),
    and the rate without a unit is quarantined with rate.unit_missing while the other rates are carried."""
    world = fresh_world(tmp_path / "state.sqlite", dirty=True, projects=())
    dirty = world.service.dirty_remarks
    comment, rate = dirty["comment_on_quarantined_line"], dirty["rate_without_unit"]
    done = asyncio.run(world.run()).ledger
    codes = {(q.kind, q.legacy_id): q.code for q in done.quarantine}
    assert codes[("rate", rate.record_id)] == "rate.unit_missing"
    assert ("comment", comment.record_id) not in codes
    assert done.of(Kind.RATE).to_create == len(world.service.workspace("source").rates) - 1
    (holder,) = [p for p in world.service.workspace("source").projects.values() if comment.record_id in p.comments]
    line = holder.comments[comment.record_id].target_id
    assert any(q.kind == "line" and q.legacy_id == line for q in done.quarantine)
    (v1_project,) = [p["id"] for p in world.list_all("/projects") if p["name"] == holder.name]
    (posted,) = [
        c
        for c in world.list_all(f"/projects/{v1_project}/comments")
        if comment.record_id.split("_")[-1] in c["content"]
    ]
    assert posted["target"] == {"kind": "project", "id": v1_project}
