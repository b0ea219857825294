"""A run on the emulator: plan without writes, the same plan executed, re-runs, changes, faults, revocation."""

from __future__ import annotations

from collections import Counter
from contextlib import AbstractAsyncContextManager
from dataclasses import replace
from typing import Any, cast

import pytest

from bridge.cli import exit_code
from bridge.clients.limiter import AimdLimiter, Slot
from bridge.errors import AuthenticationLost
from mappings.kinds import Kind
from mappings.notes import NO_PUBLISHED_WRITE
from mappings.private import NEEDS_OPT_IN, TAX_ID_WHY
from tests.support.census import pages
from tests.support.world import SMALL_PROJECT, Timeline, World, fast_controls


async def _writes(world: World) -> int:
    stats = await world.control("GET", "/stats")
    assert isinstance(stats, dict)
    return int(stats["writes"])


@pytest.mark.anyio
async def test_plan_writes_nothing_and_the_run_sends_what_it_planned(world: World) -> None:
    """`bridge plan` leaves the emulator's writes counter where it was; the run then sends exactly that."""
    plan = await world.run(dry_run=True)
    assert await _writes(world) == 0
    assert plan.ledger.of(Kind.LINE).to_create == 62
    done = await world.run()
    assert done.ledger.requests == plan.ledger.requests
    assert {k.kind: k.to_create for k in done.ledger.ordered()} == {k.kind: k.to_create for k in plan.ledger.ordered()}


@pytest.mark.anyio
async def test_second_run_sends_nothing_and_changes_nothing(world: World, reference: Counter[tuple[str, ...]]) -> None:
    """A re-run over an unchanged source finds everything unchanged by hash and sends no request."""
    await world.run()
    writes = await _writes(world)
    again = await world.run()
    assert again.ledger.requests == 0
    assert again.ledger.of(Kind.LINE).unchanged == 62
    assert await _writes(world) == writes
    assert await world.census() == reference


@pytest.mark.anyio
async def test_rerun_after_source_change_patches_and_creates_only_the_difference(world: World) -> None:
    """A changed contact is patched, a new contact created, the rest untouched; nothing is duplicated."""
    await world.run()
    async with world.legacy_client() as legacy:
        contacts = (await legacy.get("/contacts", params={"idMode": "system"})).json()["contacts"]
        changed = contacts[0]["id"]
        assert (await legacy.put(f"/contacts/{changed}", json={"company": "Renamed Co"})).status_code == 200
        assert (await legacy.post("/contacts", json={"name": "Brand New Person"})).status_code in (200, 201)
        project = world.projects[0]
        actuals = (await legacy.get(f"/projects/{project}/actuals", params={"idMode": "system"})).json()["actuals"]
        plain = next(a for a in actuals if not a.get("subactuals"))
        edit = {"amount": 1234.5, "description": "re-coded invoice"}
        assert (await legacy.put(f"/projects/{project}/actuals/{plain['id']}", json=edit)).status_code == 200
    again = await world.run()
    contact = again.ledger.of(Kind.CONTACT)
    assert (contact.to_create, contact.to_update, contact.unchanged) == (1, 1, len(contacts) - 1)
    assert again.ledger.of(Kind.ACTUAL).to_update == 1
    assert again.ledger.requests == 3
    async with world.v1_client() as v1:
        transactions = await pages(v1.get, "/transactions")
    patched = [t for t in transactions if t["description"] == "re-coded invoice"]
    assert [t["amount"] for t in patched] == [{"amount": 123450, "currency": "USD"}]
    census = await world.census()
    assert sum(n for key, n in census.items() if key[2] == "contact:Brand New Person|null") == 1
    assert all(count == 1 for key, count in census.items() if key[0] == "contact")


@pytest.mark.anyio
async def test_commit_then_drop_everywhere_ends_like_a_clean_run(
    world: World, reference: Counter[tuple[str, ...]]
) -> None:
    """Half the writes are applied and their answer lost; replays with the same keys leave no duplicate."""
    await world.control(
        "POST",
        "/faults",
        {
            "seed": 7,
            "rules": [{"kind": "commit_then_drop", "rate": 0.5, "route": "/v1/*", "methods": ["POST", "PATCH"]}],
        },
    )
    await world.run(controls=fast_controls(retry_ratio=50.0))
    stats = await world.control("GET", "/stats")
    assert isinstance(stats, dict)
    assert stats["replays"] > 0
    assert await world.census() == reference


