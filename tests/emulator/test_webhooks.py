"""Webhooks over HTTP: a loopback receiver checks every delivery's signature with the documented rule."""

from __future__ import annotations

import hashlib
import hmac
import json
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import pytest

pytestmark = pytest.mark.anyio
SECRET = "whsec_test_secret_0123456789"
KEY = {"Idempotency-Key": "webhook-key-000000001"}


@dataclass(frozen=True)
class Delivery:
    """One POST as the receiver got it: its headers and its body's bytes, before any check."""

    headers: dict[str, str]
    raw: bytes


class Receiver:
    """A loopback HTTP server that verifies and records deliveries, answering with scripted statuses."""

    def __init__(self) -> None:
        self.received: list[Delivery] = []
        self.statuses: list[int] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers["Content-Length"]))
                receiver.received.append(Delivery(dict(self.headers), raw))
                self.send_response(receiver.statuses.pop(0) if receiver.statuses else 200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the stdlib signature
                """Quiet: the test asserts on what was received."""

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def verify(self, delivery: Delivery) -> dict[str, Any]:
        """Check the documented signature and tolerance; return the parsed body (untyped JSON)."""
        headers, raw = delivery.headers, delivery.raw
        stamp = headers["X-Service-Timestamp"]
        expected = hmac.new(SECRET.encode(), f"{stamp}.".encode() + raw, hashlib.sha256).hexdigest()
        assert hmac.compare_digest(headers["X-Service-Signature"], f"sha256={expected}")
        sent = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
        assert abs(datetime.now(UTC) - sent) < timedelta(minutes=5)
        body: dict[str, Any] = json.loads(raw)
        assert body["event"] == headers["X-Service-Event"]
        return body


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    server = Receiver()
    server.thread.start()
    yield server
    server.server.shutdown()
    server.server.server_close()


async def subscribe(v1: httpx.AsyncClient, control: httpx.AsyncClient, url: str, events: list[str]) -> str:
    origin = url.rsplit("/", 1)[0]
    allowed = await control.post("/settings", json={"webhookTargets": [origin], "webhookTimeScale": 0.0001})
    assert allowed.json()["webhookTargets"] == [origin], allowed.text
    response = await v1.post("/webhooks", json={"url": url, "events": events, "secret": SECRET})
    assert response.status_code == 201, response.text
    assert response.json()["secret"] == SECRET  # shown in the creation response, the one time
    webhook_id: str = response.json()["id"]
    return webhook_id


async def test_budget_and_transaction_events_arrive_signed_and_thin(
    v1_client: httpx.AsyncClient, control_client: httpx.AsyncClient, receiver: Receiver
) -> None:
    """A line create fires budget.changed and a transaction fires transaction.created, each correctly signed."""
    await subscribe(v1_client, control_client, receiver.url, ["budget.changed", "transaction.created"])
    project = (await v1_client.post("/projects", json={"name": "Hooks"}, headers=KEY)).json()
    line = await v1_client.post(
        f"/projects/{project['id']}/budget/lines", json={"description": "L"}, headers={"Idempotency-Key": "w" * 20}
    )
    txn = {"type": "Cash", "amount": {"amount": 5, "currency": "USD"}, "timestamp": "2026-01-01"}
    await v1_client.post(
        "/transactions", json=txn | {"projectId": project["id"]}, headers={"Idempotency-Key": "t" * 20}
    )
    await control_client.post("/webhooks/drain")
    bodies = [receiver.verify(d) for d in receiver.received]
    assert sorted((b["event"], b["data"]["kind"]) for b in bodies) == [
        ("budget.changed", "budgetLine"),
        ("transaction.created", "transaction"),
    ]
    by_event = {b["event"]: b for b in bodies}
    assert by_event["budget.changed"]["data"] == {"kind": "budgetLine", "id": line.json()["id"]}
    assert set(by_event["transaction.created"]) == {"id", "event", "workspaceId", "projectId", "occurredAt", "data"}


async def test_failing_receiver_gets_five_attempts_with_one_delivery_id(
    v1_client: httpx.AsyncClient, control_client: httpx.AsyncClient, receiver: Receiver
) -> None:
    """Five 500s make the outcome failed; every attempt carries the same delivery id and a valid signature."""
    webhook = await subscribe(v1_client, control_client, receiver.url, ["budget.changed"])
    receiver.statuses = [500] * 5
    await v1_client.post(f"/webhooks/{webhook}/test-delivery")
    await control_client.post("/webhooks/drain")
    assert len(receiver.received) == 5
    assert len({d.headers["X-Service-Delivery-Id"] for d in receiver.received}) == 1
    for delivery in receiver.received:
        receiver.verify(delivery)
    listed = (await v1_client.get(f"/webhooks/{webhook}/deliveries")).json()["data"]
    assert [(d["status"], d["attempts"]) for d in listed] == [("failed", 5)]


async def test_retry_then_success(
    v1_client: httpx.AsyncClient, control_client: httpx.AsyncClient, receiver: Receiver
) -> None:
    """Two failures then a 200 end in success after three attempts."""
    webhook = await subscribe(v1_client, control_client, receiver.url, ["budget.changed"])
    receiver.statuses = [503, 500]
    await v1_client.post(f"/webhooks/{webhook}/test-delivery")
    await control_client.post("/webhooks/drain")
    listed = (await v1_client.get(f"/webhooks/{webhook}/deliveries")).json()["data"]
    assert [(d["status"], d["attempts"]) for d in listed] == [("success", 3)]


async def test_blocked_and_dropped_outcomes(
    v1_client: httpx.AsyncClient,
    control_client: httpx.AsyncClient,
    receiver: Receiver,
    issue_token: Callable[..., str],
) -> None:
    """An origin taken off the allow-list before sending blocks a delivery; a revoked owner's are dropped."""
    webhook = await subscribe(v1_client, control_client, receiver.url, ["budget.changed"])
    await control_client.post("/settings", json={"webhookTargets": []})
    await v1_client.post(f"/webhooks/{webhook}/test-delivery")
    await control_client.post("/webhooks/drain")
    owner = v1_client.headers["Authorization"].split()[1]
    await control_client.delete(f"/tokens/{owner}")
    other = {"Authorization": f"Bearer {issue_token()}"}
    assert (await v1_client.post(f"/webhooks/{webhook}/test-delivery", headers=other)).status_code == 202
    await control_client.post("/webhooks/drain")
    listed = (await v1_client.get(f"/webhooks/{webhook}/deliveries", headers=other)).json()["data"]
    assert [d["status"] for d in listed] == ["dropped", "blocked"]
    assert receiver.received == []


@pytest.mark.parametrize(
    "url",
    [
        "http://hooks.example.com/x",
        "https://localhost/x",
        "https://10.0.0.8/x",
        "https://169.254.169.254/x",
        "ftp://a/b",
    ],
)
async def test_unsafe_urls_are_refused(v1_client: httpx.AsyncClient, url: str) -> None:
    """Non-HTTPS, loopback, private and link-local URLs are refused at registration with 400."""
    response = await v1_client.post("/webhooks", json={"url": url, "events": ["budget.changed"], "secret": SECRET})
    assert (response.status_code, response.json()["code"]) == (400, "validation")
