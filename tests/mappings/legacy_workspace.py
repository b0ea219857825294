"""Read a whole legacy workspace from an emulator app (in process) and map it the way a dry run does.

Shared by the dirty-catalogue test and bench/bench_mappings.py, so both exercise the real legacy client
and every mapping family. Lookups answer a placeholder id for every record, so every body is built.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from functools import partial

import httpx
from fastapi import FastAPI

from bridge.clients.http import RunControls
from bridge.clients.legacy import open_legacy
from bridge.clients.v1_requests import BY_ID
from bridge.config import Secret
from bridge.engine.kinds import spec
from mappings.actuals import map_actual
from mappings.contacts import map_contact
from mappings.errors import MappingError
from mappings.kinds import Kind
from mappings.library import plan_currencies, plan_fringes, plan_globals
from mappings.phases import phase_body, plan_phases
from mappings.records import Actual, Contact, Project, ProjectBudget, Space, Tag
from mappings.spaces import map_project, map_space
from mappings.tags import plan_tags
from tests.mappings.budget_levels import LINES_PER_BULK, mapped_levels, wanted_lines

EVERYTHING = (date(1990, 1, 1), date(2100, 1, 1))
TRANSACTIONS_PER_BULK = BY_ID[spec(Kind.ACTUAL).create].bulk_limit


@dataclass
class LegacyWorkspace:
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


@dataclass
class MappingResult:
    """What mapping a workspace produced: how many requests, and every record set aside."""

    requests: int = 0
    quarantined: list[MappingError] = field(default_factory=list)


async def read_workspace(app: FastAPI, legacy_key: str) -> LegacyWorkspace:
    """Every record the migration reads, through the real legacy client over an in-process transport."""
    workspace = LegacyWorkspace()
    transport = httpx.ASGITransport(app=app)
    async with open_legacy("http://emulator/api/v1", Secret(legacy_key), RunControls(), transport=transport) as client:
        workspace.spaces = list(await client.spaces())
        workspace.projects = list(await client.projects())
        workspace.contacts = list(await client.contacts())
        for project in workspace.projects:
            workspace.budgets.append(await client.budget(project.id))
            workspace.tags[project.id] = list(await client.tags(project.id))
            _, rows = client.actuals(project.id, *EVERYTHING)
            workspace.actuals[project.id] = [row async for row in rows]
    return workspace


def placeholder(kind: str, scope: str, legacy_id: str) -> str:
    return f"new:{kind}:{scope}:{legacy_id}"


def map_workspace(ws: LegacyWorkspace) -> MappingResult:
    """Everything a dry run maps, family by family, with every quarantine collected."""
    out = MappingResult()
    tags = plan_tags(ws.tags, ws.budgets, ws.projects)
    singles: list[Callable[[], object]] = [
        *(partial(map_space, s) for s in ws.spaces),
        *(partial(map_project, p, placeholder, tags.aliases) for p in ws.projects),
        *(partial(map_contact, c, "USD") for c in ws.contacts),
    ]
    for single in singles:
        try:
            single()
            out.requests += 1
        except MappingError as error:
            out.quarantined.append(error)
    out.requests += len(tags.tags)
    out.quarantined += tags.quarantined
    for plan in (
        plan_fringes(ws.budgets, {}),
        plan_globals(ws.budgets, {}),
        plan_currencies({b.project_id: b.phases for b in ws.budgets}, {}),
    ):
        out.requests += len(plan.items) + len(plan.copies)
        out.quarantined += plan.quarantined
    for budget in ws.budgets:
        phases = plan_phases(budget.project_id, budget.phases)
        out.quarantined += phases.quarantined
        out.requests += len([phase_body(budget.project_id, p, placeholder) for p in (*phases.plain, *phases.rollups)])
        lines = wanted_lines(budget)
        out.quarantined += lines.refused
        levels, refused = mapped_levels(lines, placeholder)
        out.requests += sum(math.ceil(len(level) / LINES_PER_BULK) for level in levels)
        out.quarantined += refused
        currency = next((p.currency.code for p in budget.phases if p.currency and p.currency.code), None) or "USD"
        transactions = 0
        for actual in ws.actuals.get(budget.project_id, []):
            try:
                mapped = map_actual(budget.project_id, "new", actual, currency, placeholder)
            except MappingError as error:
                out.quarantined.append(error)
                continue
            transactions += 1
            out.requests += len(mapped.items)
        out.requests += math.ceil(transactions / TRANSACTIONS_PER_BULK)
    return out
