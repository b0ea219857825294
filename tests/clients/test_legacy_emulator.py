"""The legacy client against the seeded emulator: complete reads, a sound tree, windowed actuals, faults."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from datetime import UTC, date, datetime
from decimal import Decimal

import httpx
import pytest
from fastapi import FastAPI

from bridge import errors
from bridge.cli import exit_code
from bridge.clients.http import RunControls
from bridge.clients.legacy import LegacyClient, open_legacy
from bridge.clients.legacy_actuals import day_end, day_start
from bridge.clients.retry import RetryPolicy
from bridge.config import Secret
from bridge.emulator.app import create_app
from tests.clients.fakes import FakeClock, controls_for
from tests.legacy_contract_hook import HeldTransport

BASE = "http://emulator/api/v1"
WHOLE_RANGE = (date(2015, 1, 1), date(2035, 12, 31))


@pytest.fixture(scope="module")
def app() -> FastAPI:
    """One seeded small workspace shared by the module's read-only tests."""
    return create_app(seed=42, size="small")


@pytest.fixture
def run_controls() -> RunControls:
    controls = controls_for(FakeClock(wall_start=datetime.now(UTC)), policy=RetryPolicy(rng=random.Random(4)))
    controls.budget.floor = 1000
    return controls


@pytest.fixture
async def legacy(app: FastAPI, run_controls: RunControls) -> AsyncIterator[LegacyClient]:
    key = Secret(app.state.credentials.legacy_key)
    async with open_legacy(BASE, key, run_controls, transport=HeldTransport(app)) as client:
        yield client


@pytest.fixture
async def control(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://emulator/_emulator") as client:
        yield client
        await client.post("/faults", json={"rules": []})


@pytest.mark.anyio
async def test_workspace_reads_include_archived_records(legacy: LegacyClient) -> None:
    """Spaces and projects come back with their archived members, each once."""
    spaces = await legacy.spaces()
    projects = await legacy.projects()
    assert any(space.archived for space in spaces)
    assert any(project.status == "archived" for project in projects)
    assert len({s.id for s in spaces}) == len(spaces)
    assert len({p.id for p in projects}) == len(projects)
    assert await legacy.contacts()


@pytest.mark.anyio
async def test_budget_tree_is_whole_and_consistent(legacy: LegacyClient) -> None:
    """Every line's parent is an account of the same read, hidden phases are in, totals are keyed by phase id."""
    project = (await legacy.projects())[0]
    budget = await legacy.budget(project.id)
    accounts = {line.id for line in budget.lines if line.type == "account"}
    assert budget.lines
    assert all(line.parent_id is None or line.parent_id in accounts for line in budget.lines)
    assert len({line.id for line in budget.lines}) == len(budget.lines)
    phase_ids = {phase.id for phase in budget.phases}
    assert any(phase.is_hidden for phase in budget.phases)
    assert set(budget.totals) <= phase_ids
    assert {p.id for p in await legacy.phases(project.id)} == phase_ids
    assert {f.id for f in await legacy.fringes(project.id)} == {f.id for f in budget.fringes}


@pytest.mark.anyio
async def test_windowed_actuals_equal_one_whole_read(legacy: LegacyClient) -> None:
    """Small windows, split when over max_rows, yield exactly the rows and totalAmount of one whole-range read."""
    project = (await legacy.projects())[0]
    body, _ = await legacy.get_json(
        f"/projects/{project.id}/actuals",
        [("startDate", day_start(WHOLE_RANGE[0])), ("endDate", day_end(WHOLE_RANGE[1]))],
    )
    assert isinstance(body, dict)
    whole = {row["id"] for row in body["actuals"]}
    assert len(whole) > 40  # enough rows that max_rows=40 forces splits
    reader, rows = legacy.actuals(project.id, *WHOLE_RANGE, max_rows=40)
    ids = [actual.id async for actual in rows]
    assert len(ids) == len(set(ids))
    assert set(ids) == whole
    assert reader.summary.total_amount == Decimal(str(body["totalAmount"])).quantize(reader.summary.total_amount)


@pytest.mark.anyio
async def test_legacy_429s_are_waited_out(legacy: LegacyClient, control: httpx.AsyncClient) -> None:
    """A legacy route answering 429 half the time still yields every read."""
    rule = {"kind": "rate_limit", "rate": 0.3, "route": "/api/v1/*", "retryAfterS": 1}
    await control.post("/faults", json={"seed": 5, "rules": [rule]})
    for _ in range(10):
        assert await legacy.contacts()
    stats = (await control.get("/stats")).json()
    assert sum(stats["faultsInjected"].values()) > 0


@pytest.mark.anyio
async def test_wrong_key_is_a_resumable_stop(app: FastAPI, run_controls: RunControls) -> None:
    """A key the service does not know stops the run (exit 5, credentials refused) on the first read."""
    transport = HeldTransport(app)
    async with open_legacy(BASE, Secret("lk_wrong_0123456789abcdef"), run_controls, transport=transport) as client:
        with pytest.raises(errors.AuthenticationLost) as caught:
            await client.contacts()
    assert exit_code(caught.value) == 5


@pytest.mark.anyio
async def test_tag_totals_are_keyed_by_known_phases(legacy: LegacyClient) -> None:
    """Every tag's totals name only phases of its project, for the verifier to compare."""
    project = (await legacy.projects())[0]
    phase_ids = {phase.id for phase in await legacy.phases(project.id)}
    totals = await legacy.tag_totals(project.id)
    assert totals
    assert all(set(t.phase_totals) <= phase_ids for t in totals.values())


@pytest.mark.anyio
async def test_formula_cells_reach_the_migration_as_their_text(legacy: LegacyClient) -> None:
    """The emulator serves a formula's value in quantity and its text in quantityFormula; the compact lines a
    migration writes carry the text (A44)."""
    for project in await legacy.projects():
        body, _ = await legacy.get_json(
            f"/projects/{project.id}/budget", [("includeHiddenPhases", "true"), ("expands[]", "lines.phaseData")]
        )
        assert isinstance(body, dict)
        accounts = [body["account"], *body["subAccounts"].values()]
        cells = {
            (line["id"], phase): data
            for account in accounts
            for line in account["lines"]
            for phase, data in (line.get("phaseData") or {}).items()
        }
        formulas = {key: data["quantityFormula"] for key, data in cells.items() if "quantityFormula" in data}
        if formulas:
            break
    assert formulas, "the seeded workspace has quantity formulas"
    assert all(isinstance(cells[key]["quantity"], int | float) for key in formulas)
    lines = {line.id: line for line in await legacy.budget_lines(project.id)}
    assert {key: lines[key[0]].phase_data[key[1]].quantity for key in formulas} == formulas