@pytest.mark.anyio
async def test_revoked_token_stops_resumably_then_a_new_token_finishes(
    world: World, reference: Counter[tuple[str, ...]]
) -> None:
    """The token dies after its 40th request: the run stops (exit 5), nothing is written after, a new token resumes."""
    await world.control("POST", "/faults", {"rules": [{"kind": "revoke_token", "route": "/v1/*", "after": 40}]})
    with pytest.raises(AuthenticationLost) as stopped:
        await world.run()
    assert exit_code(stopped.value) == 5
    written = await _writes(world)
    # The token dies once its 40th request is answered; requests already on their way then (at most the
    # run's concurrency, 8: kinds of one wave go side by side) may still land, nothing after them.
    assert written <= 40 + 8
    await world.control("POST", "/faults", {})
    fresh = await world.control("POST", "/tokens", {"workspace": "target", "role": "admin"})
    assert isinstance(fresh, dict)
    world.token = str(fresh["token"])
    await world.run()
    assert await world.census() == reference


@pytest.mark.anyio
async def test_a_run_lists_the_sources_spaces_contacts_and_projects_once(world: World) -> None:
    """Preflight's reads of the workspace-wide lists are the ones the run maps from: each list is asked for
    once (spaces and projects twice, archived and not), however many stages use it."""
    await world.run()
    stats = await world.control("GET", "/stats")
    assert isinstance(stats, dict)
    routes = stats["requests"]["byRoute"]
    listed = {route: routes[f"GET /api/v1/{route}"] for route in ("spaces", "contacts", "projects")}
    assert listed == {"spaces": 2, "contacts": 1, "projects": 2}


@pytest.mark.anyio
async def test_preflight_lists_the_target_while_it_reads_who_the_token_is(world: World) -> None:
    """The v1 lists preflight counts unknown objects in leave once the first identity read has shown that the
    token works, side by side with the two that only time the latency, not after them."""
    await world.control("POST", "/faults", {"latencyMs": 5})  # every v1 answer waits: the reads overlap
    seen: list[tuple[str, str]] = []
    world.wrap = lambda transport: Timeline(transport, seen)
    await world.run(dry_run=True)
    identities = [n for n, event in enumerate(seen) if event == ("answered", "GET /v1/me")]
    lists = [
        n for n, (what, route) in enumerate(seen) if what == "sent" and route in {"GET /v1/spaces", "GET /v1/contacts"}
    ]
    assert len(identities) == 3
    assert identities[0] < min(lists[:2])
    assert max(lists[:2]) < identities[1]


@pytest.mark.anyio
async def test_plan_reports_target_objects_the_state_file_does_not_know(world: World) -> None:
    """A space someone made on the target by hand is reported by preflight, not adopted or touched."""
    async with world.v1_client() as v1:
        made = await v1.post(
            "/spaces", json={"name": "Made By Hand"}, headers={"Idempotency-Key": "by-hand-" + "x" * 20}
        )
        assert made.status_code == 201
    plan = await world.run(dry_run=True)
    assert plan.ledger.unknown_on_target == {Kind.SPACE: 1}
    assert plan.preflight.role == "admin"


@pytest.mark.anyio
async def test_a_split_actuals_tags_arrive_on_each_of_its_items(world: World) -> None:
    """Read back through v1: every item of a tagged, split legacy actual carries that actual's tags."""
    await world.run()
    async with world.legacy_client() as legacy:
        answer = await legacy.get(f"/projects/{SMALL_PROJECT}/actuals", params={"idMode": "system"})
    tagged = {a["number"]: sorted(a["tags"]) for a in answer.json()["actuals"] if a["subactuals"] and a["tags"]}
    assert tagged, "the seeded project has tagged split actuals"
    async with world.v1_client() as v1:
        names = {str(t["id"]): str(t["name"]) for t in await pages(v1.get, "/library/tags")}
        transactions = await pages(v1.get, "/transactions")
    carried = {  # the transactions are untyped JSON: an item's tagIds are a list of ids
        str(t["number"]): {
            tuple(sorted(names[i] for i in item["tagIds"])) for item in cast("list[dict[str, Any]]", t["items"])
        }
        for t in transactions
        if t["number"] in tagged
    }
    assert carried == {number: {tuple(tags)} for number, tags in tagged.items()}


