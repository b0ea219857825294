"""The v1 emulator refuses, per operation the bridge uses, what the published v1 description refuses (A50-A53).

Each operation has a valid body (accepted) and a table of violations: a field a closed shape does not have,
null where the shape is not nullable, a bad format, a value out of bounds, a missing required field, a bulk
over its maxItems. Each is answered 400 ``validation`` with a ``fieldErrors`` entry naming the field, and
changes nothing. Keyed creates also refuse a missing or short Idempotency-Key the same way; parameters an
operation does not declare are ignored.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Mapping
from typing import Any

import httpx
import pytest

from tests.emulator.documented_codes import produced

pytestmark = pytest.mark.anyio
_keys = itertools.count()

LINES = "/projects/{pid}/budget/lines"
TXN: dict[str, object] = {
    "type": "Invoice",
    "amount": {"amount": 100000, "currency": "USD"},
    "timestamp": "2024-05-31T12:00:00Z",
    "projectId": "{pid}",
}
ENTRY: dict[str, object] = {"lineId": "{line}", "phaseId": "{phase}", "phaseData": {"rate": 5}}
COMMENTS = "/projects/{pid}/comments"
PACKS = "/library/rate-packs"
RATE_ITEM: dict[str, object] = {
    "title": "Grip",
    "rate": {"amount": 5800, "currency": "USD"},
    "unit": "Day",
    "quantity": 2,
    "effectiveDate": "2026-01-01",
    "labels": [],
}

# operation -> (method, path, a valid body); {placeholders} are ids of the world the test builds.
OPS: dict[str, tuple[str, str, dict[str, object]]] = {
    "space.create": ("POST", "/spaces", {"name": "Features", "parentId": None}),
    "space.update": ("PATCH", "/spaces/{space}", {"name": "Renamed"}),
    "project.create": ("POST", "/projects", {"name": "Pilot", "summary": None, "tagIds": ["{tag}"]}),
    "project.update": ("PATCH", "/projects/{pid}", {"summary": "Second season"}),
    "contact.create": (
        "POST",
        "/contacts",
        {"name": "Ann", "type": "vendor", "rate": {"amount": 100, "currency": "USD"}},
    ),
    "fringe.create": ("POST", "/library/fringes", {"name": "FICA", "calculationType": "percent", "rate": 7.65}),
    "fringe.update": ("PATCH", "/library/fringes/{fringe}", {"rate": 8}),
    "global.create": ("POST", "/library/globals", {"symbol": "DAYS", "formula": "5", "description": None}),
    "currency.create": ("POST", "/library/currencies", {"code": "EUR", "rateToUSD": 1.17}),
    "tag.create": ("POST", "/library/tags", {"name": "VFX", "color": "blue", "description": "effects"}),
    "tag.update": ("PATCH", "/library/tags/{tag}", {"description": None}),
    "fringe-group.create": ("POST", "/library/fringe-groups", {"name": "Union", "color": None}),
    "unit.create": ("POST", "/library/units", {"label": "Day", "category": "time", "hoursPerUnit": 10}),
    "copy.add": ("POST", "/projects/{pid}/library/fringes", {"sourceId": "{fringe}"}),
    "copy.update": ("PATCH", "/projects/{pid}/library/fringes/{fringe_copy}", {"rate": 9}),
    "phase.create": ("POST", "/projects/{pid}/budget/phases", {"type": "estimate", "name": "Second pass"}),
    "phase.update": ("PATCH", "/projects/{pid}/budget/phases/{phase}", {"name": "First pass", "color": None}),
    "line.create": (
        "POST",
        LINES,
        {"description": "Camera", "parentId": "{account}", "phaseData": {"{phase}": {"rate": 100, "quantity": 2}}},
    ),
    "line.bulk": ("POST", LINES + "/bulk", {"lines": [{"description": "Camera", "parentId": "{account}"}]}),
    "line.update": ("PATCH", LINES + "/{line}", {"notes": None, "markupAccountFilter": None}),
    "phase-data.put": ("PUT", LINES + "/{line}/phase-data/{phase}", {"rate": 10, "quantity": 3, "unit": None}),
    "phase-data.bulk": ("POST", LINES + "/phase-data/bulk", {"items": [ENTRY]}),
    "transaction.create": ("POST", "/transactions", TXN),
    "transaction.bulk": ("POST", "/transactions/bulk", {"transactions": [TXN]}),
    "transaction.update": ("PATCH", "/transactions/{txn}", {"notes": "paid", "contactId": None}),
    "item.create": ("POST", "/transactions/{txn}/items", {"amount": {"amount": 500, "currency": "USD"}}),
    "purchase-order.create": (
        "POST",
        "/purchase-orders",
        {
            "projectId": "{pid}",
            "number": "PO-1",
            "dueDate": "2026-05-20",
            "sort": 1.5,
            "items": [{"qty": "5", "rate": "25000", "amount": None, "budgetLineId": "{line}", "sort": None}],
        },
    ),
    "purchase-order.update": ("PATCH", "/purchase-orders/{po}", {"name": None, "serviceEndAt": "2026-06-01"}),
    "purchase-order.item-create": ("POST", "/purchase-orders/{po}/items", {"description": "Dolly", "rate": "100"}),
    "purchase-order.item-update": ("PATCH", "/purchase-orders/{po}/items/{po_item}", {"amount": 500, "unit": None}),
    "comment.create": (
        "POST",
        COMMENTS,
        {
            "content": "Looks **right**",
            "target": {"kind": "budgetLine", "id": "{line}"},
            "threadId": None,
            "tags": [{"targetType": "user", "targetId": "usr_1", "label": "@sam", "kind": "mention"}],
        },
    ),
    "comment.update": ("PATCH", COMMENTS + "/{comment}", {"resolved": True, "reactionEmojis": ["+1"], "tags": []}),
    "rate-pack.create": ("POST", PACKS, {"name": "Crew", "description": "Day rates", "category": "custom", "tags": []}),
    "rate-pack.update": ("PATCH", PACKS + "/{pack}", {"description": None, "tags": ["crew"]}),
    "rate-item.create": ("POST", PACKS + "/{pack}/items", RATE_ITEM),
    "rate-item.update": ("PATCH", PACKS + "/{pack}/items/{rate_item}", {"quantity": None, "group": None}),
}
KEYED = sorted(op for op, (method, _, _) in OPS.items() if method == "POST" and op != "copy.add")

# (operation, body, the field path fieldErrors must name)
VIOLATIONS: list[tuple[str, object, str]] = [
    ("space.create", {"name": "S", "archived": True}, "archived"),
    ("space.create", {"name": ""}, "name"),
    ("space.update", {}, "body"),
    ("project.create", {"summary": "no name"}, "name"),
    ("project.create", {"name": "P", "tagIds": "tag_1"}, "tagIds"),
    ("project.update", {"status": "deleted"}, "status"),
    ("project.update", {"name": None}, "name"),
    ("contact.create", {"name": "A", "displayName": "Ann"}, "displayName"),
    ("contact.create", {"name": "A", "type": "Vendor"}, "type"),
    ("contact.create", {"name": "A", "rate": {"amount": 1.5, "currency": "USD"}}, "rate.amount"),
    ("fringe.create", {"name": "F", "calculationType": "percentage"}, "calculationType"),
    ("fringe.create", {"name": "F", "rate": "7"}, "rate"),
    ("fringe.update", {"name": None}, "name"),
    ("global.create", {"symbol": ""}, "symbol"),
    ("currency.create", {"code": "EURO"}, "code"),
    ("currency.create", {"code": "EUR", "rateToUsd": 1}, "rateToUsd"),
    ("tag.create", {"name": "T", "description": None}, "description"),
    ("tag.create", {"name": "T", "color": "#112233"}, "color"),
    ("tag.create", {"color": "blue"}, "name"),
    ("tag.update", {}, "body"),
    ("fringe-group.create", {"name": "G", "color": "mauve"}, "color"),
    ("unit.create", {"label": "Day", "hoursPerUnit": -1}, "hoursPerUnit"),
    ("unit.create", {"label": "Day", "description": None}, "description"),
    ("copy.add", {}, "sourceId"),
    ("copy.add", {"sourceId": "{fringe}", "reset": True}, "reset"),
    ("copy.update", {"rate": "9"}, "rate"),
    ("phase.create", {"name": "x"}, "type"),
    ("phase.create", {"type": "forecast", "name": "x"}, "type"),
    ("phase.create", {"type": "estimate", "name": "x", "alias": "a" * 65}, "alias"),
    ("phase.create", {"type": "actual", "name": "x", "actualDateStart": "31/05/2024"}, "actualDateStart"),
    ("phase.create", {"type": "estimate", "name": "x", "displayDecimals": 5}, "displayDecimals"),
    ("phase.create", {"type": "estimate", "name": "x", "color": None}, "color"),
    ("phase.update", {"sort": 2}, "sort"),
    ("phase.update", {"isHidden": "true"}, "isHidden"),
    ("line.create", {"description": "x", "tagIds": ["tag_1"]}, "tagIds"),
    ("line.create", {"description": "x", "markupAccountFilter": None}, "markupAccountFilter"),
    ("line.create", {"description": "x", "parentId": None}, "parentId"),
    ("line.create", {"description": "x" * 256}, "description"),
    ("line.create", {"type": "line"}, "description"),
    ("line.create", {"description": "x", "type": "row"}, "type"),
    (
        "line.create",
        {"description": "m", "type": "markup", "phaseData": {"{phase}": {"rate": 10, "excludeFringes": True}}},
        "phaseData.{phase}.excludeFringes",
    ),
    ("line.create", {"description": "x", "phaseData": {"{phase}": {"rate": True}}}, "phaseData.{phase}.rate"),
    ("line.bulk", {"lines": []}, "lines"),
    ("line.bulk", {"lines": [{"description": "x"}] * 101}, "lines"),
    ("line.bulk", {"lines": [{"description": "x"}, {"description": "y", "tagIds": []}]}, "lines[1].tagIds"),
    ("line.bulk", {"lines": [{"description": "x"}], "dryRun": True}, "dryRun"),
    ("line.update", {}, "body"),
    ("line.update", {"tagIds": []}, "tagIds"),
    ("line.update", {"description": None}, "description"),
    ("phase-data.put", {"rate": 1, "excludeFringes": False}, "excludeFringes"),
    ("phase-data.put", {"fringeIds": "frg_1"}, "fringeIds"),
    ("phase-data.bulk", {"items": [{"lineId": "{line}", "phaseId": "{phase}"}]}, "items[0].phaseData"),
    ("phase-data.bulk", {"items": [ENTRY] * 501}, "items"),
    ("transaction.create", {**TXN, "timestamp": "yesterday"}, "timestamp"),
    ("transaction.create", {k: v for k, v in TXN.items() if k != "amount"}, "amount"),
    ("transaction.create", {**TXN, "amount": {"amount": 1, "currency": "US"}}, "amount.currency"),
    ("transaction.create", {**TXN, "type": "Refund"}, "type"),
    ("transaction.create", {**TXN, "tags": ["tag_1"]}, "tags"),
    ("transaction.bulk", {"transactions": [TXN] * 501}, "transactions"),
    ("transaction.bulk", {"transactions": [TXN, {**TXN, "timestamp": None}]}, "transactions[1].timestamp"),
    ("transaction.update", {"amount": None}, "amount"),
    ("transaction.update", {"status": "paid"}, "status"),
    ("item.create", {"amount": {"amount": 5, "currency": "USD"}, "notes": "x"}, "notes"),
    ("item.create", {"description": "x"}, "amount"),
    ("purchase-order.create", {"currency": "USD"}, "currency"),
    ("purchase-order.create", {"status": "draft"}, "status"),
    ("purchase-order.create", {"name": None}, "name"),
    ("purchase-order.create", {"dueDate": "20/05/2026"}, "dueDate"),
    ("purchase-order.create", {"items": [{}] * 101}, "items"),
    ("purchase-order.create", {"items": [{"qty": 5}]}, "items[0].qty"),
    ("purchase-order.create", {"items": [{"amount": 1.5}]}, "items[0].amount"),
    ("purchase-order.update", {"amount": {"amount": 1, "currency": "USD"}}, "amount"),
    ("purchase-order.item-create", {"rate": 25000}, "rate"),
    ("purchase-order.item-update", {"tagIds": []}, "tagIds"),
    ("comment.create", {"content": "", "target": {"kind": "project", "id": "{pid}"}}, "content"),
    ("comment.create", {"content": "x", "target": {"kind": "space", "id": "{pid}"}}, "target.kind"),
    ("comment.create", {"content": "x", "target": {"kind": "project"}}, "target.id"),
    ("comment.create", {"target": {"kind": "project", "id": "{pid}"}}, "content"),
    ("comment.update", {}, "body"),
    ("comment.update", {"content": ""}, "content"),
    ("comment.update", {"resolved": "yes"}, "resolved"),
    ("comment.update", {"reactionEmojis": [""]}, "reactionEmojis[0]"),
    ("rate-pack.create", {"name": ""}, "name"),
    ("rate-pack.create", {"name": "x", "description": None}, "description"),
    ("rate-pack.update", {}, "body"),
    ("rate-pack.update", {"name": None}, "name"),
    ("rate-item.create", {"title": "x", "unit": "Day"}, "rate"),
    ("rate-item.create", {**RATE_ITEM, "quantity": "2"}, "quantity"),
    ("rate-item.update", {"rate": None}, "rate"),
    ("rate-item.update", {"title": ""}, "title"),
]


def _fill(value: object, world: Mapping[str, str]) -> object:
    text = json.dumps(value)
    for name, ref in world.items():
        text = text.replace("{" + name + "}", ref)
    decoded: object = json.loads(text)
    return decoded


async def _ok(client: httpx.AsyncClient, method: str, url: str, body: object) -> dict[str, Any]:
    headers = {"Idempotency-Key": f"contract-world-{next(_keys):08d}"}
    response = await client.request(method, url, json=body, headers=headers)
    assert response.status_code in (200, 201), response.text
    result: dict[str, Any] = response.json()  # parsed JSON, untyped like every body these tests read
    return result


@pytest.fixture
async def world(v1_client: httpx.AsyncClient) -> dict[str, str]:
    """Ids every operation's path or body can name: a project with an account and a line, a transaction, a
    purchase order with an item, ..."""
    space = await _ok(v1_client, "POST", "/spaces", {"name": "Contract"})
    tag = await _ok(v1_client, "POST", "/library/tags", {"name": "Contract"})
    project = await _ok(v1_client, "POST", "/projects", {"name": "Contract"})
    pid = str(project["id"])
    phase = str(project["defaultBudget"]["estimatePhaseId"])
    account = await _ok(v1_client, "POST", f"/projects/{pid}/budget/lines", {"description": "A", "type": "account"})
    line = await _ok(
        v1_client, "POST", f"/projects/{pid}/budget/lines", {"description": "L", "parentId": account["id"]}
    )
    fringe = await _ok(v1_client, "POST", "/library/fringes", {"name": "FICA", "calculationType": "percent", "rate": 7})
    copy = await _ok(v1_client, "POST", f"/projects/{pid}/library/fringes", {"sourceId": fringe["id"]})
    txn = await _ok(v1_client, "POST", "/transactions", _fill(TXN, {"pid": pid}))
    order = await _ok(v1_client, "POST", "/purchase-orders", {"projectId": pid, "items": [{"description": "Crane"}]})
    po_items = await _ok(v1_client, "GET", f"/purchase-orders/{order['id']}/items", None)
    comment = await _ok(
        v1_client, "POST", f"/projects/{pid}/comments", {"content": "c", "target": {"kind": "project", "id": pid}}
    )
    pack = await _ok(v1_client, "POST", PACKS, {"name": "Contract"})
    rate_item = await _ok(v1_client, "POST", f"{PACKS}/{pack['id']}/items", RATE_ITEM)
    refs = {"space": space, "tag": tag, "account": account, "line": line, "fringe": fringe, "fringe_copy": copy}
    refs |= {"comment": comment, "pack": pack, "rate_item": rate_item, "po": order}
    ids = {"pid": pid, "phase": phase, "txn": str(txn["id"]), "po_item": str(po_items["data"][0]["id"])}
    return ids | {k: str(v["id"]) for k, v in refs.items()}


async def _send(
    client: httpx.AsyncClient, op: str, body: object, world: Mapping[str, str], key: str | None = "fresh"
) -> httpx.Response:
    method, path, _ = OPS[op]
    headers = {} if key is None else {"Idempotency-Key": f"contract-{next(_keys):010d}" if key == "fresh" else key}
    return await client.request(method, str(_fill(path, world)), json=_fill(body, world), headers=headers)


@pytest.mark.parametrize("op", sorted(OPS))
async def test_a_valid_body_is_accepted(v1_client: httpx.AsyncClient, world: dict[str, str], op: str) -> None:
    """Each operation's published shape, filled in validly (nulls where nullable), is accepted."""
    response = await _send(v1_client, op, OPS[op][2], world)
    assert response.status_code in (200, 201), response.text


