"""v1 authentication, the error envelope and Idempotency-Key semantics, over HTTP."""

from __future__ import annotations

from collections.abc import Callable

import httpx
import pytest
from fastapi import FastAPI

from tests.emulator.documented_codes import produced

pytestmark = pytest.mark.anyio
KEY = {"Idempotency-Key": "k" * 16}


@pytest.mark.parametrize(
    ("authorization", "code"),
    [
        (None, "missing_authorization"),
        ("Bearer ", "unauthenticated"),
        ("Basic dXNlcjpwYXNz", "unauthenticated"),
        ("Bearer not-a-token", "invalid_token"),
        ("Bearer sat_0123456789abcdef0123456789", "invalid_token"),
    ],
)
async def test_bad_credentials_get_the_documented_401(v1_app: FastAPI, authorization: str | None, code: str) -> None:
    """Each way of failing to authenticate gets 401 with its own code and the error envelope."""
    headers = {} if authorization is None else {"Authorization": authorization}
    transport = httpx.ASGITransport(app=v1_app)
    async with httpx.AsyncClient(transport=transport, base_url="http://emulator/v1") as client:
        response = await client.get("/me", headers=headers)
    body = response.json()
    assert (response.status_code, body["code"], body["success"]) == (401, code, False)
    assert body["requestId"] == response.headers["X-Request-Id"]
    produced(401, code)


async def test_me_names_the_one_workspace_and_role(v1_client: httpx.AsyncClient) -> None:
    """GET /me confirms the identity, its one workspace and the admin role."""
    response = await v1_client.get("/me")
    assert response.status_code == 200
    body = response.json()
    assert body["type"] == "user"
    assert body["workspaces"] == [{"workspaceId": "wsp_target", "workspaceRole": "admin"}]
    produced(200, None)


async def test_revoked_token_fails_on_its_next_call(
    v1_client: httpx.AsyncClient, control_client: httpx.AsyncClient
) -> None:
    """After DELETE /_emulator/tokens/{token}, the next call is 401 token_revoked."""
    token = v1_client.headers["Authorization"].split()[1]
    assert (await v1_client.get("/me")).status_code == 200
    assert (await control_client.delete(f"/tokens/{token}")).status_code == 204
    response = await v1_client.get("/me")
    assert (response.status_code, response.json()["code"]) == (401, "token_revoked")
    produced(401, "token_revoked")


async def test_downgraded_role_cannot_write(v1_client: httpx.AsyncClient, control_client: httpx.AsyncClient) -> None:
    """A token downgraded to viewer mid-run gets 403 permission_revoked naming the ability it lacks."""
    token = v1_client.headers["Authorization"].split()[1]
    assert (await control_client.patch(f"/tokens/{token}", json={"role": "viewer"})).status_code == 200
    response = await v1_client.post("/projects", json={"name": "x"}, headers=KEY)
    body = response.json()
    assert (response.status_code, body["code"], body["requiredAbility"]) == (
        403,
        "permission_revoked",
        "create:Project",
    )
    assert (await v1_client.get("/projects")).status_code == 200
    produced(403, "permission_revoked")


async def test_other_workspace_project_is_not_found(
    v1_client: httpx.AsyncClient, v1_app: FastAPI, issue_token: Callable[..., str]
) -> None:
    """A project of `source` is 404 not_found to a `target` token, exactly like an absent one."""
    transport = httpx.ASGITransport(app=v1_app)
    source = {"Authorization": f"Bearer {issue_token('source')}"}
    async with httpx.AsyncClient(transport=transport, base_url="http://emulator/v1", headers=source) as other:
        created = (await other.post("/projects", json={"name": "Hidden"}, headers=KEY)).json()
    hidden = await v1_client.get(f"/projects/{created['id']}")
    absent = await v1_client.get("/projects/prj_absent")
    assert (hidden.status_code, hidden.json()["code"]) == (404, "not_found")
    assert (absent.status_code, absent.json()["code"]) == (404, "not_found")
    assert hidden.json()["message"].replace(created["id"], "X") == absent.json()["message"].replace("prj_absent", "X")
    produced(404, "not_found")


async def test_replay_returns_first_response_and_creates_nothing(
    v1_client: httpx.AsyncClient, control_client: httpx.AsyncClient
) -> None:
    """The same key and body replays the first 201 with Idempotency-Replayed: true; one project exists."""
    first = await v1_client.post("/projects", json={"name": "Once"}, headers=KEY)
    second = await v1_client.post("/projects", json={"name": "Once"}, headers=KEY)
    assert (first.status_code, second.status_code) == (201, 201)
    assert second.json() == first.json()
    assert second.headers["Idempotency-Replayed"] == "true"
    assert len((await v1_client.get("/projects")).json()["data"]) == 1
    stats = (await control_client.get("/stats")).json()
    assert stats["replays"] == 1
    assert stats["writes"] == 1
    assert stats["objects"]["target"]["projects"] == 1
    produced(201, None)


