"""The exact wire of every legacy read (always idMode=system, X-API-Key) and how answers become records."""

from __future__ import annotations

import itertools
from collections.abc import Awaitable, Callable, Sequence
from datetime import date, datetime
from typing import Protocol

import httpx
import pytest
import respx

from bridge import errors
from bridge.clients.http import RunControls
from bridge.clients.legacy import BUDGET_EXPANDS, LegacyClient, open_legacy
from bridge.config import Secret

BASE = "https://old.test/api/v1"
KEY = Secret("lk_wire_0123456789abcdefghij")
SYSTEM = ("idMode", "system")


class Identified(Protocol):
    """What every legacy list read returns: records that keep their legacy id."""

    @property
    def id(self) -> str: ...


# name, the client call, path, the answer's list key, one row, the query before idMode
ListRead = tuple[
    str,
    Callable[[LegacyClient], Awaitable[Sequence[Identified]]],
    str,
    str,
    dict[str, object],
    tuple[tuple[str, str], ...],
]
SIMPLE: list[ListRead] = [
    (
        "contacts",
        lambda c: c.contacts(),
        "/contacts",
        "contacts",
        {"id": "c1", "name": "Ana"},
        # Files counted by the inventory (A78); private fields counted, carried only on opt-in (A101).
        (("expands[]", "attachments"), ("expands[]", "taxDocuments"), ("expands[]", "secureInfo")),
    ),
    (
        "phases",
        lambda c: c.phases("p1"),
        "/projects/p1/budget",  # /budget/phases declares no way to ask for hidden phases (A43)
        "phases",
        {"id": "ph1", "type": "estimate", "isHidden": True},
        (("includeHiddenPhases", "true"), ("excludeSubAccounts", "true"), ("expands[]", "phases")),
    ),
    (
        "fringes",
        lambda c: c.fringes("p1"),
        "/projects/p1/budget/fringes",
        "fringes",
        {"id": "f1", "units": "percent"},
        (),
    ),
    (
        "globals",
        lambda c: c.globals("p1"),
        "/projects/p1/budget/globals",
        "globals",
        {"id": "g1", "symbol": "DAYS"},
        (),
    ),
    (
        "accounts",
        lambda c: c.accounts("p1"),
        "/projects/p1/budget/accounts",
        "accounts",
        {"id": "a1", "path": "/1000"},
        (),
    ),
    ("tags", lambda c: c.tags("p1"), "/projects/p1/tags", "tags", {"id": "Night", "name": "Night"}, ()),
]


@pytest.mark.anyio
@pytest.mark.parametrize("case", SIMPLE, ids=[s[0] for s in SIMPLE])
async def test_legacy_list_read_wire(controls: RunControls, case: ListRead) -> None:
    """Each list read is one GET with idMode=system and the key header; rows parse with their id kept."""
    _, call, path, key, row, query = case
    async with respx.mock(assert_all_called=True, using="bridge") as router:
        route = router.get(f"{BASE}{path}").mock(return_value=httpx.Response(200, json={key: [row]}))
        async with open_legacy(BASE, KEY, controls) as client:
            records = await call(client)
    request = route.calls.last.request
    assert tuple(request.url.params.multi_items()) == (*query, SYSTEM)
    assert request.headers["X-API-Key"] == KEY.reveal()
    assert "Authorization" not in request.headers
    assert [r.id for r in records] == [row["id"]]


@pytest.mark.anyio
async def test_spaces_include_archived_merged_by_id(controls: RunControls) -> None:
    """Spaces are read with archived=false and archived=true and merged: each space once, archived ones in."""
    active = [{"id": "s1", "name": "A"}, {"id": "s2", "name": "B"}]
    archived = [{"id": "s3", "name": "Old", "archived": True}, {"id": "s2", "name": "B"}]
    async with respx.mock(assert_all_called=True, using="bridge") as router:
        route = router.get(f"{BASE}/spaces").mock(
            side_effect=[httpx.Response(200, json={"spaces": active}), httpx.Response(200, json={"spaces": archived})]
        )
        async with open_legacy(BASE, KEY, controls) as client:
            spaces = await client.spaces()
    assert [s.id for s in spaces] == ["s1", "s2", "s3"]
    assert [dict(c.request.url.params) for c in route.calls] == [
        {"archived": "false", "idMode": "system"},
        {"archived": "true", "idMode": "system"},
    ]