@pytest.mark.parametrize(("op", "body", "field"), VIOLATIONS)
async def test_a_body_outside_its_published_shape_is_400_naming_the_field(
    v1_client: httpx.AsyncClient, world: dict[str, str], op: str, body: object, field: str
) -> None:
    """Unknown field, null where not nullable, bad format or enum, out of bounds, missing, over maxItems: 400."""
    before = (await v1_client.get(f"/projects/{world['pid']}/budget")).json()["lines"]
    response = await _send(v1_client, op, body, world)
    assert (response.status_code, response.json()["code"]) == (400, "validation"), response.text
    produced(400, "validation")
    errors = response.json()["fieldErrors"]
    assert str(_fill(field, world)) in errors, errors
    assert all(isinstance(m, str) for messages in errors.values() for m in messages)
    assert (await v1_client.get(f"/projects/{world['pid']}/budget")).json()["lines"] == before


@pytest.mark.parametrize("op", KEYED)
@pytest.mark.parametrize("key", [None, "short-key-15chr", "k" * 256])
async def test_a_keyed_create_without_a_proper_idempotency_key_is_400(
    v1_client: httpx.AsyncClient, world: dict[str, str], op: str, key: str | None
) -> None:
    """Idempotency-Key is required on every keyed create, 16 to 255 characters; fieldErrors names the header."""
    response = await _send(v1_client, op, OPS[op][2], world, key=key)
    assert (response.status_code, response.json()["code"]) == (400, "validation"), response.text
    assert "Idempotency-Key" in response.json()["fieldErrors"]


