"""The kind declarations' step graph: every kind is written after the kinds whose v1 ids it needs."""

from __future__ import annotations

from dataclasses import replace

import httpx
import pytest

from bridge.clients.v1_requests import BY_ID
from bridge.engine import kinds
from bridge.engine.kinds import KINDS, Scope, order, spec, stages
from mappings.kinds import Kind
from tests.support.world import Timeline, World


def test_every_kind_comes_after_what_it_needs() -> None:
    """A kind's requests are built from earlier kinds' v1 ids, so those kinds must be written first."""
    position = {kind: index for index, kind in enumerate(order())}
    for entry in KINDS:
        for need in entry.needs:
            assert position[need] < position[entry.kind], f"{entry.kind} is scheduled before {need}"


def test_order_covers_every_kind_once() -> None:
    """No kind is forgotten or written twice by a run."""
    assert sorted(order()) == sorted(Kind)


def test_kinds_in_one_wave_are_independent() -> None:
    """Kinds that run side by side never wait on each other."""
    for wave in stages():
        for kind in wave:
            assert not set(spec(kind).needs) & set(wave)


def test_bulk_limits_are_the_documented_ones() -> None:
    """Lines go 100 per bulk and transactions 500 per bulk (v1 document and A16); other kinds one by one."""
    assert BY_ID[spec(Kind.LINE).create].bulk_limit == 100
    assert BY_ID[spec(Kind.ACTUAL).create].bulk_limit == 500
    assert BY_ID[spec(Kind.SPACE).create].bulk_limit == 1
    assert spec(Kind.PHASE).scope is Scope.PROJECT


class _Recorder(httpx.AsyncBaseTransport):
    """Notes each request as it leaves ("METHOD /path"), then passes it on."""

    def __init__(self, inner: httpx.AsyncBaseTransport, seen: list[str]) -> None:
        self.inner = inner
        self.seen = seen

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.seen.append(f"{request.method} {request.url.path}")
        return await self.inner.handle_async_request(request)


@pytest.mark.anyio
@pytest.mark.parametrize(("first", "then"), [(Kind.CONTACT, Kind.SPACE), (Kind.SPACE, Kind.CONTACT)])
async def test_the_run_executes_the_order_steps_declares(
    world: World, monkeypatch: pytest.MonkeyPatch, first: Kind, then: Kind
) -> None:
    """Declare that one kind needs another and the run writes every record of the one before any of the other."""
    declared = tuple(replace(s, needs=(first,)) if s.kind is then else s for s in kinds.KINDS)
    monkeypatch.setattr(kinds, "KINDS", declared)
    seen: list[str] = []
    world.wrap = lambda transport: _Recorder(transport, seen)
    await world.run()
    route = {Kind.SPACE: "POST /v1/spaces", Kind.CONTACT: "POST /v1/contacts"}
    before = [n for n, request in enumerate(seen) if request == route[first]]
    after = [n for n, request in enumerate(seen) if request == route[then]]
    assert before
    assert after
    assert max(before) < min(after)


def test_a_workspace_kind_may_not_need_a_project_kind(monkeypatch: pytest.MonkeyPatch) -> None:
    """The workspace's waves run before any project's: a declaration that contradicts it is refused."""
    declared = tuple(replace(s, needs=(Kind.LINE,)) if s.kind is Kind.CONTACT else s for s in kinds.KINDS)
    monkeypatch.setattr(kinds, "KINDS", declared)
    with pytest.raises(ValueError, match="contact needs project kinds"):
        kinds.waves(Scope.WORKSPACE)


@pytest.mark.anyio
async def test_a_projects_actuals_are_read_while_its_lines_go_and_written_after(world: World) -> None:
    """Reading actuals needs nothing written, so it starts with the lines; the first transaction bulk, which
    needs the lines' ids, still leaves only after the last line bulk is answered."""
    seen: list[tuple[str, str]] = []
    world.wrap = lambda transport: Timeline(transport, seen)
    await world.run()

    def at(event: str, route_end: str) -> list[int]:
        return [n for n, (what, route) in enumerate(seen) if what == event and route.endswith(route_end)]

    line_bulks_answered = at("answered", "/budget/lines/bulk")
    assert len(line_bulks_answered) > 1
    assert min(at("sent", "/actuals")) < max(line_bulks_answered)
    assert min(at("sent", "/transactions/bulk")) > max(line_bulks_answered)
