"""Many tenants in one emulator (``create_app(workspaces=N)``), over HTTP in process: each tenant's key reads
only its own source, each token writes only into its own target, a rate limit is spent per tenant, and the
stats tell, per workspace, which clients came when."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import datetime

import httpx
import pytest
from fastapi import FastAPI

from bridge.emulator.app import create_app
from bridge.emulator.control.tenants import Tenant

pytestmark = pytest.mark.anyio
TENANTS = 3


@pytest.fixture(scope="module")
def fleet_app() -> FastAPI:
    """Three tenants of the small seeded workspace (seeds 42, 43, 44); read-only tests share it."""
    return create_app(seed=42, size="small", workspaces=TENANTS)


@pytest.fixture
def fresh_app() -> FastAPI:
    """Three tenants for a test that writes."""
    return create_app(seed=42, size="small", workspaces=TENANTS)


@pytest.fixture
async def client(fresh_app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=fresh_app), base_url="http://emulator") as c:
        yield c


def key(tenant: Tenant, agent: str = "tests") -> dict[str, str]:
    return {"X-API-Key": tenant.credentials.legacy_key, "User-Agent": agent}


def bearer(tenant: Tenant, agent: str = "tests") -> dict[str, str]:
    return {"Authorization": f"Bearer {tenant.credentials.token}", "User-Agent": agent}


def idempotent(headers: dict[str, str], name: str) -> dict[str, str]:
    return {**headers, "Idempotency-Key": f"tenant-test-{name}".ljust(16, "0")}


def tenants(app: FastAPI) -> tuple[Tenant, ...]:
    fleet: tuple[Tenant, ...] = app.state.emulator.tenants
    return fleet


async def test_each_tenant_is_named_seeded_and_credentialed_apart(fleet_app: FastAPI) -> None:
    """Names ws-01..ws-03 over source_0N/target_0N, seeds 42..44, no credential shared by two tenants."""
    fleet = tenants(fleet_app)
    assert [(t.name, t.source, t.target, t.seed) for t in fleet] == [
        (f"ws-0{n}", f"source_0{n}", f"target_0{n}", 41 + n) for n in (1, 2, 3)
    ]
    secrets = [t.credentials.legacy_key for t in fleet] + [t.credentials.token for t in fleet]
    assert len(set(secrets)) == 2 * TENANTS
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=fleet_app), base_url="http://emulator") as c:
        stats = (await c.get("/_emulator/stats")).json()
    assert [t["name"] for t in stats["tenants"]] == ["ws-01", "ws-02", "ws-03"]
    assert {name: counts["projects"] for name, counts in stats["objects"].items()} == {
        **{f"source_0{n}": 4 for n in (1, 2, 3)},
        **{f"target_0{n}": 0 for n in (1, 2, 3)},
    }


async def test_a_legacy_key_reads_only_its_own_source(fleet_app: FastAPI) -> None:
    """Each key lists its own contacts (different seeds, different people), and none of another source's."""
    fleet = tenants(fleet_app)
    seen: dict[str, set[str]] = {}
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=fleet_app), base_url="http://emulator") as c:
        for tenant in fleet:
            response = await c.get("/api/v1/contacts", headers=key(tenant))
            assert response.status_code == 200
            seen[tenant.name] = {contact["name"] for contact in response.json()["contacts"]}
    service = fleet_app.state.emulator.service
    for tenant in fleet:
        assert seen[tenant.name] == {contact.name for contact in service.workspace(tenant.source).contacts.values()}
    assert seen["ws-01"] != seen["ws-02"] != seen["ws-03"] != seen["ws-01"]


async def test_a_project_made_with_one_key_is_invisible_to_the_others(
    fresh_app: FastAPI, client: httpx.AsyncClient
) -> None:
    """A legacy project created through ws-02's key is listed by ws-02 only; another key gets 404 for it."""
    fleet = tenants(fresh_app)
    created = await client.post("/api/v1/projects", json={"name": "Only in two"}, headers=key(fleet[1]))
    assert created.status_code == 201
    project_id = created.json()["id"]
    for tenant in fleet:
        listed = (await client.get("/api/v1/projects", headers=key(tenant))).json()["projects"]
        assert ("Only in two" in {p["name"] for p in listed}) == (tenant is fleet[1])
    assert (await client.get(f"/api/v1/projects/{project_id}", headers=key(fleet[0]))).status_code == 404