async def test_a_body_that_is_not_an_object_is_400(v1_client: httpx.AsyncClient, world: dict[str, str]) -> None:
    """A JSON array where the shape is an object is refused, naming the body."""
    response = await _send(v1_client, "line.bulk", [{"description": "x"}], world)
    assert (response.status_code, list(response.json()["fieldErrors"])) == (400, ["body"])


@pytest.mark.parametrize(
    ("raw", "status"),
    [
        (b'\xef\xbb\xbf{"name": "Marked"}', 201),  # a UTF-8 byte-order mark: json.loads reads past it
        (b'{"name": "Tab\there"}', 400),  # a raw control character in a string: not JSON
        (b'{"name": "Late", "name": "Last"}', 201),  # a repeated key: the last one counts
    ],
)
async def test_a_body_is_read_as_json_loads_reads_it(v1_client: httpx.AsyncClient, raw: bytes, status: int) -> None:
    """Bytes at the edges of JSON are accepted or refused as the standard library reads them, whichever reader
    checks them first."""
    headers = {"Idempotency-Key": f"contract-{next(_keys):010d}", "Content-Type": "application/json"}
    response = await v1_client.post("/projects", content=raw, headers=headers)
    assert response.status_code == status, response.text
    if status == 201:
        assert response.json()["name"] == json.loads(raw)["name"]
    else:
        assert response.json()["fieldErrors"] == {"body": ["is not valid JSON"]}


