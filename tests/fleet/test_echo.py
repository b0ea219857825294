"""A live fleet worker talking to a server that echoes its credentials (raw, base64 and hex, wrapped in terminal
escapes, in a 401's body) keeps every form of the legacy key and the v1 token out of DBOS's tables, the fleet's
registry, its log, its output and `fleet status`; nothing it prints holds an escape sequence or a traceback."""

from __future__ import annotations

import base64
import uuid
from pathlib import Path
from urllib.parse import quote, quote_plus

import httpx
import pytest

from bridge.fleet.manifest import load_manifest
from bridge.fleet.rehearsal import Rehearsal, rehearsal
from bridge.localpg import LocalPostgres
from tests.support.fleet_tables import text_of_database

pytestmark = pytest.mark.timeout(600)


def forms(secret: str) -> set[str]:
    """Every encoding of ``secret`` a server might echo or a store might keep."""
    raw = secret.encode()
    return {
        secret,
        base64.b64encode(raw).decode().rstrip("="),
        base64.urlsafe_b64encode(raw).decode().rstrip("="),
        raw.hex(),
        quote(secret, safe=""),
        quote_plus(secret),
    }


def echo_on(fleet: Rehearsal, route: str) -> None:
    """Every request on ``route`` answered 401 with the credential it carried echoed back."""
    rules = {"rules": [{"kind": "echo_credentials", "route": route}]}
    httpx.post(f"{fleet.base_url}/_emulator/faults", json=rules, timeout=30).raise_for_status()


def stopped_by_the_echo(fleet: Rehearsal) -> str:
    """Run a worker until the queue is idle; the workspace's reason for stopping."""
    worker = fleet.start_worker("--until-idle")
    assert worker.wait(timeout=300) == 0, (fleet.folder / f"worker-{len(fleet.workers)}.out").read_text()
    (row,) = fleet.status()
    assert row["state"] == "stopped", row
    reason: str = row["reason"]
    return reason


def test_a_worker_facing_a_server_that_echoes_its_secrets_keeps_them_out_of_every_store_and_screen(
    pg: LocalPostgres, tmp_path: Path
) -> None:
    """The legacy surface echoes the key (the workspace stops), the operator retries, then v1 echoes the token
    (it stops again): no encoding of either secret is stored or printed anywhere the fleet writes."""
    state = pg.create_database(f"fleet_{uuid.uuid4().hex[:8]}")
    with rehearsal(tmp_path, state, 1) as fleet:
        (spec,) = load_manifest(fleet.manifest)
        assert spec.legacy_key_file is not None
        assert spec.token_file is not None
        secrets = (spec.legacy_key_file.read_text().strip(), spec.token_file.read_text().strip())
        assert fleet.submit().returncode == 0

        echo_on(fleet, "/api/v1/*")
        reasons = [stopped_by_the_echo(fleet)]
        echo_on(fleet, "/v1/*")
        assert fleet.bridge("fleet", "retry", spec.name).returncode == 0
        reasons.append(stopped_by_the_echo(fleet))

        status = fleet.bridge("fleet", "status")
        status_json = fleet.bridge("fleet", "status", "--json")
        printed = {
            "fleet status": status.stdout + status.stderr,
            "fleet status --json": status_json.stdout + status_json.stderr,
            **{path.name: path.read_text(errors="replace") for path in sorted(tmp_path.glob("worker-*"))},
        }
        stored = text_of_database(state)

    # Each stop is the echo's 401, its message kept (masked): both surfaces really echoed their credential.
    assert all("AuthenticationLost" in reason and "refused (base64" in reason for reason in reasons), reasons
    assert set(printed) >= {"worker-1.out", "worker-1.log", "worker-2.out", "worker-2.log"}
    for secret in secrets:
        for form in forms(secret):
            assert form not in stored, "a form of a secret is stored in the fleet's database"
            leaks = [name for name, text in printed.items() if form in text]
            assert leaks == [], f"a form of a secret is printed in {leaks}"
    for name, text in printed.items():
        assert "\x1b" not in text, f"an escape sequence reached {name}"
        assert "\x07" not in text, f"a bell reached {name}"
        assert "Traceback" not in text, f"a traceback reached {name}"
