"""Mapping throughput: records per second and peak memory mapping a whole generated workspace.

The records come from the emulator's seeded ``large`` workspace read through the legacy surface in process
(ASGI transport, the real legacy client), exactly what a run maps. Reading is timed apart; the figures
that matter are the mapping's own: every family mapped as a dry run would (a lookup that answers a
placeholder id for every record, so every request body is built), timed, then traced with tracemalloc
in a second pass (peak = memory the mapping allocates beyond the records it reads).
Set BENCH_MAPPINGS_SIZE=small|medium|large (default large). If the emulator cannot serve the workspace,
the generator in tests/strategies.py builds it instead, and ``source`` says so.
"""

from __future__ import annotations

import asyncio
import gc
import os
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from functools import partial
from typing import cast

import httpx

from bridge.clients.http import RunControls
from bridge.clients.legacy import open_legacy
from bridge.config import Secret
from bridge.emulator.app import create_app
from bridge.emulator.seed import Size, seeded_service
from mappings.actuals import map_actuals
from mappings.contacts import map_contact
from mappings.errors import MappingError
from mappings.library import plan_currencies, plan_fringes, plan_globals, plan_units
from mappings.lines import bulk_request, plan_budget
from mappings.phases import phase_body, plan_phases
from mappings.records import Actual, Contact, Project, ProjectBudget, Space, Tag
from mappings.spaces import map_project, map_space
from mappings.tags import plan_tags
from tests.strategies import generated_budget

KEY = "lk_bench_mappings_key_0123456789"


@dataclass
class Workspace:
    spaces: list[Space] = field(default_factory=list)
    projects: list[Project] = field(default_factory=list)
    contacts: list[Contact] = field(default_factory=list)
    budgets: list[ProjectBudget] = field(default_factory=list)
    tags: dict[str, list[Tag]] = field(default_factory=dict)
    actuals: dict[str, list[Actual]] = field(default_factory=dict)

    @property
    def records(self) -> int:
        return (
            len(self.spaces)
            + len(self.projects)
            + len(self.contacts)
            + sum(len(b.lines) + len(b.phases) + len(b.fringes) + len(b.globals_) for b in self.budgets)
            + sum(len(t) for t in self.tags.values())
            + sum(len(a) for a in self.actuals.values())
        )


async def _read_emulator(size: str) -> Workspace:
    app = create_app(seeded_service(42, cast(Size, size)), legacy_key=KEY)
    transport = httpx.ASGITransport(app=app)
    workspace = Workspace()
    async with open_legacy("http://emulator/api/v1", Secret(KEY), RunControls(), transport=transport) as client:
        workspace.spaces = list(await client.spaces())
        workspace.projects = list(await client.projects())
        workspace.contacts = list(await client.contacts())
        for project in workspace.projects:
            workspace.budgets.append(await client.budget(project.id))
            workspace.tags[project.id] = list(await client.tags(project.id))
            _, rows = client.actuals(project.id, date(1990, 1, 1), date(2100, 1, 1))
            workspace.actuals[project.id] = [row async for row in rows]
    return workspace


def _generated(size: str) -> Workspace:
    lines = {"small": 300, "medium": 5_000, "large": 50_000}[size]
    budgets = [generated_budget(f"p{i}", lines // 4, seed=i) for i in range(4)]
    return Workspace(budgets=budgets, projects=[Project(id=b.project_id, name=b.project_id) for b in budgets])


def _placeholder(kind: str, scope: str, legacy_id: str) -> str:
    return f"new:{kind}:{scope}:{legacy_id}"


def map_workspace(ws: Workspace) -> tuple[int, int]:
    """Everything a dry run maps; returns (requests built, records quarantined)."""
    built = 0
    quarantined = 0
    singles: list[Callable[[], object]] = [
        *(partial(map_space, s) for s in ws.spaces),
        *(partial(map_project, p, _placeholder) for p in ws.projects),
        *(partial(map_contact, c, "USD") for c in ws.contacts),
    ]
    for single in singles:
        try:
            single()
            built += 1
        except MappingError:
            quarantined += 1
    tags = plan_tags(ws.tags, ws.budgets, ws.projects)
    built += len(tags.tags)
    quarantined += len(tags.quarantined)
    for plan in (
        plan_fringes(ws.budgets, {}),
        plan_globals(ws.budgets, {}),
        plan_units(ws.budgets, {}),
        plan_currencies({b.project_id: b.phases for b in ws.budgets}, {}),
    ):
        built += len(plan.items) + len(plan.copies)
        quarantined += len(plan.quarantined)
    for budget in ws.budgets:
        phases = plan_phases(budget.project_id, budget.phases)
        built += len([phase_body(budget.project_id, p, _placeholder) for p in (*phases.plain, *phases.rollups)])
        symbols = {g.symbol for g in budget.globals_ if g.symbol}
        tree = plan_budget(budget, symbols)
        quarantined += len(tree.quarantined)
        for group in tree.groups():
            request = bulk_request(tree, group, _placeholder, symbols)
            built += 1
            quarantined += len(request.failed)
        currency = next((p.currency.code for p in budget.phases if p.currency and p.currency.code), "USD") or "USD"
        actuals = map_actuals(budget.project_id, "new", ws.actuals.get(budget.project_id, []), currency, _placeholder)
        built += len(actuals.bulks) + sum(len(m.items) for m in actuals.mapped)
        quarantined += len(actuals.quarantined)
    return built, quarantined


def run() -> dict[str, object]:
    size = os.environ.get("BENCH_MAPPINGS_SIZE", "large")
    started = time.perf_counter()
    try:
        workspace = asyncio.run(_read_emulator(size))
        source = f"emulator seed 42 '{size}' via the legacy surface (in process)"
    except Exception as exc:  # noqa: BLE001 - any emulator failure falls back to the generator, and says so
        workspace = _generated(size)
        source = f"tests/strategies.generated_budget ({size}); emulator unavailable: {type(exc).__name__}"
    read_s = time.perf_counter() - started
    gc.collect()
    started, cpu_started = time.perf_counter(), time.process_time()
    built, quarantined = map_workspace(workspace)
    map_s = time.perf_counter() - started
    # CPU time as well: on a shared machine the wall clock also measures the neighbours.
    map_cpu_s = time.process_time() - cpu_started
    # Memory in a second pass: tracemalloc slows allocation several-fold and would distort the rate.
    gc.collect()
    tracemalloc.start()
    map_workspace(workspace)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    records = workspace.records
    return {
        "source": source,
        "records": records,
        "requests_built": built,
        "quarantined": quarantined,
        "read_s": round(read_s, 2),
        "map_s": round(map_s, 2),
        "map_cpu_s": round(map_cpu_s, 2),
        "records_per_s": round(records / map_s) if map_s else None,
        "records_per_cpu_s": round(records / map_cpu_s) if map_cpu_s else None,
        "map_peak_mb": round(peak / 2**20, 1),
    }