@pytest.mark.anyio
async def test_projects_active_and_archived(controls: RunControls) -> None:
    """Projects are read per status and merged, so an archived project is never left behind."""
    async with respx.mock(using="bridge") as router:
        route = router.get(f"{BASE}/projects").mock(
            side_effect=[
                httpx.Response(200, json={"projects": [{"id": "p1", "status": "active"}]}),
                httpx.Response(200, json={"projects": [{"id": "p2", "status": "archived"}]}),
            ]
        )
        async with open_legacy(BASE, KEY, controls) as client:
            projects = await client.projects()
    assert [(p.id, p.status) for p in projects] == [("p1", "active"), ("p2", "archived")]
    assert [c.request.url.params["status"] for c in route.calls] == ["active", "archived"]


@pytest.mark.anyio
async def test_tag_totals_keyed_by_tag_and_phase(controls: RunControls) -> None:
    """Tag totals (per phase, fringes, actuals) are exposed for the verifier by tag id."""
    tag = {"id": "Night", "name": "Night", "totals": {"phaseTotals": {"ph1": 12.5}, "actualTotal": 3.25}}
    async with respx.mock(using="bridge") as router:
        router.get(f"{BASE}/projects/p1/tags").mock(return_value=httpx.Response(200, json={"tags": [tag]}))
        async with open_legacy(BASE, KEY, controls) as client:
            totals = await client.tag_totals("p1")
    assert totals["Night"].phase_totals == {"ph1": 12.5}
    assert totals["Night"].actual_total == 3.25


BUDGET = {
    "account": {
        "id": "root",
        "path": "/",
        "totals": {"ph1": 300.0},
        "lines": [
            {"id": "a1", "type": "account", "accountId": "1000", "path": "/1000", "totals": {"ph1": 300.0}},
            {
                "id": "m1",
                "type": "markup",
                "accountId": "9000",
                "phaseData": {"ph1": {"type": "percent", "amount": 10}},
            },
        ],
    },
    "subAccounts": {
        "a1": {
            "id": "a1",
            "path": "/1000",
            "lines": [
                {
                    "id": "l1",
                    "type": "line",
                    "accountId": "1001",
                    "contact": {"id": "c9"},
                    "phaseData": {"ph1": {"rate": 100}},
                },
                {"id": "a2", "type": "account", "accountId": "1100", "path": "/1000/1100"},
            ],
        },
        "a2": {"id": "a2", "path": "/1000/1100", "lines": [{"id": "l2", "type": "line", "totals": {"ph1": 200.0}}]},
        "a9": {"id": "a9", "path": "/7000", "parentId": "gone", "lines": [{"id": "l9", "type": "line"}]},
    },
    "phases": [{"id": "ph1", "type": "estimate"}, {"id": "ph2", "type": "estimate", "isHidden": True}],
    "fringes": [{"id": "f1", "units": "percent", "rate": 7.65}],
    "globals": [{"id": "g1", "symbol": "DAYS", "formula": "35"}],
}


@pytest.mark.anyio
async def test_budget_tree_is_read_whole_and_flattened_in_order(controls: RunControls) -> None:
    """One GET with hidden phases and every expand gives lines with parent, position, contact and phase data."""
    async with respx.mock(using="bridge") as router:
        route = router.get(f"{BASE}/projects/p1/budget").mock(return_value=httpx.Response(200, json=BUDGET))
        async with open_legacy(BASE, KEY, controls) as client:
            budget = await client.budget("p1")
    params = route.calls.last.request.url.params
    assert params.get_list("expands[]") == list(BUDGET_EXPANDS)
    assert (params["includeHiddenPhases"], params["idMode"]) == ("true", "system")
    tree = [(line.id, line.parent_id, line.position) for line in budget.lines]
    assert tree == [
        ("a1", None, 0),
        ("l1", "a1", 0),
        ("a2", "a1", 1),
        ("l2", "a2", 0),
        ("m1", None, 1),
        ("a9", "gone", 0),
        ("l9", "a9", 0),
    ]
    by_id = {line.id: line for line in budget.lines}
    assert by_id["l1"].contact_id == "c9"
    assert by_id["l1"].phase_data["ph1"].rate == 100
    assert by_id["l2"].totals == {"ph1": 200.0}
    assert budget.totals == {"ph1": 300.0}
    assert [p.is_hidden for p in budget.phases] == [False, True]
    assert budget.globals_[0].symbol == "DAYS"


