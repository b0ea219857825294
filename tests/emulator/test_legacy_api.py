"""Legacy surface: auth, id modes, query arrays, spaces, projects and contacts, driven over HTTP in process."""

from __future__ import annotations

import uuid

import httpx
import pytest
from fastapi import FastAPI

from bridge.emulator.core.store import Service
from tests.support.emulator import LEGACY_KEY

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize("headers", [{}, {"X-API-Key": "wrong"}, {"X-API-Key": ""}])
async def test_a_missing_or_invalid_key_is_401(legacy_client: httpx.AsyncClient, headers: dict[str, str]) -> None:
    """No key, an unknown key and an empty key are all 401 with the A01 body, on every route."""
    legacy_client.headers.pop("X-API-Key")
    response = await legacy_client.get("/projects", headers=headers)
    assert response.status_code == 401
    assert set(response.json()) >= {"error", "code"}


async def test_a_restricted_key_is_403(legacy_client: httpx.AsyncClient, emulator_service: Service) -> None:
    """A key whose workspace access is restricted gets 403; the error never echoes the key."""
    emulator_service.restrict_api_key(LEGACY_KEY)
    response = await legacy_client.get("/spaces")
    assert response.status_code == 403
    assert LEGACY_KEY not in response.text


async def test_unknown_routes_and_records_are_404(legacy_client: httpx.AsyncClient) -> None:
    """An unknown path, project, space or contact is 404 in the legacy error body."""
    for path in ("/nothing-here", "/projects/nope", "/spaces/nope", "/contacts/nope", "/projects/nope/budget"):
        response = await legacy_client.get(path)
        assert response.status_code == 404, path
        assert response.json()["code"] == "not_found"


async def test_id_mode_decides_how_ids_are_written(legacy_client: httpx.AsyncClient) -> None:
    """user mode (default) shows aliases; system mode shows database ids; both read back by either id."""
    user = (await legacy_client.get("/projects")).json()["projects"]
    system = (await legacy_client.get("/projects", params={"idMode": "system"})).json()["projects"]
    assert user[0]["id"] == user[0]["alias"] == "night-harbor"
    assert system[0]["id"].startswith("prj_")
    assert str(uuid.UUID(system[0]["space"]["id"])) == system[0]["space"]["id"]  # the doc's UUID
    for ref in (user[0]["id"], system[0]["id"]):
        assert (await legacy_client.get(f"/projects/{ref}")).json()["name"] == "Night Harbor"
    assert (await legacy_client.get("/projects", params={"idMode": "admin"})).status_code == 400


async def test_spaces_list_filters_and_expands_in_either_array_spelling(legacy_client: httpx.AsyncClient) -> None:
    """archived and search filter the list; expands[]=projects and expands=projects both embed projects."""
    active = (await legacy_client.get("/spaces")).json()["spaces"]
    archived = (await legacy_client.get("/spaces", params={"archived": "true"})).json()["spaces"]
    assert all(not s["archived"] for s in active)
    assert [s["name"] for s in archived] == ["Archive 2019"]
    found = (await legacy_client.get("/spaces", params={"search": "FEAT"})).json()["spaces"]
    assert [s["name"] for s in found] == ["Features"]
    for params in ({"expands[]": "projects"}, {"expands": "projects,other"}):
        spaces = (await legacy_client.get("/spaces", params=params)).json()["spaces"]
        features = next(s for s in spaces if s["name"] == "Features")
        assert [p["name"] for p in features["projects"]] == ["Night Harbor"]
        assert features["projectCount"] == 1
    assert "projects" not in active[0]


async def test_space_lifecycle_and_the_active_project_rule(legacy_client: httpx.AsyncClient) -> None:
    """Create (201), get by alias, update, refuse delete while an active project is inside, then delete (204)."""
    created = await legacy_client.post("/spaces", json={"name": "Shorts"})
    assert created.status_code == 201
    space = created.json()
    assert (space["alias"], space["archived"]) == ("shorts", False)
    assert (await legacy_client.post("/spaces", json={"name": ""})).status_code == 400
    renamed = await legacy_client.put("/spaces/shorts", json={"name": "Short films"})
    assert renamed.json()["name"] == "Short films"
    project = (await legacy_client.post("/projects", json={"name": "Tiny", "spaceId": "shorts"})).json()
    refused = await legacy_client.delete("/spaces/shorts")
    assert refused.status_code == 400
    assert refused.json()["code"] == "space_not_empty"
    await legacy_client.put(f"/projects/{project['id']}", json={"status": "archived"})
    assert (await legacy_client.delete("/spaces/shorts")).status_code == 204
    assert (await legacy_client.get("/spaces/shorts")).status_code == 404


