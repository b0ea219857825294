"""The control API on the seeded emulator: counters, objects per workspace, tokens, reset."""

from __future__ import annotations

import httpx
import pytest

from tests.support.emulator import LEGACY_KEY

pytestmark = pytest.mark.anyio


async def test_stats_count_requests_writes_and_objects(
    emulator_v1_client: httpx.AsyncClient, emulator_control_client: httpx.AsyncClient
) -> None:
    """Stats name both workspaces, count a v1 write by surface, method and route, and errors by status."""
    before = (await emulator_control_client.get("/stats")).json()
    assert before["objects"]["source"]["budgetLines"] > 0
    assert before["objects"]["target"]["projects"] == 0
    await emulator_v1_client.post("/projects", json={"name": "Counted"}, headers={"Idempotency-Key": "c" * 16})
    await emulator_v1_client.get("/projects/prj_absent")
    stats = (await emulator_control_client.get("/stats")).json()
    assert stats["writes"] == before["writes"] + 1
    assert stats["requests"]["bySurface"]["v1"] == before["requests"]["bySurface"].get("v1", 0) + 2
    assert stats["requests"]["byRoute"]["POST /v1/projects"] == 1
    assert stats["errors"]["404"] == 1
    assert stats["objects"]["target"]["projects"] == 1


async def test_issued_token_works_and_reset_restores_the_seed(
    emulator_v1_client: httpx.AsyncClient, emulator_control_client: httpx.AsyncClient
) -> None:
    """A token issued for `target` with role viewer (published as `view`) reads; reset removes created objects."""
    issued = await emulator_control_client.post("/tokens", json={"workspace": "target", "role": "viewer"})
    assert issued.status_code == 201
    viewer = {"Authorization": f"Bearer {issued.json()['token']}"}
    assert (await emulator_v1_client.get("/me", headers=viewer)).json()["workspaces"][0]["workspaceRole"] == "view"
    await emulator_v1_client.post("/projects", json={"name": "Temporary"}, headers={"Idempotency-Key": "r" * 16})
    assert (await emulator_control_client.post("/reset")).status_code == 200
    assert (await emulator_v1_client.get("/projects")).json()["data"] == []
    assert (await emulator_control_client.get("/stats")).json()["objects"]["target"]["projects"] == 0


async def test_bad_fault_plan_and_unknown_token_are_refused(emulator_control_client: httpx.AsyncClient) -> None:
    """An invalid plan is 400 and leaves the plan in force; revoking an unknown token is 404."""
    assert (await emulator_control_client.post("/faults", json={"rules": [{"kind": "meteor"}]})).status_code == 400
    assert (await emulator_control_client.get("/faults")).json()["rules"] == []
    assert (await emulator_control_client.delete("/tokens/not-a-token-at-all")).status_code == 404


async def test_a_second_workspace_has_its_own_legacy_key_and_records(
    legacy_client: httpx.AsyncClient, emulator_control_client: httpx.AsyncClient
) -> None:
    """A workspace made through the control API answers the legacy surface with its own key and records only;
    a second one of the same name is 409."""
    made = await emulator_control_client.post("/workspaces", json={"name": "other"})
    assert made.status_code == 201
    assert (await emulator_control_client.post("/workspaces", json={"name": "other"})).status_code == 409
    issued = await emulator_control_client.post("/legacy-keys", json={"workspace": "other"})
    assert issued.status_code == 201
    assert issued.json()["workspace"] == made.json()["workspace"]
    other = {"X-API-Key": issued.json()["key"]}
    created = await legacy_client.post("/projects", json={"name": "Elsewhere"}, headers=other)
    assert created.status_code == 201
    listed = (await legacy_client.get("/projects", params={"idMode": "system"}, headers=other)).json()["projects"]
    assert [p["name"] for p in listed] == ["Elsewhere"]
    source = (await legacy_client.get("/projects", params={"idMode": "system"})).json()["projects"]
    assert "Elsewhere" not in {p["name"] for p in source}
    assert (await emulator_control_client.get("/stats")).json()["objects"]["other"]["projects"] == 1


async def test_a_rotated_legacy_key_opens_the_same_workspace_and_the_old_one_is_refused(
    legacy_client: httpx.AsyncClient, emulator_control_client: httpx.AsyncClient
) -> None:
    """Issue a new key for `source`, delete the old one: the new key reads the same projects, the old is 401."""
    before = (await legacy_client.get("/projects", params={"idMode": "system"})).json()["projects"]
    issued = (await emulator_control_client.post("/legacy-keys", json={"workspace": "source"})).json()
    assert (await emulator_control_client.delete(f"/legacy-keys/{LEGACY_KEY}")).status_code == 204
    assert (await legacy_client.get("/projects")).status_code == 401
    rotated = {"X-API-Key": issued["key"]}
    after = await legacy_client.get("/projects", params={"idMode": "system"}, headers=rotated)
    assert after.json()["projects"] == before
    assert (await emulator_control_client.delete(f"/legacy-keys/{LEGACY_KEY}")).status_code == 404
    assert (await emulator_control_client.post("/legacy-keys", json={"workspace": "absent"})).status_code == 400
