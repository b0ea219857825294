"""Paging costs a page, not the project: the ledger keeps actuals in date order, so the v1 transaction list is
sliced and a legacy window read takes the actuals dated in it, in the same order and with the same answers as
the scan-and-sort they replace. Rows read are counted, never timed."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta

import httpx
import pytest
from fastapi import FastAPI

from bridge.emulator.app import create_app
from bridge.emulator.core.ledger import Ledger, order_key
from bridge.emulator.core.model import Actual, Project, Workspace
from bridge.emulator.core.store import Service

pytestmark = pytest.mark.anyio
TOKEN = "tok_paging-test-token-0001"
LEGACY_KEY = "paging-legacy-key"
START = datetime(2025, 1, 1, tzinfo=UTC)
ROWS = 3_000
LIMIT = 100


def _actual(actual_id: str, minutes: int) -> Actual:
    moment = START + timedelta(minutes=minutes)
    return Actual(
        id=actual_id, description=actual_id, amount=1, currency="USD", date=moment, created_at=moment, updated_at=moment
    )


def _service(projects: int = 1, rows: int = ROWS) -> tuple[Service, Workspace, list[Project]]:
    """A service whose target holds ``projects`` projects of ``rows`` actuals each, written by the store in a
    shuffled order; every moment is shared by two actuals (ties are ordered by id)."""
    service = Service(seed=3)
    service.create_workspace("source")
    workspace = service.create_workspace("target")
    made = [service.create_project(workspace, name=f"P{n}") for n in range(projects)]
    shuffled = random.Random(5).sample(range(rows), rows)
    for project in made:
        for n in shuffled:
            when = (START + timedelta(minutes=n // 2)).isoformat()
            service.create_actual(workspace, project, {"description": f"t{n}", "amount": n, "date": when})
    return service, workspace, made


def _scan_and_sort(projects: list[Project]) -> list[str]:
    """The order the list had when every request sorted every row (a stable sort, projects in order)."""
    rows = [(p, a) for p in projects for a in p.actuals.values()]
    rows.sort(key=lambda row: (-row[1].date.timestamp(), row[1].id))
    return [a.id for _, a in rows]


class _Reads:
    """Counts the actuals a request reads out of any ledger, and refuses a walk over a whole one."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.count = 0
        read: Callable[[Ledger, str], Actual] = Ledger.__getitem__

        def counted(ledger: Ledger, actual_id: str) -> Actual:
            self.count += 1
            return read(ledger, actual_id)

        def whole(ledger: Ledger) -> Iterator[object]:
            raise AssertionError("a request walked a whole ledger")

        monkeypatch.setattr(Ledger, "__getitem__", counted)
        monkeypatch.setattr(Ledger, "values", whole)
        monkeypatch.setattr(Ledger, "__iter__", whole)


def _client(app: FastAPI, surface: str) -> httpx.AsyncClient:
    headers = {"Authorization": f"Bearer {TOKEN}"} if surface == "v1" else {"X-API-Key": LEGACY_KEY}
    base = "http://emulator/v1" if surface == "v1" else "http://emulator/api/v1"
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url=base, headers=headers)


async def _pages(client: httpx.AsyncClient, params: dict[str, str], reads: _Reads | None = None) -> list[list[str]]:
    pages: list[list[str]] = []
    cursor: str | None = None
    while True:
        before = reads.count if reads else 0
        query = {**params, "limit": str(LIMIT), **({"cursor": cursor} if cursor else {})}
        body = (await client.get("/transactions", params=query)).json()
        pages.append([row["id"] for row in body["data"]])
        if reads is not None:
            assert reads.count - before <= LIMIT + 1, "a page read more than itself and the row after it"
        cursor = body["nextCursor"]
        if cursor is None:
            return pages