def _instant(value: str, time_of_day: str) -> date:
    """The day a window bound names, which must be the published date-time at that time of day (A42)."""
    assert value.endswith(time_of_day), value
    return datetime.fromisoformat(value).date()


def _actuals_answer(rows_by_day: dict[date, int]) -> Callable[[httpx.Request], httpx.Response]:
    def answer(request: httpx.Request) -> httpx.Response:
        params = request.url.params
        first = _instant(params["startDate"], "T00:00:00Z") if "startDate" in params else date.min
        last = _instant(params["endDate"], "T23:59:59.999999Z") if "endDate" in params else date.max
        rows = [
            {"id": f"{day.isoformat()}-{n}", "date": f"{day.isoformat()}T10:00:00Z", "amount": 1.5}
            for day, count in sorted(rows_by_day.items())
            if first <= day <= last
            for n in range(count)
        ]
        return httpx.Response(200, json={"actuals": rows, "totalAmount": 1.5 * len(rows)})

    return answer


@pytest.mark.anyio
async def test_actuals_windows_are_disjoint_split_when_big_and_complete(controls: RunControls) -> None:
    """Windows tile all time day by day without overlap; a window over max_rows is split; every row once."""
    rows_by_day = {
        date(2019, 5, 5): 1,  # before the range the caller asked for: the edge read still finds it
        date(2025, 1, 3): 3,
        date(2025, 1, 4): 4,
        date(2025, 2, 20): 2,
        date(2025, 6, 1): 1,
        date(2031, 1, 1): 2,  # after the range
    }
    async with respx.mock(using="bridge") as router:
        route = router.get(f"{BASE}/projects/p1/actuals").mock(side_effect=_actuals_answer(rows_by_day))
        async with open_legacy(BASE, KEY, controls) as client:
            reader, rows = client.actuals("p1", date(2025, 1, 1), date(2025, 12, 31), max_rows=5)
            ids = [actual.id async for actual in rows]
    assert len(ids) == len(set(ids)) == sum(rows_by_day.values())
    windows = reader.summary.windows
    ordered = sorted(windows)
    assert ordered[0][0] == date.min
    assert ordered[-1][1] == date.max
    for (_, end, _), (start, _, _) in itertools.pairwise(ordered):
        assert (start - end).days == 1
    assert max(count for _, _, count in windows) <= 5
    assert reader.summary.total_amount == pytest.approx(1.5 * len(ids))
    assert route.calls.last.request.url.params.get_list("expands[]") == ["contact", "subactual", "attachments"]


@pytest.mark.anyio
async def test_actuals_recheck_finds_a_row_created_behind_the_read(controls: RunControls) -> None:
    """An actual created in an already-read window during the read is still yielded, once, by the recheck."""
    rows_by_day = {date(2025, 1, 3): 1}
    answer = _actuals_answer(rows_by_day)

    def growing(request: httpx.Request) -> httpx.Response:
        response = answer(request)
        rows_by_day[date(2025, 1, 3)] = 2  # someone adds a row once the first window was read
        return response

    async with respx.mock(using="bridge") as router:
        router.get(f"{BASE}/projects/p1/actuals").mock(side_effect=growing)
        async with open_legacy(BASE, KEY, controls) as client:
            _, rows = client.actuals("p1", date(2025, 1, 1), date(2025, 3, 31), recheck=True)
            ids = [actual.id async for actual in rows]
    assert sorted(ids) == ["2025-01-03-0", "2025-01-03-1"]


@pytest.mark.anyio
async def test_rejected_key_stops_the_run_and_never_shows_the_key(controls: RunControls) -> None:
    """A legacy 401 is a resumable stop whose message names the call but not the key."""
    async with respx.mock(using="bridge") as router:
        router.get(f"{BASE}/contacts").mock(return_value=httpx.Response(401, json={"error": "invalid key"}))
        async with open_legacy(BASE, KEY, controls) as client:
            with pytest.raises(errors.AuthenticationLost) as caught:
                await client.contacts()
    assert "GET /contacts" in str(caught.value)
    assert KEY.reveal() not in str(caught.value)


