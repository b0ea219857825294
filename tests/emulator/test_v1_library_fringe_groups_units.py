"""v1 project fringe groups (copies of workspace groups) and workspace units in their published shapes."""

from __future__ import annotations

import itertools

import httpx
import pytest

pytestmark = pytest.mark.anyio
_keys = itertools.count()


def key() -> dict[str, str]:
    return {"Idempotency-Key": f"groups-units-key-{next(_keys):08d}"}


async def post(client: httpx.AsyncClient, url: str, body: dict[str, object]) -> dict[str, object]:
    response = await client.post(url, json=body, headers=key())
    assert response.status_code == 201, response.text
    result: dict[str, object] = response.json()
    return result


async def test_a_project_fringe_group_copy_is_independent_and_resettable(v1_client: httpx.AsyncClient) -> None:
    project = await post(v1_client, "/projects", {"name": "Groups"})
    source = await post(v1_client, "/library/fringe-groups", {"name": "Union", "color": "blue"})
    base = f"/projects/{project['id']}/library/fringe-groups"
    copy = await post(v1_client, base, {"sourceId": source["id"]})
    assert (copy["name"], copy["sourceType"], copy["sourceId"]) == ("Union", "workspace", source["id"])
    edited = await v1_client.patch(f"{base}/{copy['id']}", json={"name": "Union (show)"})
    assert edited.json()["name"] == "Union (show)"
    assert (await v1_client.get(f"/library/fringe-groups/{source['id']}")).json()["name"] == "Union"
    again = await v1_client.post(base, json={"sourceId": source["id"]})
    assert (again.status_code, again.json()["name"]) == (200, "Union (show)")
    reset = await v1_client.post(base, json={"sourceId": source["id"]}, params={"reset": "true"})
    assert (reset.status_code, reset.json()["id"], reset.json()["name"]) == (200, copy["id"], "Union")
    listed = (await v1_client.get(base, params={"expand": "source"})).json()["data"]
    assert [g["source"]["name"] for g in listed] == ["Union"]
    assert (await v1_client.delete(f"{base}/{copy['id']}")).status_code == 204
    gone = await v1_client.get(f"{base}/{copy['id']}")
    assert (gone.status_code, gone.json()["code"]) == (404, "not_found")


async def test_a_deleted_source_reads_as_a_tombstone_and_an_unknown_source_is_404(
    v1_client: httpx.AsyncClient,
) -> None:
    project = await post(v1_client, "/projects", {"name": "Tombstone"})
    source = await post(v1_client, "/library/fringe-groups", {"name": "Guild"})
    base = f"/projects/{project['id']}/library/fringe-groups"
    copy = await post(v1_client, base, {"sourceId": source["id"]})
    assert "color" not in copy  # a TagColor is never null: a group without one leaves it out
    assert (await v1_client.delete(f"/library/fringe-groups/{source['id']}")).status_code == 204
    read = (await v1_client.get(f"{base}/{copy['id']}", params={"expand": "source"})).json()
    assert read["source"] == {"id": source["id"], "deleted": True}
    unknown = await v1_client.post(base, json={"sourceId": "fgr_missing"})
    assert unknown.status_code == 404
    bad = await v1_client.get(base, params={"expand": "sources"})
    assert (bad.status_code, bad.json()["code"]) == (400, "expand_invalid")


async def test_units_keep_hours_and_colour_and_list_as_a_closed_collection(v1_client: httpx.AsyncClient) -> None:
    unit = await post(v1_client, "/library/units", {"label": "Shift", "category": "time", "hoursPerUnit": 10})
    assert (unit["hoursPerUnit"], unit["color"]) == (10, None)
    changed = await v1_client.patch(f"/library/units/{unit['id']}", json={"hoursPerUnit": 12.5, "color": "teal"})
    assert (changed.json()["hoursPerUnit"], changed.json()["color"]) == (12.5, "teal")
    listed = (await v1_client.get("/library/units")).json()
    assert list(listed) == ["data"]
    assert [(u["label"], u["hoursPerUnit"]) for u in listed["data"]] == [("Shift", 12.5)]
