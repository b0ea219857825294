"""v1 rate packs as the bridge will use them to carry the legacy workspace rates: a pack, its items (title,
Money rate and unit required), the item list it verifies with, and 402 on a plan without rate packs. Answers
are held to the published shapes by the v1 contract hook."""

from __future__ import annotations

import itertools
from typing import Any

import httpx
import pytest

from tests.emulator.documented_codes import produced

pytestmark = pytest.mark.anyio
_keys = itertools.count()
PACKS = "/library/rate-packs"


def key() -> dict[str, str]:
    return {"Idempotency-Key": f"rate-pack-test-{next(_keys):08d}"}


async def _created(client: httpx.AsyncClient, url: str, body: dict[str, object]) -> dict[str, Any]:
    response = await client.post(url, json=body, headers=key())
    assert response.status_code == 201, response.text
    result: dict[str, Any] = response.json()
    return result


def _item(title: str, amount: int = 5800, unit: str = "Day") -> dict[str, object]:
    return {"title": title, "rate": {"amount": amount, "currency": "USD"}, "unit": unit}


async def test_a_new_pack_is_the_workspaces_own_and_enabled(v1_client: httpx.AsyncClient) -> None:
    """A created pack is private, owned, not deprecated, enabled at once, in the custom category by default."""
    pack = await _created(v1_client, PACKS, {"name": "Workspace rates (migrated)"})
    assert (pack["visibility"], pack["isOwned"], pack["deprecated"], pack["enabled"]) == ("private", True, False, True)
    assert (pack["category"], pack["slug"]) == ("custom", "workspace-rates-migrated")
    assert pack["enabledAt"] is not None
    again = (await v1_client.get(f"{PACKS}/{pack['id']}")).json()
    assert again == pack


async def test_items_are_made_with_their_money_and_listed_in_pages(v1_client: httpx.AsyncClient) -> None:
    """Each item keeps title, rate in minor units with its currency, unit and the optional fields sent; the item
    list pages through all of them and filters by unit; expand=items inlines them on the pack."""
    pack = await _created(v1_client, PACKS, {"name": "Crew"})
    items = f"{PACKS}/{pack['id']}/items"
    made = [
        await _created(v1_client, items, _item(f"Grip {i}", 5000 + i, "Day" if i % 2 else "Hour") | {"quantity": 1.5})
        for i in range(7)
    ]
    assert made[0] == {
        "id": made[0]["id"],
        "title": "Grip 0",
        "rate": {"amount": 5000, "currency": "USD"},
        "unit": "Hour",
        "quantity": 1.5,
    }
    seen: list[str] = []
    cursor: str | None = None
    while True:
        page = (await v1_client.get(items, params={"limit": "3", **({"cursor": cursor} if cursor else {})})).json()
        seen += [i["id"] for i in page["data"]]
        cursor = page["nextCursor"]
        if cursor is None:
            break
    assert seen == [i["id"] for i in made]
    by_unit = (await v1_client.get(items, params={"unit": "Day", "withCount": "true"})).json()
    assert by_unit["count"] == 3
    expanded = (await v1_client.get(f"{PACKS}/{pack['id']}", params={"expand": "items"})).json()
    assert [i["id"] for i in expanded["items"]] == seen
    assert expanded["latestVersion"]["itemCount"] == 7
    bad = await v1_client.get(f"{PACKS}/{pack['id']}", params={"expand": "versions"})
    assert bad.status_code == 400
    produced(400, "expand_invalid")


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"rate": {"amount": 1, "currency": "USD"}, "unit": "Day"}, "title"),
        ({"title": "", "rate": {"amount": 1, "currency": "USD"}, "unit": "Day"}, "title"),
        ({"title": "Grip", "unit": "Day"}, "rate"),
        ({"title": "Grip", "rate": {"amount": 1.5, "currency": "USD"}, "unit": "Day"}, "rate.amount"),
        ({"title": "Grip", "rate": {"amount": 1, "currency": "US"}, "unit": "Day"}, "rate.currency"),
        ({"title": "Grip", "rate": {"amount": 1, "currency": "USD"}}, "unit"),
        ({"title": "Grip", "rate": {"amount": 1, "currency": "USD"}, "unit": None}, "unit"),
        ({**_item("Grip"), "emoji": "x"}, "emoji"),
        ({**_item("Grip"), "effectiveDate": "1/1/2026"}, "effectiveDate"),
    ],
)
async def test_an_item_outside_its_published_shape_is_400(
    v1_client: httpx.AsyncClient, body: dict[str, object], field: str
) -> None:
    """title, a Money rate (integer minor units, ISO code) and a unit are required; the shape is closed."""
    pack = await _created(v1_client, PACKS, {"name": "Crew"})
    answer = await v1_client.post(f"{PACKS}/{pack['id']}/items", json=body, headers=key())
    assert answer.status_code == 400
    assert field in answer.json()["fieldErrors"]
    assert (await v1_client.get(f"{PACKS}/{pack['id']}/items")).json()["data"] == []