async def test_a_token_writes_only_into_its_own_target(fresh_app: FastAPI, client: httpx.AsyncClient) -> None:
    """ws-01's token creates a project in target_01; ws-02's token neither lists, reads nor renames it, and the
    same Idempotency-Key sent by two tenants makes two projects, one in each target."""
    fleet = tenants(fresh_app)
    first = await client.post("/v1/projects", json={"name": "Mine"}, headers=idempotent(bearer(fleet[0]), "same"))
    assert first.status_code == 201
    project_id = first.json()["id"]
    other = bearer(fleet[1])
    assert (await client.get("/v1/projects", headers=other)).json()["data"] == []
    assert (await client.get(f"/v1/projects/{project_id}", headers=other)).status_code == 404
    renamed = await client.patch(f"/v1/projects/{project_id}", json={"name": "Theirs"}, headers=other)
    assert renamed.status_code == 404
    assert (await client.get(f"/v1/projects/{project_id}", headers=bearer(fleet[0]))).json()["name"] == "Mine"
    second = await client.post("/v1/projects", json={"name": "Also"}, headers=idempotent(other, "same"))
    assert second.status_code == 201
    assert "Idempotency-Replayed" not in second.headers
    objects = (await client.get("/_emulator/stats")).json()["objects"]
    assert [objects[t.target]["projects"] for t in fleet] == [1, 1, 0]


async def test_one_tenants_rate_limit_does_not_stall_another(fresh_app: FastAPI, client: httpx.AsyncClient) -> None:
    """With a bucket of 2 that barely refills, ws-01 is refused its third request while ws-02 and ws-03 still
    get theirs; ws-01's legacy key spends from the same bucket as its token."""
    fleet = tenants(fresh_app)
    plan = {"rateLimit": {"capacity": 2, "refillPerS": 0.001}}
    assert (await client.post("/_emulator/faults", json=plan)).status_code == 200
    first = [(await client.get("/v1/me", headers=bearer(fleet[0]))).status_code for _ in range(3)]
    assert first == [200, 200, 429]
    assert (await client.get("/api/v1/spaces", headers=key(fleet[0]))).status_code == 429
    for tenant in fleet[1:]:
        assert [(await client.get("/v1/me", headers=bearer(tenant))).status_code for _ in range(2)] == [200, 200]
        assert (await client.get("/v1/me", headers=bearer(tenant))).status_code == 429


async def test_the_stats_keep_each_clients_span_per_workspace(fresh_app: FastAPI, client: httpx.AsyncClient) -> None:
    """Per workspace and User-Agent: when the first request began, when the last ended, how many, how many
    wrote; a request without a known credential is in no workspace's timeline."""
    fleet = tenants(fresh_app)
    run_a = "workspace-bridge/0.1 (host-a; pid 1)"
    run_b = "workspace-bridge/0.1 (host-b; pid 2)"
    await client.get("/v1/me", headers=bearer(fleet[0], run_a))
    await client.post("/v1/projects", json={"name": "A"}, headers=idempotent(bearer(fleet[0], run_a), "a"))
    await client.get("/api/v1/spaces", headers=key(fleet[0], run_a))
    await client.get("/v1/me", headers=bearer(fleet[0], run_b))
    await client.get("/v1/me", headers=bearer(fleet[2], run_b))
    await client.get("/v1/me", headers={"Authorization": "Bearer tok_not-a-token-of-anyone", "User-Agent": run_b})
    clients = (await client.get("/_emulator/stats")).json()["clients"]
    assert set(clients) == {"target_01", "source_01", "target_03"}
    a, b = clients["target_01"]
    assert (a["userAgent"], a["requests"], a["writes"]) == (run_a, 2, 1)
    assert (b["userAgent"], b["requests"], b["writes"]) == (run_b, 1, 0)
    assert datetime.fromisoformat(a["first"]) <= datetime.fromisoformat(a["last"]) <= datetime.fromisoformat(b["first"])
    assert [(c["userAgent"], c["requests"]) for c in clients["source_01"]] == [(run_a, 1)]
    assert [(c["userAgent"], c["requests"]) for c in clients["target_03"]] == [(run_b, 1)]
    await client.post("/_emulator/reset")
    assert (await client.get("/_emulator/stats")).json()["clients"] == {}


async def test_the_control_api_mints_credentials_for_one_tenant(client: httpx.AsyncClient) -> None:
    """The control API's token and legacy-key endpoints take a tenant's workspace name: what they mint reaches
    that tenant's workspaces only (the control API's way to what the manifest's files hold)."""
    minted = await client.post("/_emulator/tokens", json={"workspace": "target_02"})
    token = {"Authorization": f"Bearer {minted.json()['token']}"}
    me = (await client.get("/v1/me", headers=token)).json()
    assert [w["workspaceId"] for w in me["workspaces"]] == ["wsp_target_02"]
    issued = await client.post("/_emulator/legacy-keys", json={"workspace": "source_02"})
    assert issued.json()["workspace"] == "wsp_source_02"
    projects = await client.post(
        "/api/v1/projects", json={"name": "Via minted"}, headers={"X-API-Key": issued.json()["key"]}
    )
    assert projects.status_code == 201
    objects = (await client.get("/_emulator/stats")).json()["objects"]
    assert [objects[f"source_0{n}"]["projects"] for n in (1, 2, 3)] == [4, 5, 4]