async def test_same_key_different_body_is_conflict(v1_client: httpx.AsyncClient) -> None:
    """Reusing a key for another request is 409 idempotency_conflict."""
    await v1_client.post("/projects", json={"name": "A"}, headers=KEY)
    response = await v1_client.post("/projects", json={"name": "B"}, headers=KEY)
    assert (response.status_code, response.json()["code"]) == (409, "idempotency_conflict")
    produced(409, "idempotency_conflict")


async def test_same_content_in_other_bytes_is_a_replay(v1_client: httpx.AsyncClient) -> None:
    """A repeat whose JSON differs from the first only in spacing and key order replays; the key on another
    path conflicts."""
    sent = {**KEY, "Content-Type": "application/json"}
    first = await v1_client.post("/projects", content=b'{"name": "Once", "emoji": null}', headers=sent)
    again = await v1_client.post("/projects", content=b'{"emoji":null,"name":"Once"}', headers=sent)
    assert (first.status_code, again.status_code, again.headers["Idempotency-Replayed"]) == (201, 201, "true")
    assert again.json() == first.json()
    elsewhere = await v1_client.post("/spaces", content=b'{"name": "Once"}', headers=sent)
    assert (elsewhere.status_code, elsewhere.json()["code"]) == (409, "idempotency_conflict")


@pytest.mark.parametrize("header", [None, "short", "x" * 256])
async def test_missing_or_badly_sized_key_is_400(v1_client: httpx.AsyncClient, header: str | None) -> None:
    """A create without a key of 16 to 255 characters is 400 validation and stores nothing."""
    headers = {} if header is None else {"Idempotency-Key": header}
    response = await v1_client.post("/projects", json={"name": "A"}, headers=headers)
    assert (response.status_code, response.json()["code"]) == (400, "validation")
    assert (await v1_client.get("/projects")).json()["data"] == []
    produced(400, "validation")


async def test_failed_validation_leaves_the_key_free(v1_client: httpx.AsyncClient) -> None:
    """A refused create stores nothing: the corrected request under the same key succeeds."""
    refused = await v1_client.post("/projects", json={"name": ""}, headers=KEY)
    assert refused.status_code == 400
    assert (await v1_client.post("/projects", json={"name": "Fixed"}, headers=KEY)).status_code == 201


async def test_key_expires_after_the_retention_window(
    v1_client: httpx.AsyncClient, control_client: httpx.AsyncClient
) -> None:
    """With retention 0 s, a reused key runs again instead of replaying."""
    await control_client.post("/settings", json={"idempotencyRetentionS": 0})
    await v1_client.post("/projects", json={"name": "A"}, headers=KEY)
    again = await v1_client.post("/projects", json={"name": "B"}, headers=KEY)
    assert again.status_code == 201
    assert "Idempotency-Replayed" not in again.headers
    assert len((await v1_client.get("/projects")).json()["data"]) == 2


async def test_request_ids_are_unique(v1_client: httpx.AsyncClient) -> None:
    """Every response carries its own request id."""
    ids = {(await v1_client.get("/me")).headers["X-Request-Id"] for _ in range(5)}
    assert len(ids) == 5


async def test_expired_token_is_invalid(v1_client: httpx.AsyncClient, control_client: httpx.AsyncClient) -> None:
    """A token issued with a lifetime of 0 s is refused as invalid_token."""
    issued = (await control_client.post("/tokens", json={"workspace": "target", "expiresInS": 0})).json()
    response = await v1_client.get("/me", headers={"Authorization": f"Bearer {issued['token']}"})
    assert (response.status_code, response.json()["code"]) == (401, "invalid_token")


async def test_deleted_contact_is_gone_and_unlinked(v1_client: httpx.AsyncClient) -> None:
    """DELETE /contacts/{id} makes it 404; a line that named it keeps its data without it."""
    contact = (await v1_client.post("/contacts", json={"name": "Ann", "type": "vendor"}, headers=KEY)).json()
    project = (await v1_client.post("/projects", json={"name": "P"}, headers={"Idempotency-Key": "p" * 16})).json()
    line = await v1_client.post(
        f"/projects/{project['id']}/budget/lines",
        json={"description": "Hire", "contactId": contact["id"]},
        headers={"Idempotency-Key": "l" * 16},
    )
    assert line.json()["contactId"] == contact["id"]
    assert (await v1_client.delete(f"/contacts/{contact['id']}")).status_code == 204
    assert (await v1_client.get(f"/contacts/{contact['id']}")).status_code == 404
    read = await v1_client.get(f"/projects/{project['id']}/budget/lines/{line.json()['id']}")
    assert (read.json()["description"], read.json()["contactId"]) == ("Hire", None)


async def test_unknown_v1_route_keeps_the_envelope(v1_client: httpx.AsyncClient) -> None:
    """A path the v1 surface does not have is 404 not_found with a requestId, like any other error."""
    response = await v1_client.get("/no/such/thing")
    body = response.json()
    assert (response.status_code, body["code"], body["success"]) == (404, "not_found", False)
    assert body["requestId"] == response.headers["X-Request-Id"]
