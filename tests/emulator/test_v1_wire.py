"""The same v1 app over a real socket: uvicorn on an ephemeral loopback port."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import httpx
import pytest
from fastapi import FastAPI

from tests.emulator.documented_codes import produced
from tests.support.serving import serving

pytestmark = [pytest.mark.anyio, pytest.mark.wire]


@pytest.fixture
def v1_server(v1_app: FastAPI) -> Iterator[str]:
    """The root URL of ``v1_app`` served by uvicorn in a thread."""
    with serving(v1_app) as base_url:
        yield base_url


async def test_write_path_and_commit_then_drop_over_the_wire(v1_server: str, issue_token: Callable[..., str]) -> None:
    """Over TCP: a dropped bulk is applied once, the replay returns it, and the error codes hold."""
    headers = {"Authorization": f"Bearer {issue_token()}"}
    async with (
        httpx.AsyncClient(base_url=f"{v1_server}/v1", headers=headers, timeout=10) as v1,
        httpx.AsyncClient(base_url=f"{v1_server}/_emulator", timeout=10) as control,
    ):
        project = (await v1.post("/projects", json={"name": "Wire"}, headers={"Idempotency-Key": "p" * 16})).json()
        bulk_url = f"/projects/{project['id']}/budget/lines/bulk"
        body = {"lines": [{"description": f"L{n}"} for n in range(100)]}
        key = {"Idempotency-Key": "wire-bulk-key-00001"}
        await control.post("/faults", json={"rules": [{"kind": "commit_then_drop", "route": "*/budget/lines/bulk"}]})
        with pytest.raises(httpx.TransportError):
            await v1.post(bulk_url, json=body, headers=key)
        await control.post("/faults", json={})
        replay = await v1.post(bulk_url, json=body, headers=key)
        assert (replay.status_code, replay.headers["Idempotency-Replayed"]) == (201, "true")
        listed = (await v1.get(f"/projects/{project['id']}/budget/lines", params={"withCount": "true"})).json()
        assert listed["count"] == 100
        assert [line["id"] for line in replay.json()["data"][:50]] == [line["id"] for line in listed["data"]]
        missing = await v1.get("/me", headers={"Authorization": ""})
        assert missing.json()["code"] in {"unauthenticated", "missing_authorization"}
        produced(201, None)
        stats = (await control.get("/stats")).json()
        assert stats["requests"]["byRoute"]["POST /v1/projects/{project_id}/budget/lines/bulk"] == 2
        assert stats["objects"]["target"]["budgetLines"] == 100


async def test_reset_fault_closes_the_socket(v1_server: str, issue_token: Callable[..., str]) -> None:
    """A reset fault is seen by a real client as a protocol error, and the server keeps serving."""
    headers = {"Authorization": f"Bearer {issue_token()}"}
    async with httpx.AsyncClient(base_url=v1_server, headers=headers, timeout=10) as client:
        await client.post("/_emulator/faults", json={"rules": [{"kind": "reset", "route": "/v1/me"}]})
        with pytest.raises(httpx.RemoteProtocolError):
            await client.get("/v1/me")
        await client.post("/_emulator/faults", json={})
        assert (await client.get("/v1/me")).status_code == 200
