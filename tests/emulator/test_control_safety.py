"""The control API as a harness can trust it: settings are validated whole (a ``"nan"`` is a 400 naming the
field, never a 500 that leaves the settings unreadable), a control token closes it, and webhooks go only
where the settings allow."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest

from bridge.emulator.app import create_app
from tests.support.emulator import LEGACY_KEY, V1_TOKEN

pytestmark = pytest.mark.anyio
CONTROL_TOKEN = "ctl_control-token-for-tests-0001"


@pytest.mark.parametrize(
    ("raw", "field", "message"),
    [
        ('{"idempotencyRetentionS": "nan", "budgetLineLimit": 7}', "idempotencyRetentionS", "valid number"),
        ('{"idempotencyRetentionS": NaN, "budgetLineLimit": 7}', "idempotencyRetentionS", "finite number"),
        ('{"webhookTimeScale": Infinity, "budgetLineLimit": 7}', "webhookTimeScale", "finite number"),
        ('{"webhookTimeScale": -1, "budgetLineLimit": 7}', "webhookTimeScale", "greater than or equal to 0"),
        ('{"budgetLineLimit": "nan", "idempotencyRetentionS": 1}', "budgetLineLimit", "valid integer"),
        ('{"budgetLineLimit": 0, "idempotencyRetentionS": 1}', "budgetLineLimit", "greater than or equal to 1"),
        ('{"budgetLineLimit": true, "idempotencyRetentionS": 1}', "budgetLineLimit", "valid integer"),
        ('{"webhookTargets": "http://127.0.0.1:9000"}', "webhookTargets", "valid list"),
        ('{"webhookTargets": ["http://127.0.0.1:9000/hook"]}', "webhookTargets[0]", "is not an origin"),
        ('{"webhookTargets": ["ftp://127.0.0.1:21"]}', "webhookTargets[0]", "is not an origin"),
        ('{"allowLoopbackWebhooks": true, "budgetLineLimit": 7}', "allowLoopbackWebhooks", "is not a field"),
        ("[1]", "body", "must be an object"),
        ("{nan", "body", "is not valid JSON"),
    ],
)
async def test_an_invalid_setting_is_a_400_naming_the_field_and_changes_nothing(
    control_client: httpx.AsyncClient, raw: str, field: str, message: str
) -> None:
    """Each refused value answers the v1 400 ``validation`` with ``fieldErrors`` naming it; a valid setting sent
    beside it is not applied, and GET /settings still answers."""
    before = (await control_client.get("/settings")).json()
    response = await control_client.post("/settings", content=raw, headers={"Content-Type": "application/json"})
    assert response.status_code == 400, response.text
    answer = response.json()
    assert answer["code"] == "validation"
    assert message in " ".join(answer["fieldErrors"][field]), answer
    assert field in answer["message"]
    after = await control_client.get("/settings")
    assert (after.status_code, after.json()) == (200, before)


async def test_valid_settings_apply_and_read_back(control_client: httpx.AsyncClient) -> None:
    """Numbers, a limit and the webhook allow-list (written with or without its default port) read back."""
    sent = {
        "idempotencyRetentionS": 0,
        "webhookTimeScale": 0.5,
        "budgetLineLimit": 10,
        "webhookTargets": ["http://127.0.0.1:9000", "https://hooks.example.com"],
    }
    answer = (await control_client.post("/settings", json=sent)).json()
    assert answer == sent | {"webhookTargets": ["http://127.0.0.1:9000", "https://hooks.example.com:443"]}
    assert (await control_client.get("/settings")).json() == answer


@pytest.mark.parametrize(
    ("raw", "field"),
    [
        ('{"latencyMs": "inf"}', "latencyMs"),
        ('{"jitterMs": Infinity}', "jitterMs"),
        ('{"rules": [{"kind": "stall", "stallS": Infinity}]}', "rules[0].stallS"),
        ('{"latencyMs": "nan"}', "latencyMs"),
    ],
)
async def test_a_fault_plan_with_an_endless_wait_is_refused(
    control_client: httpx.AsyncClient, raw: str, field: str
) -> None:
    """An infinite or NaN wait is a 400 naming the field; the plan in force stays readable and unchanged."""
    response = await control_client.post("/faults", content=raw, headers={"Content-Type": "application/json"})
    assert response.status_code == 400, response.text
    assert field in response.json()["fieldErrors"]
    plan = await control_client.get("/faults")
    assert (plan.status_code, plan.json()["latencyMs"], plan.json()["rules"]) == (200, 0.0, [])


async def test_a_token_lifetime_must_be_a_finite_number(control_client: httpx.AsyncClient) -> None:
    """``expiresInS`` of "nan" or a negative number is refused (a NaN lifetime would never expire)."""
    for lifetime in ("nan", -1, True):
        response = await control_client.post("/tokens", json={"workspace": "target", "expiresInS": lifetime})
        assert response.status_code == 400, lifetime
        assert "expiresInS" in response.json()["detail"]


@pytest.fixture
async def guarded() -> AsyncIterator[httpx.AsyncClient]:
    """A client of an emulator whose control API has a token (as ``bridge emulate --allow-remote`` makes it)."""
    app = create_app(seed=42, size="small", legacy_key=LEGACY_KEY, token=V1_TOKEN, control_token=CONTROL_TOKEN)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://emulator") as client:
        yield client


@pytest.mark.parametrize(
    "authorization",
    [None, f"Bearer {V1_TOKEN}", f"Bearer {CONTROL_TOKEN}x", CONTROL_TOKEN, f"Basic {CONTROL_TOKEN}"],
)
async def test_a_guarded_control_api_refuses_a_request_without_its_token(
    guarded: httpx.AsyncClient, authorization: str | None
) -> None:
    """No token, a v1 token, a wrong one or the right one without ``Bearer`` is 401 saying what to send, and
    nothing is minted."""
    headers = {} if authorization is None else {"Authorization": authorization}
    for method, path in [("POST", "/_emulator/tokens"), ("GET", "/_emulator/stats"), ("POST", "/_emulator/reset")]:
        response = await guarded.request(method, path, json={"workspace": "source"}, headers=headers)
        assert response.status_code == 401, (method, path)
        assert "Authorization: Bearer <control token>" in response.json()["detail"]
        assert CONTROL_TOKEN not in response.text


async def test_a_guarded_control_api_answers_its_token_and_the_surfaces_are_unchanged(
    guarded: httpx.AsyncClient,
) -> None:
    """With the control token a token is minted; the product surfaces keep their own credentials."""
    control = {"Authorization": f"Bearer {CONTROL_TOKEN}"}
    minted = await guarded.post("/_emulator/tokens", json={"workspace": "target"}, headers=control)
    assert minted.status_code == 201
    me = await guarded.get("/v1/me", headers={"Authorization": f"Bearer {minted.json()['token']}"})
    assert me.status_code == 200
    assert (await guarded.get("/api/v1/spaces", headers={"X-API-Key": LEGACY_KEY})).status_code == 200


async def test_a_loopback_url_off_the_allow_list_is_refused_at_registration(
    v1_client: httpx.AsyncClient, control_client: httpx.AsyncClient
) -> None:
    """With one loopback origin allowed, another port on the same host is refused, naming the setting."""
    await control_client.post("/settings", json={"webhookTargets": ["http://127.0.0.1:9000"]})
    allowed = await v1_client.post("/webhooks", json={"url": "http://127.0.0.1:9000/in", "events": ["budget.changed"]})
    assert allowed.status_code == 201, allowed.text
    refused = await v1_client.post("/webhooks", json={"url": "http://127.0.0.1:22/x", "events": ["budget.changed"]})
    assert (refused.status_code, refused.json()["code"]) == (400, "validation")
    assert "add http://127.0.0.1:22 to the emulator's webhookTargets" in refused.json()["message"]


async def test_a_public_subscription_registers_but_is_delivered_nowhere_by_default(
    v1_client: httpx.AsyncClient, control_client: httpx.AsyncClient
) -> None:
    """An HTTPS URL on a public host registers as the v1 document says, but with the default (empty) allow-list
    its test delivery ends ``blocked`` without a request, and says which setting would allow it."""
    assert (await control_client.get("/settings")).json()["webhookTargets"] == []
    hook = await v1_client.post("/webhooks", json={"url": "https://hooks.example.com/in", "events": ["budget.changed"]})
    assert hook.status_code == 201, hook.text
    await v1_client.post(f"/webhooks/{hook.json()['id']}/test-delivery")
    await control_client.post("/webhooks/drain")
    [delivery] = (await v1_client.get(f"/webhooks/{hook.json()['id']}/deliveries")).json()["data"]
    assert delivery["status"] == "blocked"
    assert "responseStatus" not in delivery
    assert "https://hooks.example.com:443 is not one" in delivery["error"]
    assert "webhookTargets" in delivery["error"]