@pytest.mark.parametrize(
    ("body", "field"), [({}, "name"), ({"name": ""}, "name"), ({"name": "P", "enabled": True}, "enabled")]
)
async def test_a_pack_outside_its_published_shape_is_400(
    v1_client: httpx.AsyncClient, body: dict[str, object], field: str
) -> None:
    """name is required and not empty; RatePackCreate is closed."""
    answer = await v1_client.post(PACKS, json=body, headers=key())
    assert answer.status_code == 400
    assert field in answer.json()["fieldErrors"]


async def test_pack_and_item_creates_need_a_key(v1_client: httpx.AsyncClient) -> None:
    """Both creates refuse a request without an Idempotency-Key (400) and replay one made under it."""
    assert (await v1_client.post(PACKS, json={"name": "Crew"})).status_code == 400
    headers = key()
    first = await v1_client.post(PACKS, json={"name": "Crew"}, headers=headers)
    again = await v1_client.post(PACKS, json={"name": "Crew"}, headers=headers)
    assert again.json()["id"] == first.json()["id"]
    items = f"{PACKS}/{first.json()['id']}/items"
    assert (await v1_client.post(items, json=_item("Grip"))).status_code == 400


async def test_items_and_packs_are_changed_and_deleted(v1_client: httpx.AsyncClient) -> None:
    """PATCH changes what it sends (null clears an optional field); DELETE is 204, then the record is 404."""
    pack = await _created(v1_client, PACKS, {"name": "Crew", "tags": ["crew"]})
    item = await _created(v1_client, f"{PACKS}/{pack['id']}/items", _item("Grip") | {"group": "Grip"})
    one = f"{PACKS}/{pack['id']}/items/{item['id']}"
    changed = (await v1_client.patch(one, json={"rate": {"amount": 6000, "currency": "USD"}, "group": None})).json()
    assert (changed["rate"]["amount"], "group" in changed, changed["title"]) == (6000, False, "Grip")
    assert (await v1_client.patch(one, json={"rate": None})).status_code == 400
    renamed = (await v1_client.patch(f"{PACKS}/{pack['id']}", json={"name": "Crew 2026"})).json()
    assert (renamed["name"], renamed["tags"]) == ("Crew 2026", ["crew"])
    assert (await v1_client.delete(one)).status_code == 204
    assert (await v1_client.delete(one)).status_code == 404
    assert (await v1_client.delete(f"{PACKS}/{pack['id']}")).status_code == 204
    assert (await v1_client.get(f"{PACKS}/{pack['id']}")).status_code == 404


async def test_a_pack_is_disabled_and_enabled_again(v1_client: httpx.AsyncClient) -> None:
    """DELETE enablement answers 204 and the pack reads disabled; POST answers the enable link."""
    pack = await _created(v1_client, PACKS, {"name": "Crew"})
    assert (await v1_client.delete(f"{PACKS}/{pack['id']}/enablement")).status_code == 204
    assert (await v1_client.get(f"{PACKS}/{pack['id']}")).json()["enabled"] is False
    link = (await v1_client.post(f"{PACKS}/{pack['id']}/enablement")).json()
    assert link["ratePackId"] == pack["id"]
    assert (await v1_client.get(f"{PACKS}/{pack['id']}")).json()["enabled"] is True


async def test_every_rate_pack_operation_is_402_on_a_plan_without_them(
    v1_client: httpx.AsyncClient, control_client: httpx.AsyncClient
) -> None:
    """Switched to the starter plan, the target answers 402 feature_not_available to the pack and item
    operations; switched back, its pack is there as it was."""
    pack = await _created(v1_client, PACKS, {"name": "Crew"})
    switched = await control_client.put("/workspaces/target/plan", json={"plan": "starter"})
    assert switched.json()["plan"] == "starter"
    items = f"{PACKS}/{pack['id']}/items"
    for answer in (
        await v1_client.get(PACKS),
        await v1_client.post(PACKS, json={"name": "More"}, headers=key()),
        await v1_client.get(f"{PACKS}/{pack['id']}"),
        await v1_client.post(items, json=_item("Grip"), headers=key()),
        await v1_client.get(items),
    ):
        assert answer.status_code == 402
        assert answer.json()["code"] == "feature_not_available"
    produced(402, "feature_not_available")
    await control_client.put("/workspaces/target/plan", json={"plan": "studio"})
    assert (await v1_client.get(f"{PACKS}/{pack['id']}")).json()["name"] == "Crew"


@pytest.mark.parametrize(
    ("path", "body", "status"), [("target", {"plan": "gold"}, 400), ("nowhere", {"plan": "starter"}, 404)]
)
async def test_an_unknown_plan_or_workspace_is_refused(
    control_client: httpx.AsyncClient, path: str, body: dict[str, object], status: int
) -> None:
    """The control API names the plans it knows and the workspaces it holds."""
    assert (await control_client.put(f"/workspaces/{path}/plan", json=body)).status_code == status
