"""Legacy bank and card transactions: the seeded feed, every listTransactions filter and expand, reading one,
coding one, attaching and parsing files, the actuals they became, and the published shapes they keep."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from bridge.emulator.core.seed import canonical_dump, seeded_service
from tests.legacy_contract_hook import violations

pytestmark = pytest.mark.anyio
Txn = dict[str, Any]
EVERY_EXPAND = {"expands[]": ["project", "contact", "account", "actual", "attachments"]}


async def feed(client: httpx.AsyncClient, **params: str | list[str]) -> list[Txn]:
    answer = await client.get("/transactions", params={**EVERY_EXPAND, **params})
    assert answer.status_code == 200, answer.text
    found: list[Txn] = answer.json()["transactions"]
    return found


def ids(transactions: list[Txn]) -> list[str]:
    return [t["id"] for t in transactions]


async def test_the_seed_holds_a_feed_partly_actualized_with_receipts(legacy_client: httpx.AsyncClient) -> None:
    """The small seed holds ten transactions, newest first: some actualized (each expanding to the actual that
    names it back by transactionId, with the same amount and date, and holding its statement), some with
    receipts, one receipt shared with its actual."""
    every = await feed(legacy_client)
    assert len(every) == 10
    assert [t["date"] for t in every] == sorted((t["date"] for t in every), reverse=True)
    actualized = [t for t in every if t["isActualized"]]
    assert 0 < len(actualized) < len(every)
    for txn in actualized:
        actual = txn["actual"]
        assert actual["transactionId"] == txn["id"]
        assert (actual["amount"], actual["date"]) == (txn["amount"], txn["date"])
    assert any(t["attachments"] for t in every if not t["isActualized"])
    own = {t["id"]: {f["id"] for f in t["actual"]["attachments"]} for t in actualized}
    assert any(own[t["id"]] & {f["id"] for f in t["attachments"]} for t in actualized)
    # Each actualized one holds a file its actual does not (its statement line), carried with the actual.
    assert all({f["id"] for f in t["attachments"]} - own[t["id"]] for t in actualized)


def test_the_feed_leaves_every_record_seeded_before_it_unchanged(monkeypatch: pytest.MonkeyPatch) -> None:
    """Seeded with or without the feed, the workspace's other records dump byte for byte the same: the feed
    draws from a Random of its own and adds only its transactions and their receipts."""
    with_feed = json.loads(canonical_dump(seeded_service(42, "small").workspace("source")))
    monkeypatch.setattr("bridge.emulator.core.seed.seed_bank", lambda *_: None)
    without = json.loads(canonical_dump(seeded_service(42, "small").workspace("source")))
    assert with_feed.pop("bank")["transactions"]
    assert not without.pop("bank")["transactions"]
    shelf = with_feed["files"]
    added = [key for key in shelf["attached"] if key.startswith("transaction:")]
    for key in added:
        del shelf["attached"][key]
    for file_id in set(shelf["files"]) - set(without["files"]["files"]):
        del shelf["files"][file_id]
    assert added
    assert with_feed == without


def _contains(field: str, needle: str) -> Callable[[Txn], bool]:
    return lambda t: needle.casefold() in t[field].casefold()


FILTERS: list[tuple[dict[str, str | list[str]], Callable[[Txn], bool]]] = [
    ({"type[]": "card.spend"}, lambda t: t["type"] == "card.spend"),
    ({"type": ["bank.ach", "bank.deposit"]}, lambda t: t["type"] in ("bank.ach", "bank.deposit")),
    ({"status": ["pending", "void"]}, lambda t: t["status"] in ("pending", "void")),
    ({"subStatus": "refund"}, lambda t: t.get("subStatus") == "refund"),
    ({"projectId": "night-harbor"}, lambda t: t["projectId"] == "night-harbor"),
    ({"sourceType": "bank"}, lambda t: t["source"]["type"] == "bank"),
    ({"sourceName": "amex 001"}, lambda t: t["source"]["name"] == "Amex 001"),
    ({"sourceLast4": ["4242", "6789"]}, lambda t: t["source"]["last4"] in ("4242", "6789")),
    ({"description": "inv-"}, _contains("description", "INV-")),
    ({"merchant": "arri rental"}, lambda t: t["description"].startswith("ARRI RENTAL HOUSE")),
    ({"hasAccount": "true"}, lambda t: t["hasAccount"]),
    ({"hasAccount": "false"}, lambda t: not t["hasAccount"]),
    ({"isActualized": "true"}, lambda t: t["isActualized"]),
    ({"isActualized": "false"}, lambda t: not t["isActualized"]),
    ({"hasAttachments": "true"}, lambda t: bool(t["attachments"])),
    ({"hasAttachments": "false"}, lambda t: not t["attachments"]),
    ({"hasContact": "true"}, lambda t: "contact" in t),
    ({"hasContact": "false"}, lambda t: "contact" not in t),
    ({"startDate": "2026-07-01T00:00:00Z"}, lambda t: t["date"] >= "2026-07-01T00:00:00Z"),
    ({"endDate": "2026-07-01T00:00:00Z"}, lambda t: t["date"] <= "2026-07-01T00:00:00Z"),
]


@pytest.mark.parametrize(("params", "wanted"), FILTERS, ids=[json.dumps(p) for p, _ in FILTERS])
async def test_each_filter_keeps_exactly_the_matching_transactions(
    legacy_client: httpx.AsyncClient, params: dict[str, str | list[str]], wanted: Callable[[Txn], bool]
) -> None:
    """Each declared filter keeps the transactions it names and no other (a value list keeps any of them; the
    texts match a part in any case), in the same order as the whole feed."""
    every = await feed(legacy_client)
    expected = [t for t in every if wanted(t)]
    assert 0 < len(expected) < len(every), "the seed must give this filter something to keep and to drop"
    assert ids(await feed(legacy_client, **params)) == ids(expected)


async def test_contact_title_and_filters_together(legacy_client: httpx.AsyncClient) -> None:
    """contactTitle matches a part of the coded contact's title; filters combine (all must hold); a project
    filter naming no project keeps nothing."""
    every = await feed(legacy_client)
    coded = next(t for t in every if "contact" in t)
    contact = coded["contact"]["id"]
    assert (await legacy_client.put(f"/contacts/{contact}", json={"contactTitle": "Line Producer"})).status_code == 200
    titled = await feed(legacy_client, contactTitle="producer")
    assert ids(titled) == [t["id"] for t in every if t.get("contact", {}).get("id") == contact]
    both = await feed(legacy_client, sourceType="card", isActualized="false")
    assert ids(both) == [t["id"] for t in every if t["source"]["type"] == "card" and not t["isActualized"]]
    assert await feed(legacy_client, projectId="no-such-project") == []


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"type": "card.purchase"}, "type"),
        ({"status": "cleared"}, "status"),
        ({"hasContact": "yes"}, "hasContact"),
        ({"startDate": "01/07/2026"}, "startDate"),
    ],
)
async def test_values_outside_their_published_type_are_400(
    legacy_client: httpx.AsyncClient, params: dict[str, str], field: str
) -> None:
    """A value outside an enum, a boolean that is not one and a bare date for a date-time name the parameter."""
    answer = await legacy_client.get("/transactions", params=params)
    assert answer.status_code == 400
    assert answer.json()["details"] == {"field": field}


async def test_expands_add_only_what_they_name(legacy_client: httpx.AsyncClient) -> None:
    """Without expands no related record is shown; each expand adds its own: the project the projectId names,
    the budget line (hasAccount), the contact, the actual (isActualized) and the attachments."""
    plain = (await legacy_client.get("/transactions")).json()["transactions"]
    related = {"project", "contact", "account", "actual", "attachments"}
    assert all(not related & t.keys() for t in plain)
    only_project = (await legacy_client.get("/transactions", params={"expands[]": "project"})).json()
    assert {k for t in only_project["transactions"] for k in t} & related == {"project"}
    for txn in await feed(legacy_client):
        assert ("project" in txn) == (txn["projectId"] is not None)
        if "project" in txn:
            assert txn["project"]["id"] == txn["projectId"]
        assert ("account" in txn) == txn["hasAccount"]
        assert ("actual" in txn) == txn["isActualized"]
        assert isinstance(txn["attachments"], list)


async def test_system_id_mode_names_projects_and_lines_by_id(legacy_client: httpx.AsyncClient) -> None:
    """idMode=system shows the project's database id, and the expanded line's id."""
    projects = (await legacy_client.get("/projects", params={"idMode": "system"})).json()["projects"]
    by_alias = {p["alias"]: p["id"] for p in projects}
    user = {t["id"]: t for t in await feed(legacy_client)}
    for txn in await feed(legacy_client, idMode="system"):
        alias = user[txn["id"]]["projectId"]
        assert txn["projectId"] == (by_alias[alias] if alias else None)
        if txn["hasAccount"]:
            assert txn["account"]["id"] != user[txn["id"]]["account"].get("accountId")


async def test_one_transaction_reads_alone_and_an_unknown_one_is_404(legacy_client: httpx.AsyncClient) -> None:
    """getTransaction answers the listed transaction (without expands); an unknown id is a 404."""
    first = (await legacy_client.get("/transactions")).json()["transactions"][0]
    assert (await legacy_client.get(f"/transactions/{first['id']}")).json() == first
    missing = await legacy_client.get("/transactions/btx-nothing")
    assert missing.status_code == 404
    assert missing.json()["code"] == "not_found"


async def test_coding_a_transaction_sets_and_clears_project_line_and_contact(
    legacy_client: httpx.AsyncClient,
) -> None:
    """updateTransaction codes an uncoded transaction to a project, a line (by account code) and a contact, then
    clears them with nulls; moving it to another project drops a line that project does not hold."""
    bare = next(t for t in await feed(legacy_client) if t["projectId"] is None)
    accounts = (await legacy_client.get("/projects/night-harbor/budget/accounts")).json()["accounts"]
    code = accounts[-1]["accountId"]
    contact = (await legacy_client.get("/contacts")).json()["contacts"][0]["id"]
    body = {"projectId": "night-harbor", "accountId": code, "contactId": contact}
    coded = await legacy_client.put(f"/transactions/{bare['id']}", json=body)
    assert coded.status_code == 200
    shown = await feed(legacy_client, hasAccount="true", hasContact="true")
    (again,) = [t for t in shown if t["id"] == bare["id"]]
    assert again["projectId"] == "night-harbor"
    assert (again["account"]["accountId"], again["contact"]["id"]) == (code, contact)
    moved = (await legacy_client.put(f"/transactions/{bare['id']}", json={"projectId": "cold-open"})).json()
    assert (moved["projectId"], moved["hasAccount"]) == ("cold-open", False)
    cleared = await legacy_client.put(f"/transactions/{bare['id']}", json={"projectId": None, "contactId": None})
    assert (cleared.json()["projectId"], cleared.json()["hasAccount"]) == (None, False)
    assert bare["id"] in ids(await feed(legacy_client, hasContact="false"))


@pytest.mark.parametrize(
    ("body", "status", "field"),
    [
        ({"accountId": "2200"}, 400, "accountId"),
        ({"projectId": "no-such-project"}, 400, "projectId"),
        ({"projectId": "night-harbor", "accountId": "no-such-code"}, 400, "accountId"),
        ({"contactId": "nobody"}, 400, "contactId"),
        ({"contactId": 7}, 400, "contactId"),
    ],
)
async def test_coding_is_refused_with_the_field_named(
    legacy_client: httpx.AsyncClient, body: dict[str, object], status: int, field: str
) -> None:
    """A line without a project, an unknown project, line or contact, and a contact that is not text are 400s
    naming the field; the transaction is left as it was."""
    bare = next(t for t in await feed(legacy_client) if t["projectId"] is None)
    answer = await legacy_client.put(f"/transactions/{bare['id']}", json=body)
    assert (answer.status_code, answer.json()["details"]) == (status, {"field": field})
    assert (await legacy_client.get(f"/transactions/{bare['id']}")).json()["projectId"] is None
    assert (await legacy_client.put("/transactions/btx-nothing", json={})).status_code == 404


def pdf(size: int) -> dict[str, tuple[str, bytes, str]]:
    return {"file": ("receipt.pdf", b"%PDF-1.4\n" + b"x" * size, "application/pdf")}


async def test_an_uploaded_attachment_is_listed_and_filtered(legacy_client: httpx.AsyncClient) -> None:
    """uploadTransactionAttachment answers 201 with the File, which the attachments expand then lists and
    hasAttachments finds; a file that is not a PDF or image is a 400, an unknown transaction a 404."""
    bare = next(t for t in await feed(legacy_client) if not t["attachments"])
    made = await legacy_client.post(f"/transactions/{bare['id']}/attachment", files=pdf(64))
    assert made.status_code == 201
    (shown,) = [t for t in await feed(legacy_client, hasAttachments="true") if t["id"] == bare["id"]]
    assert shown["attachments"] == [made.json()]
    text = {"file": ("notes.txt", b"hello", "text/plain")}
    assert (await legacy_client.post(f"/transactions/{bare['id']}/attachment", files=text)).status_code == 400
    assert (await legacy_client.post("/transactions/btx-nothing/attachment", files=pdf(8))).status_code == 404


async def test_parsing_answers_each_attachment_asked_for(legacy_client: httpx.AsyncClient) -> None:
    """parseTransactionAttachments answers every attachment (or those named), each with its File fields and a
    document; rawText only when asked for; an id not attached and a missing body are 400s."""
    txn = next(t for t in await feed(legacy_client) if t["attachments"])
    route = f"/transactions/{txn['id']}/attachments/parse"
    extra = await legacy_client.post(f"/transactions/{txn['id']}/attachment", files=pdf(32))
    every = (await legacy_client.post(route, json={})).json()["attachments"]
    assert [a["id"] for a in every] == [f["id"] for f in txn["attachments"]] + [extra.json()["id"]]
    assert all(a["document"]["documentType"] == "other" and "rawText" not in a for a in every)
    named = await legacy_client.post(route, json={"attachmentIds": [extra.json()["id"]], "includeRawText": True})
    assert named.json()["attachments"] == [extra.json() | {"document": {"documentType": "other"}, "rawText": None}]
    unknown = await legacy_client.post(route, json={"attachmentIds": ["files/none.pdf"]})
    assert (unknown.status_code, unknown.json()["details"]) == (400, {"field": "attachmentIds"})
    assert (await legacy_client.post(route)).status_code == 400
    assert (await legacy_client.post("/transactions/btx-nothing/attachments/parse", json={})).status_code == 404


async def test_actuals_name_their_transaction_and_filter_by_it(legacy_client: httpx.AsyncClient) -> None:
    """An actualized transaction's actual carries its transactionId (the others carry null);
    hasLinkedTransaction keeps the one kind or the other, sourceIds the actuals made from those transactions."""
    made = {t["actual"]["id"]: t["id"] for t in await feed(legacy_client, isActualized="true")}
    projects = {t["projectId"] for t in await feed(legacy_client, isActualized="true")}
    for project in projects:
        base = f"/projects/{project}/actuals"
        every = (await legacy_client.get(base)).json()["actuals"]
        assert {a["id"]: a["transactionId"] for a in every if a["transactionId"]} == {
            a: t for a, t in made.items() if a in {x["id"] for x in every}
        }
        linked = (await legacy_client.get(base, params={"hasLinkedTransaction": "true"})).json()["actuals"]
        unlinked = (await legacy_client.get(base, params={"hasLinkedTransaction": "false"})).json()["actuals"]
        assert {a["id"] for a in linked} == {a["id"] for a in every if a["transactionId"]}
        assert len(linked) + len(unlinked) == len(every)
        one = linked[0]["transactionId"]
        by_source = (await legacy_client.get(base, params={"sourceIds[]": one})).json()["actuals"]
        assert [a["transactionId"] for a in by_source] == [one]


TXN = {
    "id": "btx-1",
    "type": "card.spend",
    "status": "posted",
    "description": "ARRI",
    "amount": 599.88,
    "date": "2026-03-18T16:00:00Z",
    "hasAccount": False,
    "isActualized": False,
}


def answer(method: str, path: str, body: object, status: int = 200) -> httpx.Response:
    return httpx.Response(status, json=body, request=httpx.Request(method, f"http://emulator/api/v1{path}"))


@pytest.mark.parametrize(
    ("method", "path", "body", "found"),
    [
        ("GET", "/transactions", {"transactions": [TXN | {"merchant": "ARRI"}]}, []),
        ("GET", "/transactions", {"transactions": [TXN | {"type": "card.purchase"}]}, ["transactions/0/type"]),
        ("GET", "/transactions/btx-1", {k: v for k, v in TXN.items() if k != "isActualized"}, ["isActualized"]),
        ("PUT", "/transactions/btx-1", TXN | {"date": "2026-03-18"}, ["date"]),
        ("GET", "/transactions/btx-1", TXN | {"source": {"id": "s", "type": "card", "name": "n"}}, ["source/last4"]),
        ("POST", "/transactions/btx-1/attachments/parse", {"attachments": [{"id": "a"}]}, ["attachments/0/name"]),
    ],
)
def test_violations_name_the_transaction_field(method: str, path: str, body: object, found: list[str]) -> None:
    """The legacy contract holds the transaction operations' answers: an unlisted field passes, a value outside
    an enum, a missing required field, a date for a date-time and a short source or parse are each named."""
    named = [problem.split(": ")[1] for problem in violations(answer(method, path, body))]
    assert named[:1] == found
