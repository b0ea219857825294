"""The v1 client against the emulator: replays, paging, ETags, auth loss, and each fault of the fault plan."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

import anyio
import httpx
import pytest
from fastapi import FastAPI

from bridge import errors
from bridge.cli import exit_code
from bridge.clients.http import RunControls
from bridge.clients.retry import RetryPolicy
from bridge.clients.v1 import V1Client, open_v1
from bridge.config import Secret
from bridge.emulator.control.faults import FaultPlan
from bridge.emulator.control.state import EmulatorState
from tests.clients.fakes import FakeClock, controls_for

BASE = "http://emulator/v1"
Json = dict[str, Any]


class RecordingTransport(httpx.AsyncBaseTransport):
    """Passes requests to the app and notes, per path, when each was sent and any Retry-After it got back."""

    def __init__(self, inner: httpx.AsyncBaseTransport, clock: FakeClock) -> None:
        self.inner = inner
        self.clock = clock
        self.log: list[tuple[str, str, float, int, float | None]] = []
        # In the order they happened: ("send", time, None) and ("answer", time, Retry-After of a 429).
        self.events: list[tuple[str, float, float | None]] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        sent = self.clock.now
        self.events.append(("send", sent, None))
        response = await self.inner.handle_async_request(request)
        wait = response.headers.get("Retry-After")
        seconds = float(wait) if wait and wait.isdigit() else (1.0 if wait else None)
        self.log.append((request.method, request.url.path, sent, response.status_code, seconds))
        self.events.append(("answer", self.clock.now, seconds if response.status_code == 429 else None))
        return response


@pytest.fixture
def fake_clock() -> FakeClock:
    return FakeClock(wall_start=datetime.now(UTC))


@pytest.fixture
def recorder(v1_app: FastAPI, fake_clock: FakeClock) -> RecordingTransport:
    return RecordingTransport(httpx.ASGITransport(app=v1_app), fake_clock)


@pytest.fixture
def run_controls(fake_clock: FakeClock) -> RunControls:
    controls = controls_for(fake_clock, policy=RetryPolicy(max_attempts=10, rng=random.Random(11)))
    controls.budget.floor = 1000
    return controls


@pytest.fixture
async def client(
    recorder: RecordingTransport, issue_token: Callable[..., str], run_controls: RunControls
) -> AsyncIterator[V1Client]:
    async with open_v1(BASE, Secret(issue_token()), run_controls, transport=recorder) as v1:
        yield v1


async def set_faults(control_client: httpx.AsyncClient, *rules: dict[str, object], seed: int = 1) -> None:
    response = await control_client.post("/faults", json={"seed": seed, "rules": list(rules)})
    assert response.status_code == 200, response.text


async def write(
    client: V1Client, op: str, params: tuple[str, ...], body: Mapping[str, object], key: str | None
) -> Json:
    """A write through the client's one write path, its JSON answer."""
    answer = await client.send_write(op, params, body, key)
    assert isinstance(answer, dict)
    return answer


async def new_project(client: V1Client, name: str = "Film") -> str:
    created = await write(client, "projects_create", (), {"name": name}, f"project-{name}-0123456789")
    return str(created["id"])


async def bulk_lines(client: V1Client, project: str, lines: Sequence[Mapping[str, object]], key: str) -> list[Json]:
    answer = await write(client, "budget_createLinesBulk", (project,), {"lines": list(lines)}, key)
    rows = answer["data"]
    assert isinstance(rows, list)
    return rows


@pytest.mark.anyio
async def test_me_names_the_token_workspace(client: V1Client) -> None:
    """GET /me answers the identity and exactly one workspace."""
    identity = await client.me()
    assert len(identity.workspaces) == 1


@pytest.mark.anyio
async def test_same_key_replays_the_first_create(client: V1Client) -> None:
    """Sending a create twice with one key returns the same project, and only one exists."""
    first = await write(client, "projects_create", (), {"name": "Film"}, "project-film-0123456789")
    second = await write(client, "projects_create", (), {"name": "Film"}, "project-film-0123456789")
    assert second == first
    assert isinstance(first["defaultBudget"], dict)
    assert [p.id async for p in client.projects() if p.name == "Film"] == [first["id"]]


@pytest.mark.anyio
async def test_same_key_other_body_is_a_fatal_conflict(client: V1Client) -> None:
    """Reusing a key for a different request is a bug (exit 4), never retried."""
    await write(client, "projects_create", (), {"name": "Film"}, "project-film-0123456789")
    with pytest.raises(errors.IdempotencyConflict) as caught:
        await write(client, "projects_create", (), {"name": "Other"}, "project-film-0123456789")
    assert exit_code(caught.value) == 4
    assert caught.value.request_id


