"""The emulator's legacy answers keep the published response shapes, and the check that says so can fail.

The ``legacy_client`` fixture holds every answer of an encoded operation to ``bridge.emulator.legacy.contract``
(``tests/legacy_contract_hook.py``), so the tour below fails at the first answer that misses a required field,
carries a null the description does not allow, or a value outside its published type.
"""

from __future__ import annotations

from collections.abc import Callable

import httpx
import pytest
from fastapi import FastAPI

from bridge.emulator.core.model import Phase, Project
from bridge.emulator.core.seed import seeded_service
from bridge.emulator.core.store import Service
from bridge.emulator.legacy import contract as legacy_contract
from bridge.emulator.legacy.shapes import Json, LegacyView
from tests.legacy_contract_hook import HeldTransport, violations
from tests.support.emulator import LEGACY_KEY
from tests.v1_contract_hook import ContractViolationError

pytestmark = pytest.mark.anyio


@pytest.fixture(params=["seeded", "dirty"])
def emulator_service(request: pytest.FixtureRequest) -> Service:
    """The seeded workspace, and the same with the catalogue of bad records a service true to its published
    description can hold (``--dirty`` without ``--hostile``): both answer in the published shapes."""
    return seeded_service(42, "small", dirty=request.param == "dirty")


ORDER_EXPANDS = tuple(("expands[]", e) for e in ("contact", "actuals", "items", "items.account"))
EVERYTHING = tuple(("expands[]", e) for e in ("phases", "fringes", "globals", "lines.contact", "lines.phaseData"))


async def test_every_read_the_bridge_makes_keeps_the_published_shapes(legacy_client: httpx.AsyncClient) -> None:
    """Spaces, projects, contacts, the expanded budget, accounts, phases, fringes, globals, tags, actuals and
    purchase orders (expanded, listed and read one by one) of every seeded project, and the bank and card
    transactions with every expand, answer in their published shapes (the fixture's contract hook checks each)."""
    spaces = (await legacy_client.get("/spaces")).json()["spaces"]
    for space in spaces:
        assert (await legacy_client.get(f"/spaces/{space['id']}")).status_code == 200
    assert (await legacy_client.get("/contacts")).json()["contacts"]
    projects = (await legacy_client.get("/projects")).json()["projects"]
    assert projects
    for project in projects:
        base = f"/projects/{project['id']}"
        assert (await legacy_client.get(base)).status_code == 200
        budget = await legacy_client.get(f"{base}/budget", params=EVERYTHING)
        assert {"phases", "fringes", "globals"} <= budget.json().keys()
        for part in ("budget/accounts", "budget/phases", "budget/fringes", "budget/globals", "tags", "actuals"):
            assert (await legacy_client.get(f"{base}/{part}")).status_code == 200
        orders = await legacy_client.get(f"{base}/purchaseOrders", params=ORDER_EXPANDS)
        for order in orders.json()["purchaseOrders"]:
            assert (await legacy_client.get(f"{base}/purchaseOrders/{order['id']}", params=ORDER_EXPANDS)).is_success
    expanded = {"expands[]": ["project", "contact", "account", "actual", "attachments"]}
    transactions = (await legacy_client.get("/transactions", params=expanded)).json()["transactions"]
    assert transactions
    for transaction in transactions:
        assert (await legacy_client.get(f"/transactions/{transaction['id']}")).status_code == 200


async def test_comments_notes_and_rates_keep_the_published_shapes(legacy_client: httpx.AsyncClient) -> None:
    """Every project's comments, root note and every line's note (each format), the workspace rates (expanded,
    paged) and a rate's writes, and a line read expanding its contact, answer in their published shapes."""
    projects = (await legacy_client.get("/projects")).json()["projects"]
    for project in projects:
        base = f"/projects/{project['id']}"
        assert (await legacy_client.get(f"{base}/comments")).json()["comments"]
        for form in ("all", "json", "html", "text"):
            assert (await legacy_client.get(f"{base}/budget/note", params={"format": form})).json()["note"]
        budget = (await legacy_client.get(f"{base}/budget", params={"idMode": "system"})).json()
        lines = [line for account in budget["subAccounts"].values() for line in account["lines"]]
        for line in lines:
            assert (await legacy_client.get(f"{base}/budget/note/{line['id']}")).status_code == 200
        expanded = await legacy_client.get(f"{base}/budget/line/{lines[0]['id']}", params={"expands[]": "contact"})
        assert expanded.status_code == 200
    rates = await legacy_client.get("/rates", params={"expands[]": "contact", "limit": 1000, "offset": 1})
    assert rates.json()["rates"]
    made = await legacy_client.post("/rates", json={"identifier": "Gaffer", "unit": "hour", "rate": 80})
    assert made.status_code == 201
    assert (await legacy_client.put(f"/rates/{made.json()['id']}", json={"unit": None})).status_code == 200


