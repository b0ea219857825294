"""A budget line's plain-text notes on v1: written in the line create, the bulk create and the update, read
back on every line read, and the same note the legacy surface serves (text, HTML and TipTap JSON)."""

from __future__ import annotations

import itertools
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from tests.support.emulator import in_process

pytestmark = pytest.mark.anyio
_keys = itertools.count()
TARGET_KEY = "target-legacy-key-0001"


async def _post(client: httpx.AsyncClient, url: str, body: dict[str, object]) -> dict[str, Any]:
    response = await client.post(url, json=body, headers={"Idempotency-Key": f"line-notes-{next(_keys):08d}"})
    assert response.status_code == 201, response.text
    result: dict[str, Any] = response.json()
    return result


async def test_notes_ride_in_line_writes_and_reads(v1_app: FastAPI, v1_client: httpx.AsyncClient) -> None:
    """notes set by the create and the bulk create read back; an update replaces them, null clears them; the
    legacy surface reads the note as text, one HTML paragraph per line and a TipTap document."""
    pid = (await _post(v1_client, "/projects", {"name": "Notes"}))["id"]
    lines = f"/projects/{pid}/budget/lines"
    account = await _post(v1_client, lines, {"description": "Camera", "type": "account", "notes": "Whole dept"})
    bulk = await _post(
        v1_client,
        f"{lines}/bulk",
        {"lines": [{"description": "Body", "parentId": account["id"], "notes": "Two days\nOne wrap"}]},
    )
    line_id = bulk["data"][0]["id"]
    assert (await v1_client.get(f"{lines}/{line_id}")).json()["notes"] == "Two days\nOne wrap"
    listed = (await v1_client.get(lines)).json()["data"]
    assert {item["id"]: item["notes"] for item in listed} == {
        account["id"]: "Whole dept",
        line_id: "Two days\nOne wrap",
    }
    v1_app.state.emulator.service.add_api_key("target", TARGET_KEY)
    async with in_process(v1_app, "/api/v1", {"X-API-Key": TARGET_KEY}) as legacy:
        note = (await legacy.get(f"/projects/{pid}/budget/note/{line_id}")).json()["note"]
    assert (note["text"], note["html"]) == ("Two days\nOne wrap", "<p>Two days</p><p>One wrap</p>")
    assert '"text":"One wrap"' in note["json"]
    changed = await v1_client.patch(f"{lines}/{line_id}", json={"notes": "Three days"})
    assert changed.json()["notes"] == "Three days"
    cleared = await v1_client.patch(f"{lines}/{line_id}", json={"notes": None})
    assert cleared.json()["notes"] is None