@pytest.mark.anyio
async def test_lines_list_pages_through_every_line(client: V1Client) -> None:
    """A bulk of 100 plus 30 lines come back once each across pages of the list."""
    project = await new_project(client)
    await bulk_lines(client, project, [{"description": f"L{i}"} for i in range(100)], "bulk-a-0123456789abc")
    await bulk_lines(client, project, [{"description": f"M{i}"} for i in range(30)], "bulk-b-0123456789abc")
    ids = [line.id async for line in client.lines(project)]
    assert len(ids) == len(set(ids)) >= 130


@pytest.mark.anyio
async def test_totals_read_twice_is_served_from_etag(client: V1Client) -> None:
    """An unchanged budget answers 304 on the second totals read and the cached totals are returned."""
    project = await new_project(client)
    first = await client.totals(project)
    second = await client.totals(project)
    assert second.not_modified is True
    assert second.value == first.value


@pytest.mark.anyio
async def test_revoked_token_stops_the_run_resumably(client: V1Client, control_client: httpx.AsyncClient) -> None:
    """A token revoked mid-run ends the next call with AuthenticationLost (exit 5) naming token_revoked."""
    await set_faults(control_client, {"kind": "revoke_token", "route": "/v1/*", "after": 1})
    await client.me()
    with pytest.raises(errors.AuthenticationLost, match="token_revoked") as caught:
        await client.me()
    assert exit_code(caught.value) == 5


@pytest.mark.anyio
async def test_viewer_writing_gets_permission_revoked_with_ability(
    recorder: RecordingTransport, issue_token: Callable[..., str], run_controls: RunControls
) -> None:
    """A token whose role cannot write stops the run and names the ability it lacks."""
    async with open_v1(BASE, Secret(issue_token(role="viewer")), run_controls, transport=recorder) as viewer:
        with pytest.raises(errors.PermissionRevoked) as caught:
            await write(viewer, "projects_create", (), {"name": "Film"}, "project-film-0123456789")
    assert caught.value.required_ability


@pytest.mark.anyio
@pytest.mark.parametrize("form", ["seconds", "http-date"])
async def test_rate_limit_fault_is_waited_out_never_early(
    client: V1Client, control_client: httpx.AsyncClient, recorder: RecordingTransport, form: str
) -> None:
    """Under 30 % 429s every call still succeeds and no request leaves before its Retry-After passed."""
    rule = {"kind": "rate_limit", "rate": 0.3, "route": "/v1/*", "retryAfterS": 2, "retryAfterFormat": form}
    await set_faults(control_client, rule)
    for _ in range(20):
        await client.me()
    limited = [entry for entry in recorder.log if entry[3] == 429]
    assert limited
    not_before: dict[str, float] = {}
    for _, path, sent, status, wait in recorder.log:
        assert sent >= not_before.get(path, 0.0)
        if status == 429 and wait is not None:
            not_before[path] = sent + wait


@pytest.mark.anyio
@pytest.mark.parametrize("kind", ["error_500", "error_502", "error_503", "error_504", "reset"])
async def test_transient_faults_are_retried_to_success(
    client: V1Client, control_client: httpx.AsyncClient, recorder: RecordingTransport, kind: str
) -> None:
    """Server errors and resets on reads and keyed writes are retried until they succeed."""
    project = await new_project(client)
    await set_faults(control_client, {"kind": kind, "rate": 0.4, "route": "/v1/*"}, seed=3)
    for index in range(6):
        await bulk_lines(client, project, [{"description": f"L{index}"}], f"line-{kind}-{index}-0123456789")
        await client.phases(project)
    assert any(status >= 500 for *_, status, _ in recorder.log) or kind == "reset"
    await set_faults(control_client)
    assert len([line async for line in client.lines(project)]) >= 6


@pytest.mark.anyio
async def test_commit_then_drop_replays_without_duplicates(client: V1Client, control_client: httpx.AsyncClient) -> None:
    """A bulk applied but whose answer was lost is retried with the same key: replayed, nothing created twice."""
    project = await new_project(client)
    before = len([line async for line in client.lines(project)])
    await set_faults(
        control_client, {"kind": "commit_then_drop", "rate": 1.0, "route": "*/budget/lines/bulk", "after": 0}
    )
    rule_off = {"kind": "commit_then_drop", "rate": 0.0, "route": "*/budget/lines/bulk"}
    try:
        lines = [{"description": "A"}, {"description": "B"}]
        await bulk_lines(client, project, lines, "bulk-drop-0123456789")
    finally:
        await set_faults(control_client, rule_off)
    after = [line async for line in client.lines(project)]
    assert len(after) == before + 2


