"""Emulator throughput on the v1 surface: requests per second in process and over loopback; the cost of a
transaction page against the size of its project.

Two operations, each timed in process (``httpx.ASGITransport``) and over a real socket (uvicorn on an
ephemeral loopback port, one keep-alive connection): a line-list page (``limit=100`` over a 2,000-line
budget, ``expand=phaseData``) and a bulk create of 100 lines (each with a fresh Idempotency-Key). Requests are
sent one at a time, so the figures are per-request latency inverted, the number later figures compare with.
Over loopback every request also pays the host's socket round trip (on the 2-core sandbox this was measured
at about 45-50 ms even for a 404 on a route-less path), so compare loopback figures only on one host.
Set BENCH_EMULATOR_SECONDS to change how long each figure is measured (default 2 s).

Paging: ``GET /v1/transactions?projectId=...&limit=100`` in process, a page deep into a project of 1,000 and of
100,000 transactions (the best of several pages); a page costs its rows, not the project's, so the ratio of the
two stays near 1 (it was about 60 when every page scanned and sorted the project).
"""

from __future__ import annotations

import asyncio
import itertools
import os
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta

import httpx

from bridge.emulator.app import create_app
from bridge.emulator.control.serving import BackgroundServer
from bridge.emulator.core.seed import seeded_service
from bridge.emulator.core.store import Service

TOKEN = "bench-token-for-the-target-workspace"  # noqa: S105 - the emulator's own test token
SECONDS = float(os.environ.get("BENCH_EMULATOR_SECONDS", "2"))
BUDGET_LINES = 2_000
PAGING_SIZES = (1_000, 100_000)
PAGES_TIMED = 5
_keys = itertools.count()


def _key() -> dict[str, str]:
    return {"Idempotency-Key": f"bench-{next(_keys):012d}"}


async def _prepare(client: httpx.AsyncClient) -> tuple[str, str]:
    """A project holding ``BUDGET_LINES`` lines (under one account) and the id of that account."""
    project = (await client.post("/projects", json={"name": "Bench"}, headers=_key())).json()
    phase = project["defaultBudget"]["estimatePhaseId"]
    url = f"/projects/{project['id']}/budget/lines"
    account = await client.post(url, json={"description": "A", "type": "account", "accountId": "1"}, headers=_key())
    parent = account.json()["id"]
    for start in range(0, BUDGET_LINES, 100):
        lines = [
            {"description": f"L{n}", "parentId": parent, "phaseData": {phase: {"rate": 10.5, "quantity": n % 7}}}
            for n in range(start, start + 100)
        ]
        response = await client.post(f"{url}/bulk", json={"lines": lines}, headers=_key())
        response.raise_for_status()
    return str(project["id"]), str(parent)


async def _rate(send: Callable[[], Awaitable[None]]) -> float:
    """Requests per second of ``send`` over ``SECONDS``."""
    count, started = 0, time.perf_counter()
    while (elapsed := time.perf_counter() - started) < SECONDS:
        await send()
        count += 1
    return round(count / elapsed, 1)


async def _measure(client: httpx.AsyncClient) -> dict[str, float]:
    project, parent = await _prepare(client)
    lines_url = f"/projects/{project}/budget/lines"

    async def page() -> None:
        response = await client.get(lines_url, params={"limit": 100, "expand": "phaseData"})
        response.raise_for_status()

    bulk_body = {"lines": [{"description": f"B{n}", "parentId": parent} for n in range(100)]}

    async def bulk() -> None:
        response = await client.post(f"{lines_url}/bulk", json=bulk_body, headers=_key())
        response.raise_for_status()

    return {"line_page_rps": await _rate(page), "bulk_create_100_rps": await _rate(bulk)}


async def _in_process() -> dict[str, float]:
    app = create_app(seeded_service(42, "small"), token=TOKEN)
    transport = httpx.ASGITransport(app=app)
    headers = {"Authorization": f"Bearer {TOKEN}"}
    async with httpx.AsyncClient(transport=transport, base_url="http://emulator/v1", headers=headers) as client:
        return await _measure(client)


async def _loopback(base_url: str) -> dict[str, float]:
    headers = {"Authorization": f"Bearer {TOKEN}"}
    async with httpx.AsyncClient(base_url=f"{base_url}/v1", headers=headers, timeout=30) as client:
        return await _measure(client)


def _paged_service(size: int) -> tuple[Service, str]:
    """A service whose target holds one project of ``size`` transactions (stored directly, at spread dates)."""
    service = seeded_service(42, "small")
    workspace = service.workspace("target")
    project = service.create_project(workspace, name="Paging")
    start = datetime(2024, 1, 1, tzinfo=UTC)
    for n in range(size):
        when = (start + timedelta(minutes=n * 7919 % size)).isoformat()
        service.create_actual(workspace, project, {"description": f"t{n}", "amount": n, "date": when})
    return service, project.id


async def _page_ms(size: int) -> float:
    """Milliseconds for one transaction page deep into a project of ``size`` (the best of PAGES_TIMED pages)."""
    service, project = _paged_service(size)
    transport = httpx.ASGITransport(app=create_app(service, token=TOKEN))
    headers = {"Authorization": f"Bearer {TOKEN}"}
    async with httpx.AsyncClient(transport=transport, base_url="http://emulator/v1", headers=headers) as client:
        query: dict[str, str] = {"projectId": project, "limit": "100"}
        cursor = (await client.get("/transactions", params=query)).json()["nextCursor"]
        best = float("inf")
        for _ in range(PAGES_TIMED):
            started = time.perf_counter()
            body = (await client.get("/transactions", params={**query, "cursor": cursor})).json()
            best = min(best, time.perf_counter() - started)
            cursor = body["nextCursor"]
    return round(best * 1000, 2)


def run() -> dict[str, object]:
    """The emulator's v1 throughput figures, measured now."""
    in_process = asyncio.run(_in_process())
    small, large = PAGING_SIZES
    # ms per page at each size; their ratio is what paging costs as a project grows
    paging = {f"transaction_page_ms_{size}": asyncio.run(_page_ms(size)) for size in PAGING_SIZES}
    with BackgroundServer(create_app(seeded_service(42, "small"), token=TOKEN)) as base_url:
        loopback = asyncio.run(_loopback(base_url))
    return {
        "budget_lines": BUDGET_LINES,
        "seconds_per_figure": SECONDS,
        "in_process_line_page_rps": in_process["line_page_rps"],
        "in_process_bulk_create_100_rps": in_process["bulk_create_100_rps"],
        "loopback_line_page_rps": loopback["line_page_rps"],
        "loopback_bulk_create_100_rps": loopback["bulk_create_100_rps"],
        **paging,
        "transaction_page_ratio": round(
            paging[f"transaction_page_ms_{large}"] / paging[f"transaction_page_ms_{small}"], 2
        ),
    }
