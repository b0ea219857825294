"""The conformance check finds what breaks a description, and the emulator's capture feeds it without secrets.

The published descriptions are never committed, so these tests use a small description written here in the
same form (OpenAPI 3.1, a closed body, a declared query parameter, a required response field).
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import httpx
import pytest

from bridge.emulator.app import create_app
from bridge.emulator.core.seed import seeded_service
from conformance.check import V1, Contract, Exchange, check, read_capture

DESCRIPTION = """
openapi: 3.1.0
info: {title: t, version: 1.0.0}
servers: [{url: https://example.invalid/v1}]
components:
  securitySchemes:
    bearerAuth: {type: http, scheme: bearer}
  schemas:
    TagCreate:
      type: object
      additionalProperties: false
      required: [name]
      properties:
        name: {type: string, minLength: 1}
        description: {type: string}
    Tag:
      type: object
      required: [id, name]
      properties:
        id: {type: string}
        name: {type: string}
    LineUpdate:
      allOf:
      - {type: object, properties: {description: {type: string}}}
      - {type: object, properties: {type: {type: string, enum: [line]}}}
security: [{bearerAuth: []}]
paths:
  /lines/{id}:
    patch:
      operationId: updateLine
      parameters:
      - {name: id, in: path, required: true, schema: {type: string}}
      requestBody:
        content:
          application/json:
            schema: {$ref: '#/components/schemas/LineUpdate'}
      responses:
        '200': {description: ok}
  /library/tags:
    get:
      operationId: listTags
      parameters:
      - {name: limit, in: query, schema: {type: integer, minimum: 1, maximum: 100}}
      responses:
        '200':
          description: ok
          content:
            application/json:
              schema:
                type: object
                required: [data]
                properties:
                  data: {type: array, items: {$ref: '#/components/schemas/Tag'}}
    post:
      operationId: createTag
      requestBody:
        required: true
        content:
          application/json:
            schema: {$ref: '#/components/schemas/TagCreate'}
      responses:
        '201':
          description: created
          content:
            application/json:
              schema: {$ref: '#/components/schemas/Tag'}
"""


@pytest.fixture(scope="module")
def contract(tmp_path_factory: pytest.TempPathFactory) -> Contract:
    path = tmp_path_factory.mktemp("contract") / "v1.yaml"
    path.write_text(DESCRIPTION, encoding="utf-8")
    return Contract(V1, path)


def exchange(
    method: str, path: str, *, query: str = "", body: object = None, status: int = 200, response: object = None
) -> Exchange:
    return Exchange(
        method=method,
        path=path,
        query=query,
        auth=("authorization:bearer",),
        headers={"content-type": "application/json"} if body is not None else {},
        body=body,
        status=status,
        response_headers={"content-type": "application/json"},
        response=response,
    )


GOOD_LIST = exchange("GET", "/v1/library/tags", query="limit=5", response={"data": [{"id": "tag_1", "name": "VFX"}]})
GOOD_CREATE = exchange(
    "POST", "/v1/library/tags", body={"name": "VFX"}, status=201, response={"id": "tag_1", "name": "VFX"}
)


def test_conforming_exchanges_are_counted_as_such(contract: Contract) -> None:
    """A declared parameter, a valid closed body and complete responses all conform."""
    report = check({V1: contract}, [GOOD_LIST, GOOD_CREATE])
    assert (report.requests.conform, report.requests.checked) == (2, 2)
    assert (report.responses.conform, report.responses.checked) == (2, 2)


@pytest.mark.parametrize(
    ("bad", "finding"),
    [
        (exchange("GET", "/v1/library/tags", query="limit=5&withCount=true", response={"data": []}), "'withCount'"),
        (exchange("GET", "/v1/library/tags", query="limit=500", response={"data": []}), "limit"),
        (exchange("POST", "/v1/library/tags", body={"name": "x", "color": "red"}, status=201), "color"),
        (exchange("POST", "/v1/library/tags", body={"name": "x", "description": None}, status=201), "description"),
        (exchange("POST", "/v1/library/tags", body={}, status=201), "name"),
        (exchange("DELETE", "/v1/library/tags"), "no such operation"),
    ],
    ids=["undeclared-query", "out-of-bounds", "closed-body", "null-string", "missing-required", "unknown-route"],
)
def test_each_kind_of_request_violation_is_found(contract: Contract, bad: Exchange, finding: str) -> None:
    """Each request that breaks the description is counted as not conforming, with a finding naming why."""
    report = check({V1: contract}, [bad])
    assert report.requests.conform == 0
    assert any(finding in problem for problem in report.requests.violations), report.requests.violations


def test_a_response_missing_a_required_field_is_found(contract: Contract) -> None:
    """A created tag answered without its id does not conform."""
    bad = exchange("POST", "/v1/library/tags", body={"name": "VFX"}, status=201, response={"name": "VFX"})
    report = check({V1: contract}, [bad])
    assert report.requests.conform == 1
    assert report.responses.conform == 0
    assert any("'id' is a required property" in problem for problem in report.responses.violations)


def test_equal_findings_on_different_records_group_together(contract: Contract) -> None:
    """Record values and ids do not split one finding into many rows."""
    bodies = [{"name": "a", "description": None}, {"name": "b", "description": None}]
    report = check({V1: contract}, [exchange("POST", "/v1/library/tags", body=b, status=201) for b in bodies])
    assert report.requests.checked == 2
    assert len(report.requests.violations) == 1
    assert next(iter(report.requests.violations.values())) == 2


def test_the_emulator_capture_feeds_the_check_and_holds_no_secret(tmp_path: Path) -> None:
    """Every product request is captured (the control API is not), with the auth scheme but never the secret."""
    capture = tmp_path / "capture.jsonl"
    app = create_app(seeded_service(42, "small"), legacy_key="lk_secret_key_0123456789", capture=capture)
    token = "tok_secret_token_0123456789"
    app.state.emulator.tokens.issue(app.state.emulator.service.workspace("target").id, "admin", token=token)

    async def calls() -> None:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://emulator") as client:
            legacy = {"X-API-Key": "lk_secret_key_0123456789"}
            await client.get("/api/v1/projects", params={"idMode": "system"}, headers=legacy)
            await client.get("/v1/me", headers={"Authorization": f"Bearer {token}"})
            await client.get("/_emulator/stats")

    asyncio.run(calls())
    text = capture.read_text(encoding="utf-8")
    assert "lk_secret_key_0123456789" not in text
    assert token not in text
    captured = list(read_capture([capture]))
    assert [(e.method, e.path, e.auth, e.status) for e in captured] == [
        ("GET", "/api/v1/projects", ("x-api-key",), 200),
        ("GET", "/v1/me", ("authorization:bearer",), 200),
    ]
    assert captured[0].query == "idMode=system"
    assert isinstance(captured[0].response, dict)
    assert "projects" in captured[0].response
    assert json.loads(text.splitlines()[1])["response"]["workspaces"]


def test_a_request_refused_before_its_route_is_captured_with_its_body(tmp_path: Path) -> None:
    """An unknown path never reads the body, yet the capture holds what the client sent."""
    capture = tmp_path / "capture.jsonl"
    app = create_app(seeded_service(42, "small"), token="tok_secret_token_0123456789", capture=capture)

    async def call() -> int:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://emulator") as client:
            answer = await client.post(
                "/v1/no-such-route",
                json={"name": "x"},
                headers={"Authorization": "Bearer tok_secret_token_0123456789"},
            )
            return answer.status_code

    assert asyncio.run(call()) == 404
    (captured,) = read_capture([capture])
    assert captured.body == {"name": "x"}
    assert captured.status == 404


def test_a_body_is_read_as_closed_over_all_the_parts_of_its_schema(contract: Contract) -> None:
    """Fields declared by any part of an allOf are allowed; a field no part declares is a finding."""
    good = exchange("PATCH", "/v1/lines/lin_1", body={"type": "line", "description": "Camera"})
    bad = exchange("PATCH", "/v1/lines/lin_1", body={"type": "line", "tagIds": ["tag_1"]})
    report = check({V1: contract}, [good, bad])
    assert report.requests.conform == 1
    assert list(report.requests.violations) == ["v1 PATCH /lines/{id}: body.tagIds is not declared"]


def test_a_body_json_forbids_is_captured_as_not_json(tmp_path: Path) -> None:
    """The dirty catalogue's NaN amounts reach the wire as a literal JSON has no room for, and the capture says so."""
    capture = tmp_path / "capture.jsonl"
    service = seeded_service(42, "small", dirty=True, hostile=True)
    app = create_app(service, legacy_key="lk_secret_key_0123456789", capture=capture)
    project = service.list_projects(service.workspace("source"))[0]

    async def call() -> None:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://emulator") as client:
            answer = await client.get(
                f"/api/v1/projects/{project.id}/actuals",
                params={"idMode": "system"},
                headers={"X-API-Key": "lk_secret_key_0123456789"},
            )
            assert answer.status_code == 200

    asyncio.run(call())
    (captured,) = read_capture([capture])
    assert captured.response == {"$notJson": "the literal NaN (JSON has no such value)"}


def test_a_response_that_is_not_json_does_not_conform(contract: Contract) -> None:
    """Whatever its shape would have been, a body that is not JSON is a finding."""
    bad = exchange("GET", "/v1/library/tags", response={"$notJson": "the literal NaN (JSON has no such value)"})
    report = check({V1: contract}, [bad])
    assert report.responses.conform == 0
    assert any("body is not JSON" in problem for problem in report.responses.violations)