@pytest.mark.anyio
async def test_persistent_outage_ends_in_a_resumable_stop(client: V1Client, control_client: httpx.AsyncClient) -> None:
    """A service failing every request ends the call with ServiceUnavailable (exit 3) after bounded attempts."""
    await set_faults(control_client, {"kind": "error_503", "rate": 1.0, "route": "/v1/*"})
    with pytest.raises(errors.ServiceUnavailable) as caught:
        await client.me()
    assert exit_code(caught.value) == 3


@pytest.mark.anyio
async def test_limiter_adapts_to_an_unpublished_rate_limit(
    emulator_state: EmulatorState,
    recorder: RecordingTransport,
    issue_token: Callable[..., str],
    fake_clock: FakeClock,
) -> None:
    """Against a token bucket it was never told about, a run finishes every call, shrinks its window, and
    never sends before a Retry-After; emulator and client share one fake clock, so nothing really waits."""
    emulator_state.faults.clock = fake_clock.monotonic
    emulator_state.faults.set_plan(FaultPlan.model_validate({"rateLimit": {"capacity": 4, "refillPerS": 2}}))
    controls = controls_for(fake_clock, concurrency=8, policy=RetryPolicy(max_attempts=20, rng=random.Random(3)))
    controls.budget.floor = 1000
    async with (
        open_v1(BASE, Secret(issue_token()), controls, transport=recorder) as v1,
        anyio.create_task_group() as group,
    ):
        for _ in range(40):
            group.start_soon(v1.me)
    statuses = [status for *_, status, _ in recorder.log]
    assert statuses.count(200) == 40
    assert statuses.count(429) > 0
    assert controls.gate.window < 8
    limited_until = 0.0
    for kind, at, wait in recorder.events:
        if kind == "send":
            assert at >= limited_until  # nothing leaves while a received Retry-After is still running
        elif wait is not None:
            limited_until = max(limited_until, at + wait)


@pytest.mark.anyio
async def test_library_item_copied_into_project_once(client: V1Client) -> None:
    """A workspace fringe added to a project twice yields one copy: 201 first, then 200 with the same id."""
    project = await new_project(client)
    body = {"name": "FICA", "calculationType": "percent", "rate": 7.65}
    fringe = await write(client, "library_createFringe", (), body, "fringe-fica-0123456789")
    first = await write(client, "library_addProjectFringe", (project,), {"sourceId": fringe["id"]}, None)
    second = await write(client, "library_addProjectFringe", (project,), {"sourceId": fringe["id"]}, None)
    assert second["id"] == first["id"]
    assert [copy.id async for copy in client.project_copies(project, "fringes")] == [first["id"]]


@pytest.mark.anyio
async def test_transactions_bulk_items_and_list(client: V1Client) -> None:
    """A bulk of transactions returns in request order with Money amounts; a split adds items; the list finds them."""
    project = await new_project(client)
    [line] = await bulk_lines(client, project, [{"description": "Camera"}], "line-camera-0123456789")
    bodies = [
        {
            "type": "Invoice",
            "amount": {"amount": cents, "currency": "USD"},
            "timestamp": "2025-01-02T00:00:00Z",  # published format: date-time
            "projectId": project,
        }
        for cents in (1250, 999)
    ]
    answer = await write(client, "transactions_createBulk", (), {"transactions": bodies}, "txn-bulk-0123456789abc")
    created = answer["data"]
    assert isinstance(created, list)
    assert [t["amount"]["amount"] for t in created] == [1250, 999]
    part = {"amount": {"amount": 1250, "currency": "USD"}, "budgetLineId": line["id"]}
    item = await write(client, "transactions_createItem", (created[0]["id"],), part, "txn-item-0123456789abc")
    assert item["budgetLineId"] == line["id"]
    listed = {t.id async for t in client.transactions(project)}
    assert listed == {t["id"] for t in created}


@pytest.mark.anyio
async def test_budget_document_and_totals_agree_on_phase_amounts(client: V1Client) -> None:
    """After writing phase data the budget document and the totals read parse and show the same amount."""
    created = await write(client, "projects_create", (), {"name": "Totals"}, "project-totals-0123456789")
    project = str(created["id"])
    default = created["defaultBudget"]
    assert isinstance(default, dict)
    phase = str(default["estimatePhaseId"])
    cells = {"description": "Camera", "phaseData": {phase: {"rate": 250, "quantity": 4}}}
    [line] = await bulk_lines(client, project, [cells], "line-totals-0123456789")
    patch = {"phaseData": {phase: {"rate": 300, "quantity": 4}}}
    await write(client, "budget_updateLine", (project, str(line["id"])), patch, None)
    document = await client.budget(project)
    totals = await client.totals(project)
    assert line["id"] in {item.id for item in document.value.lines}
    assert totals.value.totals[phase].amount == document.value.totals[phase].amount == 120000
