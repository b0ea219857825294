"""Fault injection over HTTP: rate limits, server errors, dropped connections, stalls, revocation."""

from __future__ import annotations

import asyncio
import base64
import email.utils
import time

import httpx
import pytest
from fastapi import FastAPI

from bridge.emulator.control.faults import parse_fault_option
from tests.emulator.documented_codes import produced
from tests.legacy_contract_hook import HeldTransport
from tests.support.emulator import LEGACY_KEY

pytestmark = pytest.mark.anyio
KEY = {"Idempotency-Key": "fault-key-0000000001"}


async def plan(control: httpx.AsyncClient, body: dict[str, object]) -> None:
    response = await control.post("/faults", json=body)
    assert response.status_code == 200, response.text


@pytest.mark.parametrize("style", ["seconds", "http-date"])
async def test_rate_limit_sends_retry_after_in_the_chosen_form(
    v1_client: httpx.AsyncClient, control_client: httpx.AsyncClient, style: str
) -> None:
    """A rate_limit fault is 429 rate_limited with Retry-After as delta-seconds or an HTTP-date."""
    rule = {"kind": "rate_limit", "rate": 1.0, "route": "/v1/me", "retryAfterS": 7, "retryAfterFormat": style}
    await plan(control_client, {"rules": [rule]})
    response = await v1_client.get("/me")
    assert (response.status_code, response.json()["code"], response.json()["retryAfter"]) == (429, "rate_limited", 7)
    header = response.headers["Retry-After"]
    if style == "seconds":
        assert header == "7"
    else:
        assert email.utils.parsedate_to_datetime(header) is not None
    produced(429, None)


async def test_token_bucket_refuses_beyond_its_capacity(
    v1_client: httpx.AsyncClient, control_client: httpx.AsyncClient
) -> None:
    """A bucket of 3 with a slow refill lets 3 requests through, then answers 429."""
    await plan(control_client, {"rateLimit": {"capacity": 3, "refillPerS": 0.001}})
    statuses = [(await v1_client.get("/me")).status_code for _ in range(5)]
    assert statuses == [200, 200, 200, 429, 429]


@pytest.mark.parametrize(("kind", "status"), [("error_500", 500), ("error_502", 502), ("error_503", 503)])
async def test_server_errors_carry_the_envelope(
    v1_client: httpx.AsyncClient, control_client: httpx.AsyncClient, kind: str, status: int
) -> None:
    """Injected 5xx answers keep the error envelope and touch nothing."""
    await plan(control_client, {"rules": [{"kind": kind, "route": "/v1/projects"}]})
    response = await v1_client.post("/projects", json={"name": "x"}, headers=KEY)
    assert response.status_code == status
    assert response.json()["success"] is False
    await plan(control_client, {})
    assert (await v1_client.get("/projects")).json()["data"] == []


async def test_compute_timeout_on_budget_read_is_504(
    v1_client: httpx.AsyncClient, control_client: httpx.AsyncClient
) -> None:
    """error_504 on a budget read answers 504 budget_compute_timeout."""
    project = (await v1_client.post("/projects", json={"name": "x"}, headers=KEY)).json()
    await plan(control_client, {"rules": [{"kind": "error_504", "route": "*/budget"}]})
    response = await v1_client.get(f"/projects/{project['id']}/budget")
    assert (response.status_code, response.json()["code"]) == (504, "budget_compute_timeout")
    produced(504, None)


async def test_commit_then_drop_applies_the_write_and_replay_returns_it(
    v1_client: httpx.AsyncClient, control_client: httpx.AsyncClient
) -> None:
    """The client sees a transport error, the project exists, and a replay returns it without a second one."""
    await plan(control_client, {"rules": [{"kind": "commit_then_drop", "route": "/v1/projects"}]})
    with pytest.raises(httpx.TransportError):
        await v1_client.post("/projects", json={"name": "Dropped"}, headers=KEY)
    await plan(control_client, {})
    replay = await v1_client.post("/projects", json={"name": "Dropped"}, headers=KEY)
    assert replay.status_code == 201
    assert replay.headers["Idempotency-Replayed"] == "true"
    projects = (await v1_client.get("/projects")).json()["data"]
    assert [p["id"] for p in projects] == [replay.json()["id"]]
    stats = (await control_client.get("/stats")).json()
    assert stats["objects"]["target"]["projects"] == 1
    assert stats["errors"]["dropped"] == 1


async def test_reset_drops_before_handling(v1_client: httpx.AsyncClient, control_client: httpx.AsyncClient) -> None:
    """A reset fault drops the connection and nothing is created."""
    await plan(control_client, {"rules": [{"kind": "reset", "route": "/v1/projects"}]})
    with pytest.raises(httpx.TransportError):
        await v1_client.post("/projects", json={"name": "Never"}, headers=KEY)
    await plan(control_client, {})
    assert (await v1_client.get("/projects")).json()["data"] == []