async def test_undeclared_parameters_are_ignored(v1_client: httpx.AsyncClient, world: dict[str, str]) -> None:
    """``limit`` on GET budget/phases (not declared there) and an unknown query on a create change nothing."""
    phases = f"/projects/{world['pid']}/budget/phases"
    plain = (await v1_client.get(phases)).json()
    assert (await v1_client.get(phases, params={"limit": "0"})).json() == plain
    _, path, body = OPS["line.create"]
    url = str(_fill(path, world))
    keyed = {"Idempotency-Key": f"contract-{next(_keys):010d}"}
    made = await v1_client.post(url, params={"dryRun": "yes"}, json=_fill(body, world), headers=keyed)
    assert made.status_code == 201, made.text


@pytest.mark.parametrize(
    "params",
    [{"limit": "0"}, {"limit": "101"}, {"limit": "ten"}, {"withCount": "maybe"}, {"tagMode": "some"}, {"type": "row"}],
)
async def test_declared_list_parameters_are_validated(
    v1_client: httpx.AsyncClient, world: dict[str, str], params: dict[str, str]
) -> None:
    """GET budget/lines checks the parameters it declares: limit 1-100, boolean withCount, enum tagMode and type."""
    response = await v1_client.get(f"/projects/{world['pid']}/budget/lines", params=params)
    assert (response.status_code, response.json()["code"]) == (400, "validation")