@pytest.mark.anyio
async def test_phase_data_cells_are_read_as_written(controls: RunControls) -> None:
    """A cell's text comes from its published *Formula field, a number from the number field (A44); markup
    settings the service leaves out stay unknown (A45)."""
    line = {
        "id": "l1",
        "type": "line",
        "path": "/1",
        "totals": {},
        "phaseData": {
            "ph1": {"quantity": 30, "quantityFormula": "=WEEKS * 5", "rate": 12.5, "multiplier": None},
            "ph2": {"quantity": 2, "rate": None, "rateFormula": "1,000.00"},  # text the service cannot evaluate
        },
    }
    markup = {"id": "m1", "type": "markup", "path": "/2", "totals": {}, "phaseData": {"ph1": {"type": "percent"}}}
    body = {"account": {"id": "root", "path": "/", "totals": {}, "lines": [line, markup]}}
    async with respx.mock(using="bridge") as router:
        router.get(f"{BASE}/projects/p1/budget").mock(return_value=httpx.Response(200, json=body))
        async with open_legacy(BASE, KEY, controls) as client:
            budget = await client.budget("p1")
    by_id = {node.id: node for node in budget.lines}
    first, second = by_id["l1"].phase_data["ph1"], by_id["l1"].phase_data["ph2"]
    assert (first.quantity, first.rate, first.multiplier) == ("=WEEKS * 5", 12.5, None)
    assert (second.quantity, second.rate) == (2, "1,000.00")
    settings = by_id["m1"].phase_data["ph1"]
    assert (settings.type, settings.amount, settings.exclude_fringes) == ("percent", None, None)


@pytest.mark.anyio
async def test_rates_are_read_a_thousand_at_a_time_to_a_short_page_each_once(controls: RunControls) -> None:
    """GET /rates pages by limit and offset (its largest published limit), with each rate's contact; a rate seen
    twice as offsets move is kept once (A71)."""
    first = [{"id": f"r{n}"} for n in range(1000)]
    second = [{"id": "r999"}, {"id": "r1000"}]
    async with respx.mock(assert_all_called=True, using="bridge") as router:
        route = router.get(f"{BASE}/rates").mock(
            side_effect=[httpx.Response(200, json={"rates": first}), httpx.Response(200, json={"rates": second})]
        )
        async with open_legacy(BASE, KEY, controls) as client:
            rates = await client.rates()
    assert len(rates) == 1001
    assert [(c.request.url.params["limit"], c.request.url.params["offset"]) for c in route.calls] == [
        ("1000", "0"),
        ("1000", "1000"),
    ]
    assert all(c.request.url.params["expands[]"] == "contact" for c in route.calls)


@pytest.mark.anyio
async def test_a_project_without_a_budget_note_reads_as_none_and_other_refusals_stop(controls: RunControls) -> None:
    """The root note is asked in every format; its 404 is no note (A70), any other refusal is the read's error."""
    async with respx.mock(using="bridge") as router:
        route = router.get(f"{BASE}/projects/p1/budget/note").mock(
            side_effect=[
                httpx.Response(200, json={"note": {"id": "n1", "text": "Keep"}}),
                httpx.Response(404, json={"error": "not found"}),
                httpx.Response(400, json={"error": "bad"}),
            ]
        )
        async with open_legacy(BASE, KEY, controls) as client:
            assert await client.root_note("p1") == {"id": "n1", "text": "Keep"}
            assert await client.root_note("p1") is None
            with pytest.raises(errors.SourceUnreadable):
                await client.root_note("p1")
    assert dict(route.calls[0].request.url.params) == {"format": "all", "idMode": "system"}


@pytest.mark.anyio
async def test_comments_and_the_bank_feed_ask_for_what_the_inventory_counts(
    controls: RunControls,
) -> None:
    """The bank feed with its attachments, comments as they are."""
    async with respx.mock(assert_all_called=True, using="bridge") as router:
        comments = router.get(f"{BASE}/projects/p1/comments").mock(
            return_value=httpx.Response(200, json={"comments": [{"id": "c1"}]})
        )
        bank = router.get(f"{BASE}/transactions").mock(
            return_value=httpx.Response(200, json={"transactions": [{"id": "t1"}]})
        )
        async with open_legacy(BASE, KEY, controls) as client:
            assert await client.comments("p1") == [{"id": "c1"}]
            assert await client.bank_transactions() == [{"id": "t1"}]
    assert list(comments.calls.last.request.url.params.multi_items()) == [SYSTEM]
    assert list(bank.calls.last.request.url.params.multi_items()) == [("expands[]", "attachments"), SYSTEM]