async def test_token_is_revoked_after_the_kth_request(
    v1_client: httpx.AsyncClient, control_client: httpx.AsyncClient
) -> None:
    """revoke_token after 2: two calls succeed, the third is token_revoked."""
    await plan(control_client, {"rules": [{"kind": "revoke_token", "after": 2}]})
    codes = [(await v1_client.get("/me")).status_code for _ in range(3)]
    assert codes == [200, 200, 401]


async def test_stall_outlasts_a_client_timeout(v1_client: httpx.AsyncClient, control_client: httpx.AsyncClient) -> None:
    """A stalled request is held longer than the client waits."""
    import anyio

    await plan(control_client, {"rules": [{"kind": "stall", "route": "/v1/me", "stallS": 5}]})
    with anyio.move_on_after(0.2) as scope:
        await v1_client.get("/me")
    assert scope.cancelled_caught


async def test_legacy_route_rule_faults_only_the_legacy_surface(
    v1_client: httpx.AsyncClient, control_client: httpx.AsyncClient, v1_app: FastAPI
) -> None:
    """A rule naming /api/v1 answers legacy requests with a legacy-shaped 500 and leaves v1 alone."""
    await plan(control_client, {"seed": 3, "rules": [{"kind": "error_500", "route": "/api/v1/*"}]})
    assert (await v1_client.get("/me")).status_code == 200
    transport = HeldTransport(v1_app)  # the injected 500 keeps the published legacy Error shape
    async with httpx.AsyncClient(transport=transport, base_url="http://emulator/api/v1") as legacy:
        response = await legacy.get("/spaces", headers={"X-API-Key": LEGACY_KEY})
    assert (response.status_code, response.json()["code"]) == (500, "internal_error")
    assert "error" in response.json()
    assert (await control_client.get("/faults")).json()["rules"][0]["route"] == "/api/v1/*"


async def test_latency_delays_v1_requests(v1_client: httpx.AsyncClient, control_client: httpx.AsyncClient) -> None:
    """latencyMs 80 with jitter 20 holds each v1 request at least 80 ms."""
    await plan(control_client, {"latencyMs": 80, "jitterMs": 20})
    started = time.perf_counter()
    assert (await v1_client.get("/me")).status_code == 200
    assert time.perf_counter() - started >= 0.08


def test_command_line_fault_option_parses() -> None:
    """KIND:RATE[:ROUTE] becomes a rule; an unknown kind says which kinds exist."""
    rule = parse_fault_option("commit_then_drop:0.5:*/budget/lines/bulk")
    assert (rule.kind, rule.rate, rule.route) == ("commit_then_drop", 0.5, "*/budget/lines/bulk")
    with pytest.raises(ValueError, match="rate_limit"):
        parse_fault_option("explode:1")


async def test_latency_runs_from_arrival_to_answer(
    v1_client: httpx.AsyncClient, control_client: httpx.AsyncClient
) -> None:
    """A request is handled when it arrives and answered once the latency has passed, as a service's latency is
    measured: its write is in the service while its client still waits for the answer."""
    await plan(control_client, {"latencyMs": 400})
    started = time.perf_counter()
    create = asyncio.create_task(v1_client.post("/contacts", json={"name": "Early"}, headers=KEY))
    await asyncio.sleep(0.15)
    await plan(control_client, {})
    listed = (await v1_client.get("/contacts")).json()["data"]
    assert not create.done()
    assert "Early" in [contact["name"] for contact in listed]
    assert (await create).status_code == 201
    assert time.perf_counter() - started >= 0.4


async def test_echo_credentials_repeats_the_credential_raw_base64_and_hex(
    v1_app: FastAPI, v1_client: httpx.AsyncClient, control_client: httpx.AsyncClient
) -> None:
    """echo_credentials answers 401 with the request's token (v1) or key (legacy) in three encodings and
    terminal escapes around them: the careless server the leak tests need."""
    rules = [{"kind": "echo_credentials", "route": "/v1/me"}, {"kind": "echo_credentials", "route": "/api/v1/spaces"}]
    await plan(control_client, {"rules": rules})
    token = v1_client.headers["Authorization"].partition(" ")[2]
    v1 = await v1_client.get("/me")
    transport = httpx.ASGITransport(app=v1_app)
    async with httpx.AsyncClient(transport=transport, base_url="http://emulator/api/v1") as legacy_client:
        legacy = await legacy_client.get("/spaces", headers={"X-API-Key": LEGACY_KEY})
    answers = [(v1.status_code, v1.json()["code"], v1.json()["message"], token)]
    answers.append((legacy.status_code, legacy.json()["code"], legacy.json()["error"], LEGACY_KEY))
    assert [(status, code) for status, code, _, _ in answers] == [(401, "invalid_token"), (401, "unauthorized")]
    for _, _, message, secret in answers:
        for form in (secret, base64.b64encode(secret.encode()).decode(), secret.encode().hex(), "\x1b]0;"):
            assert form in message
