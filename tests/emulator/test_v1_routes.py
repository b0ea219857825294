"""How the v1 surface routes a request: which operation answers, what a path no operation takes gets, and
that a call is authenticated before its operation reads anything."""

from __future__ import annotations

import httpx
import pytest
from fastapi import FastAPI

from tests.support.emulator import V1_TOKEN

pytestmark = pytest.mark.anyio
AUTH = {"Authorization": f"Bearer {V1_TOKEN}"}


async def _send(app: FastAPI, method: str, path: str, **kwargs: object) -> httpx.Response:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://emulator") as client:
        return await client.request(method, path, **kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("HEAD", "/v1/me"),  # a read has no implied HEAD
        ("DELETE", "/v1/me"),
        ("PUT", "/v1/transactions/txn_1/items"),  # the path is an operation's, for POST and GET only
        ("GET", "/v1/no-such-thing"),
    ],
)
async def test_what_no_operation_takes_is_an_unknown_operation(v1_app: FastAPI, method: str, path: str) -> None:
    response = await _send(v1_app, method, path, headers=AUTH)
    assert response.status_code == 404
    if method != "HEAD":
        assert response.json()["code"] == "not_found"
        assert response.json()["message"].startswith(f"No v1 operation {method} {path};")


async def test_a_trailing_slash_is_redirected_to_the_operation(v1_app: FastAPI) -> None:
    response = await _send(v1_app, "GET", "/v1/projects/", headers=AUTH)
    assert (response.status_code, response.headers["location"]) == (307, "http://emulator/v1/projects")


async def test_a_call_is_authenticated_before_its_body_is_read(v1_app: FastAPI) -> None:
    headers = {"Idempotency-Key": "k" * 16, "Content-Type": "application/json"}
    response = await _send(v1_app, "POST", "/v1/transactions/txn_1/items", headers=headers, content=b"{not json")
    assert (response.status_code, response.json()["code"]) == (401, "missing_authorization")


async def test_requests_are_counted_by_their_operation_template(v1_app: FastAPI) -> None:
    await _send(v1_app, "GET", "/v1/transactions/txn_1/items", headers=AUTH)
    await _send(v1_app, "GET", "/v1/me", headers=AUTH)
    stats = (await _send(v1_app, "GET", "/_emulator/stats")).json()
    assert stats["requests"]["byRoute"] == {
        "GET /v1/transactions/{transaction_id}/items": 1,
        "GET /v1/me": 1,
    }


def test_an_operation_path_is_built_by_its_name(v1_app: FastAPI) -> None:
    assert v1_app.url_path_for("add_item", transaction_id="txn_1") == "/v1/transactions/txn_1/items"