async def test_projects_filter_create_update_and_soft_delete(legacy_client: httpx.AsyncClient) -> None:
    """Filters by status, space, name, labels; create defaults; PUT changes; DELETE hides (204)."""
    archived = (await legacy_client.get("/projects", params={"status": "archived"})).json()["projects"]
    assert [p["name"] for p in archived] == ["Lighthouse (2019)"]
    by_space = (await legacy_client.get("/projects", params={"spaceName": "commercials"})).json()["projects"]
    assert {p["name"] for p in by_space} == {"Cold Open", "Summer Spot"}
    by_label = (await legacy_client.get("/projects", params={"labels": "q3"})).json()["projects"]
    assert [p["name"] for p in by_label] == ["Summer Spot"]
    created = await legacy_client.post("/projects", json={"labels": ["pilot"]})
    assert created.status_code == 201
    assert (created.json()["name"], created.json()["status"]) == ("Untitled Project", "active")
    ref = created.json()["id"]
    updated = await legacy_client.put(f"/projects/{ref}", json={"name": "Pilot", "labels": ["pilot", "tv"]})
    assert updated.json()["labels"] == ["pilot", "tv"]
    assert (await legacy_client.delete(f"/projects/{ref}")).status_code == 204
    assert (await legacy_client.get(f"/projects/{ref}")).status_code == 404
    names = [p["name"] for p in (await legacy_client.get("/projects")).json()["projects"]]
    assert "Pilot" not in names


async def test_contacts_are_workspace_wide_and_editable(legacy_client: httpx.AsyncClient) -> None:
    """Contacts list, filter, create (201), read and update; a nameless contact is refused."""
    contacts = (await legacy_client.get("/contacts")).json()["contacts"]
    assert len(contacts) >= 5
    created = await legacy_client.post(
        "/contacts", json={"name": "Rin Tanaka", "type": "Contractor", "rate": 650.5, "jobTitle": "Gaffer"}
    )
    assert created.status_code == 201
    contact = created.json()
    assert contact["rate"] == 650.5
    updated = await legacy_client.put(f"/contacts/{contact['id']}", json={"email": "rin@example.com"})
    assert updated.json()["email"] == "rin@example.com"
    found = (await legacy_client.get("/contacts", params={"email": "RIN@EXAMPLE"})).json()["contacts"]
    assert [c["id"] for c in found] == [contact["id"]]
    assert (await legacy_client.get(f"/contacts/{contact['id']}")).json()["jobTitle"] == "Gaffer"
    assert (await legacy_client.post("/contacts", json={"email": "x@example.com"})).status_code == 400


async def test_a_malformed_body_is_400_naming_the_problem(legacy_client: httpx.AsyncClient) -> None:
    """Invalid JSON and non-object bodies are refused with a message, not a server error."""
    response = await legacy_client.post("/spaces", content=b"{not json", headers={"Content-Type": "application/json"})
    assert response.status_code == 400
    assert "JSON" in response.json()["error"]
    assert (await legacy_client.post("/spaces", json=["x"])).status_code == 400


async def test_a_control_reset_reseeds_what_the_legacy_surface_serves(
    legacy_client: httpx.AsyncClient, emulator_app: FastAPI
) -> None:
    """After POST /_emulator/reset the legacy surface serves the seeded workspace again, with the same key."""
    await legacy_client.post("/spaces", json={"name": "Temporary"})
    transport = httpx.ASGITransport(app=emulator_app)
    async with httpx.AsyncClient(transport=transport, base_url="http://emulator/_emulator") as control:
        assert (await control.post("/reset")).status_code == 200
    names = [s["name"] for s in (await legacy_client.get("/spaces")).json()["spaces"]]
    assert "Temporary" not in names
    assert "Features" in names