@pytest.mark.anyio
async def test_plan_lists_per_record_what_v1_has_no_published_write_for(world: World) -> None:
    """Line tags, markup excludeFringes and a rate's emoji, note and contact are never sent (no published write)
    and never silently dropped: the plan lists each one on its record as not carried, and the run sends bodies
    without them."""
    plan = await world.run(dry_run=True)
    listed = plan.ledger.to_json()["not_carried"]
    assert isinstance(listed, list)
    fields = {entry["field"].split(".")[-1] for entry in listed}
    assert "tags" in fields
    assert all(entry["kind"] in (Kind.LINE, Kind.CONTACT, Kind.RATE) for entry in listed)
    # A contact's private fields are withheld for want of the opt-in, or (a tax id) have no write (A101).
    private = [entry for entry in listed if entry["field"].startswith("secureInfo.")]
    assert {entry["reason"] for entry in private} <= {NEEDS_OPT_IN, f"{NO_PUBLISHED_WRITE}: {TAX_ID_WHY}"}
    assert all(entry["reason"] == NO_PUBLISHED_WRITE for entry in listed if entry not in private)
    done = await world.run()
    assert len(done.ledger.not_carried) == len(listed)


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("granted", "published", "warned"), [("admin", "admin", False), ("editor", "edit", False), ("viewer", "view", True)]
)
async def test_preflight_warns_on_a_published_role_that_may_not_write(
    world: World, granted: str, published: str, warned: bool
) -> None:
    """Of the published workspace roles /me names, one that may not write budgets is warned about before a send."""
    fresh = await world.control("POST", "/tokens", {"workspace": "target", "role": granted})
    assert isinstance(fresh, dict)
    world.token = str(fresh["token"])
    plan = await world.run(dry_run=True)
    assert plan.preflight.role == published
    assert any("writes may be refused" in warning for warning in plan.preflight.warnings) == warned


@pytest.mark.anyio
async def test_split_items_and_nothing_else_give_way_to_the_requests_others_wait_for(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every split item queues as a leaf (behind waiting bulks and reads); every other request, each write the
    ledger counts and every read, keeps its place in the queue."""
    asked: Counter[bool] = Counter()
    original = AimdLimiter.slot

    def counting(limiter: AimdLimiter, *, leaf: bool = False) -> AbstractAsyncContextManager[Slot]:
        asked[leaf] += 1
        return original(limiter, leaf=leaf)

    monkeypatch.setattr(AimdLimiter, "slot", counting)
    done = await world.run()
    items = done.ledger.of(Kind.SPLIT).requests
    assert items > 0
    assert asked[True] == items
    assert asked[False] >= done.ledger.requests - items > 0


@pytest.mark.anyio
async def test_a_whole_run_after_runs_of_one_project_each_sends_nothing(world: World) -> None:
    """A fleet migrates a workspace one project at a time (each project's library copies patched to its own
    values); a whole-workspace run afterwards finds every record as it wants it, copies included, and sends
    nothing (it once sent PATCHes v1 refuses: a copy's create body, ``sourceId``, as an update)."""
    whole = replace(world, projects=())
    projects = (await whole.run(dry_run=True)).projects
    assert len(projects) > 1
    for project in projects:
        assert not (await replace(world, projects=(project,)).run()).ledger.quarantine
    after = await whole.run()
    assert after.ledger.requests == 0
    assert not after.ledger.quarantine


@pytest.mark.anyio
async def test_a_run_of_one_project_after_a_whole_run_patches_its_first_copies_once_and_is_refused_nothing(
    world: World,
) -> None:
    """The other way round: a whole run makes the first project's copies from the items they were made from; a
    run of that project alone cannot know that, and patches them once to the values they hold (v1 takes them),
    then finds them as it wants them."""
    whole = replace(world, projects=())
    outcome = await whole.run()
    first = replace(world, projects=(outcome.projects[0],))
    patched = await first.run()
    assert not patched.ledger.quarantine
    assert patched.ledger.requests == sum(row.to_update for row in patched.ledger.ordered())
    assert (await first.run()).ledger.requests == 0