async def test_every_transaction_page_reads_its_own_rows_and_the_order_is_the_sorted_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Paging one project's 3,000 transactions, each page reads at most its 100 rows and the one after (is
    there a next page?), never the whole ledger; the pages put together are the scan-and-sort order."""
    service, _, (project,) = _service()
    expected = _scan_and_sort([project])
    app = create_app(service, legacy_key=LEGACY_KEY, token=TOKEN)
    reads = _Reads(monkeypatch)
    async with _client(app, "v1") as client:
        pages = await _pages(client, {"projectId": project.id}, reads)
    assert [row for page in pages for row in page] == expected
    assert len(pages) == ROWS // LIMIT


async def test_a_filtered_list_over_many_projects_keeps_the_sorted_order() -> None:
    """Without projectId the projects' ledgers are merged (ties in project order, as the stable sort kept them);
    a filter selects as the scan did."""
    service, workspace, projects = _service(projects=3, rows=400)
    for project in projects:  # one id in every project, at one moment: only the project order tells them apart
        service.create_actual(
            workspace, project, {"description": "dup", "amount": 1, "date": START.isoformat()}, actual_id="dup"
        )
    app = create_app(service, legacy_key=LEGACY_KEY, token=TOKEN)
    async with _client(app, "v1") as client:
        merged = await _pages(client, {})
        dated = await _pages(client, {"dateFrom": (START + timedelta(minutes=50)).isoformat()})
    assert [row for page in merged for row in page] == _scan_and_sort(projects)
    later = [a for p in projects for a in p.actuals.values() if a.date >= START + timedelta(minutes=50)]
    assert sorted(row for page in dated for row in page) == sorted(a.id for a in later)


async def test_the_first_page_of_a_filtered_list_reads_only_what_it_needs(monkeypatch: pytest.MonkeyPatch) -> None:
    """A filter that most rows pass is applied while merging: the first page reads about a page of rows."""
    service, _, _ = _service(projects=2, rows=2_000)
    app = create_app(service, legacy_key=LEGACY_KEY, token=TOKEN)
    async with _client(app, "v1") as client:
        reads = _Reads(monkeypatch)
        response = await client.get("/transactions", params={"limit": str(LIMIT), "q": "t"})
    assert len(response.json()["data"]) == LIMIT
    assert reads.count < 3 * LIMIT


async def test_a_legacy_window_reads_the_actuals_dated_in_it_in_creation_order(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A window read answers what the scan answered (creation order, both ends inclusive) and reads only the
    actuals dated in the window, not the project's 3,000."""
    service, _, (project,) = _service()
    service.add_api_key("target", LEGACY_KEY)
    first, last = START + timedelta(minutes=500), START + timedelta(minutes=549)
    expected = [a.id for a in project.actuals.values() if first <= a.date <= last]
    app = create_app(service, legacy_key=LEGACY_KEY, token=TOKEN)
    reads = _Reads(monkeypatch)
    async with _client(app, "legacy") as client:
        query = {
            "startDate": first.isoformat().replace("+00:00", "Z"),
            "endDate": last.isoformat().replace("+00:00", "Z"),
        }
        body = (await client.get(f"/projects/{project.id}/actuals", params={**query, "idMode": "system"})).json()
    assert [row["id"] for row in body["actuals"]] == expected
    assert reads.count <= len(expected) + 4  # the window's rows and the few a second's slack lets in


def test_the_ledger_keeps_both_orders_through_replacements_removals_and_clears() -> None:
    """Stored (under its id or another key), re-stored with another date, removed and cleared in a seeded random
    mix, a ledger reads newest first as a stable sort of its actuals would, by position anywhere, and a window
    as filtering them would."""
    rng = random.Random(11)
    ledger = Ledger()
    reference: dict[str, Actual] = {}
    for step in range(4_000):
        choice = rng.random()
        if choice < 0.6 or not reference:
            actual = _actual(f"a{rng.randrange(1500)}", rng.randrange(600))
            # Mostly under its own id; sometimes under another key, as hostile data stores one.
            key = actual.id if rng.random() < 0.8 else f"k{rng.randrange(1500)}"
            ledger[key] = actual
            reference[key] = actual
        elif choice < 0.95:
            gone = rng.choice(sorted(reference))
            del ledger[gone], reference[gone]
        elif step % 7 == 0:
            ledger.clear()
            reference.clear()
        if step % 500 == 0:
            ordered = sorted(reference.values(), key=order_key)
            assert list(ledger.newest_first()) == ordered
            start = rng.randrange(len(ordered) + 1)
            assert ledger.newest_first()[start : start + 37] == ordered[start : start + 37]
            low, high = sorted(START + timedelta(minutes=rng.randrange(600)) for _ in range(2))
            assert ledger.dated_between(low, high) == [a for a in reference.values() if low <= a.date <= high]
            assert ledger.dated_between(None, high) == [a for a in reference.values() if a.date <= high]
    assert list(ledger) == list(reference)
