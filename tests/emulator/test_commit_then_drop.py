"""commit_then_drop loses the answer of a request that changed the service, and only of such a request.

A retry of a dropped write is a keyed replay or a PATCH that changes nothing: it commits nothing, so it is
answered, as it would be on a real network once the blip is over. Reads and refused writes are answered too.
"""

from __future__ import annotations

import httpx
import pytest

pytestmark = pytest.mark.anyio
EVERY_WRITE = {"rules": [{"kind": "commit_then_drop", "rate": 1.0, "route": "/v1/*"}]}


def key(n: int) -> dict[str, str]:
    return {"Idempotency-Key": f"drop-test-key-{n:06d}"}


async def drops(control: httpx.AsyncClient) -> int:
    stats = (await control.get("/stats")).json()
    return int(stats["faultsInjected"].get("commit_then_drop", 0))


async def fault_everything(control: httpx.AsyncClient) -> None:
    assert (await control.post("/faults", json=EVERY_WRITE)).status_code == 200


async def test_keyed_retry_of_a_dropped_create_is_answered_from_the_key(
    v1_client: httpx.AsyncClient, control_client: httpx.AsyncClient
) -> None:
    """The create lands and its answer is lost; the same request again is the replay, answered, one project."""
    await fault_everything(control_client)
    with pytest.raises(httpx.TransportError):
        await v1_client.post("/projects", json={"name": "Landed"}, headers=key(1))
    again = await v1_client.post("/projects", json={"name": "Landed"}, headers=key(1))
    assert (again.status_code, again.headers["Idempotency-Replayed"]) == (201, "true")
    names = [p["name"] for p in (await v1_client.get("/projects")).json()["data"]]
    assert names == ["Landed"]
    assert await drops(control_client) == 1


async def test_a_new_create_under_another_key_is_dropped_again(
    v1_client: httpx.AsyncClient, control_client: httpx.AsyncClient
) -> None:
    """Every create that commits loses its answer, whatever came before it."""
    await fault_everything(control_client)
    for n in (1, 2):
        with pytest.raises(httpx.TransportError):
            await v1_client.post("/projects", json={"name": f"P{n}"}, headers=key(n))
    assert len((await v1_client.get("/projects")).json()["data"]) == 2
    assert await drops(control_client) == 2


@pytest.mark.parametrize("record", ["projects", "spaces"])
async def test_repeated_patch_changes_nothing_and_is_answered(
    v1_client: httpx.AsyncClient, control_client: httpx.AsyncClient, record: str
) -> None:
    """A PATCH that changes the record is dropped; the same PATCH again changes nothing and is answered.

    A project has a GET of its own; a space is read from its collection's pages.
    """
    made = (await v1_client.post(f"/{record}", json={"name": "Before"}, headers=key(3))).json()
    await fault_everything(control_client)
    with pytest.raises(httpx.TransportError):
        await v1_client.patch(f"/{record}/{made['id']}", json={"name": "After"})
    again = await v1_client.patch(f"/{record}/{made['id']}", json={"name": "After"})
    assert (again.status_code, again.json()["name"]) == (200, "After")
    with pytest.raises(httpx.TransportError):
        await v1_client.patch(f"/{record}/{made['id']}", json={"name": "After Again"})
    assert await drops(control_client) == 2


async def test_reads_and_refused_writes_are_answered(
    v1_client: httpx.AsyncClient, control_client: httpx.AsyncClient
) -> None:
    """A GET and a create the service refuses (no name) commit nothing: both get their answer."""
    await fault_everything(control_client)
    assert (await v1_client.get("/projects")).status_code == 200
    refused = await v1_client.post("/projects", json={}, headers=key(4))
    assert refused.status_code == 400
    assert refused.json()["success"] is False
    assert await drops(control_client) == 0