async def test_error_answers_keep_the_published_error_shape(legacy_client: httpx.AsyncClient) -> None:
    """A missing project (404) and a parameter outside its type (400) answer with the published Error body."""
    assert (await legacy_client.get("/projects/no-such-project/budget")).status_code == 404
    projects = (await legacy_client.get("/projects")).json()["projects"]
    bad_date = await legacy_client.get(f"/projects/{projects[0]['id']}/actuals", params={"startDate": "31/01/2024"})
    assert bad_date.status_code == 400


def _without_is_locked(shaped: Callable[[LegacyView, Project, Phase], Json]) -> Callable[..., Json]:
    def shape(view: LegacyView, project: Project, phase: Phase) -> Json:
        body = shaped(view, project, phase)
        del body["isLocked"]
        return body

    return shape


async def test_an_answer_missing_a_required_field_fails_the_test(
    legacy_client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With phases shaped without their required isLocked, the contract hook refuses the answer."""
    monkeypatch.setattr(LegacyView, "phase", _without_is_locked(LegacyView.phase))
    project = (await legacy_client.get("/projects")).json()["projects"][0]["id"]
    with pytest.raises(ContractViolationError, match=r"/budget/phases -> 200: phases/0/isLocked: Field required"):
        await legacy_client.get(f"/projects/{project}/budget/phases")


def answer(path: str, body: object, status: int = 200) -> httpx.Response:
    return httpx.Response(status, json=body, request=httpx.Request("GET", f"http://emulator/api/v1{path}"))


STAMP = "2024-01-31T10:00:00Z"
FRINGE = {"id": "f1", "units": "percent", "lastModified": STAMP}
ACTUAL = {"id": "a1", "mode": "default", "lastModified": STAMP}


@pytest.mark.parametrize(
    ("path", "body", "found"),
    [
        ("/projects/p/budget/fringes", {"fringes": [FRINGE | {"unknown": 1}]}, []),
        ("/projects/p/budget/fringes", {"fringes": [FRINGE | {"units": "hours"}]}, ["fringes/0/units"]),
        (
            "/projects/p/budget/fringes",
            {"fringes": [FRINGE | {"lastModified": "2024-01-31"}]},
            ["fringes/0/lastModified"],
        ),
        ("/projects/p/actuals", {"actuals": [ACTUAL | {"amount": None, "accountId": ["1000"]}]}, []),
        ("/projects/p/actuals", {"actuals": [ACTUAL | {"amount": "1,000.00"}]}, ["actuals/0/amount"]),
        ("/projects/p/actuals", {"actuals": [ACTUAL | {"tags": None}]}, ["actuals/0/tags"]),
        ("/projects/p/tags", {}, ["tags"]),
        ("/projects/p/budget", {"account": {"id": "r", "path": "", "lines": []}}, ["account/totals"]),
        ("/rates", {"rates": [{"id": "r1", "unit": "hours"}]}, ["rates/0/unit"]),
        ("/rates", {"rates": [{"id": "r1", "unit": None, "rate": None}]}, ["rates/0/unit"]),
        (
            "/projects/p/comments",
            {"comments": [{"id": "c1", "content": "x", "createdAt": STAMP}]},
            ["comments/0/author"],
        ),
        ("/projects/p/budget/note", {"note": {"id": "n1", "text": 5}}, ["note/text"]),
        (
            "/projects/p/budget/note/l1",
            {"note": {}, "line": {"id": "l1", "type": "line", "path": "/"}},
            ["line/type"],
        ),
    ],
)
def test_violations_name_the_field(path: str, body: object, found: list[str]) -> None:
    """An unlisted field passes (the legacy shapes are open); a value outside an enum, a date for a date-time,
    text for a number, a null where none is published and a missing required field are each named."""
    assert [problem.split(": ")[1] for problem in violations(answer(path, body))] == found


def test_only_encoded_operations_and_published_statuses_are_judged() -> None:
    """An operation the contract does not encode is not judged; an unpublished success status is named."""
    assert legacy_contract.answered("POST", "/projects/p/actuals") is None
    assert violations(answer("/transactions", {"anything": 1})) == []
    assert violations(answer("/projects/p/actuals", {"actuals": []}, status=201)) == [
        "GET /projects/{project_id}/actuals -> 201: status 201 is not a published answer of this operation"
    ]
    assert violations(answer("/projects/p", {"message": "gone"}, status=404)) == [
        "GET /projects/{project_id} -> 404: error: Field required"
    ]


async def test_the_held_transport_refuses_a_broken_answer_too(
    emulator_app: FastAPI, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Clients built by the bridge take a transport, not hooks: the held transport refuses the same answer."""
    monkeypatch.setattr(LegacyView, "phase", _without_is_locked(LegacyView.phase))
    headers = {"X-API-Key": LEGACY_KEY}
    transport = HeldTransport(emulator_app)
    async with httpx.AsyncClient(transport=transport, base_url="http://e/api/v1", headers=headers) as client:
        project = (await client.get("/projects")).json()["projects"][0]["id"]
        with pytest.raises(ContractViolationError, match=r"phases/0/isLocked: Field required"):
            await client.get(f"/projects/{project}/budget/phases")
