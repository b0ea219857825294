"""`bridge sync` and `bridge conflicts` as an operator drives them against a served emulator.

Every edit goes through the published surfaces (legacy with the key, v1 with the token); the writes counted are
the emulator's (``/_emulator/stats``), never the bridge's.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest

from bridge.sync.log import verify_chain
from mappings.actuals import actual_of
from mappings.documents import record_of
from state import open_state
from tests.support.synced import bridge, entry, legacy, v1, writes
from tests.support.world import SMALL_PROJECT, World

pytestmark = pytest.mark.wire


def _line(world: World, project: str, line: str) -> dict[str, Any]:
    with v1(world) as new:
        rows = new.get(f"/projects/{project}/budget/lines", params={"limit": "100"}).json()["data"]
    found: dict[str, Any] = next(row for row in rows if row["id"] == line)
    return found


def _both_edit_a_line(world: World) -> tuple[str, str, str]:
    legacy_id, v1_id, project = entry(world, "line")
    with v1(world) as new:
        assert new.patch(f"/projects/{project}/budget/lines/{v1_id}", json={"description": "edited on v1"}).is_success
    with legacy(world) as old:
        answer = old.put(f"/projects/{SMALL_PROJECT}/budget/line/{legacy_id}", json={"description": "from legacy"})
        assert answer.is_success
    return legacy_id, v1_id, project


def test_an_idle_cycle_writes_nothing_and_chains_its_log_line(served: World) -> None:
    before = writes(served)
    code, output = bridge(served, "sync", "--once", "--project", SMALL_PROJECT)
    assert code == 0, output
    assert "cycle 2: 0 requests; no change at the source; nothing to verify" in output
    assert output.rstrip().splitlines()[-1].startswith("next: bridge sync status")
    assert writes(served) == before
    log = Path(f"{served.state}.sync.jsonl")
    check = verify_chain(log)
    assert check.broken is None
    last = json.loads(log.read_text().splitlines()[-1])["record"]
    assert last["requests"] == "0"
    assert (
        last["roots"][SMALL_PROJECT]["legacy"]
        == json.loads(log.read_text().splitlines()[0])["record"]["roots"][SMALL_PROJECT]["legacy"]
    )


def test_a_v1_edit_is_never_overwritten_and_taking_legacy_writes_it_once(served: World) -> None:
    legacy_id, v1_id, project = _both_edit_a_line(served)
    before = writes(served)
    code, output = bridge(served, "sync", "--once", "--project", SMALL_PROJECT)
    assert code == 1, output  # an open conflict is something to look at
    assert "1 open conflicts" in output
    assert "next: bridge conflicts list" in output
    assert writes(served) == before
    assert _line(served, project, v1_id)["description"] == "edited on v1"
    code, output = bridge(served, "conflicts", "list", "--json")
    (conflict,) = json.loads(output)
    assert (conflict["kind"], conflict["legacy_id"], conflict["v1_id"]) == ("line", legacy_id, v1_id)
    assert conflict["legacy"]["description"] == "from legacy"
    assert conflict["v1"]["description"] == "edited on v1"
    code, output = bridge(served, "conflicts", "resolve", str(conflict["id"]), "--take", "legacy")
    assert code == 0, output
    assert writes(served) == before + 1
    assert _line(served, project, v1_id)["description"] == "from legacy"
    code, output = bridge(served, "sync", "--once", "--project", SMALL_PROJECT)
    assert code == 0, output
    assert writes(served) == before + 1
    assert json.loads(bridge(served, "conflicts", "list", "--json")[1]) == []


def test_taking_v1_writes_nothing_and_keeps_the_v1_value(served: World) -> None:
    _, v1_id, project = _both_edit_a_line(served)
    assert bridge(served, "sync", "--once", "--project", SMALL_PROJECT)[0] == 1
    (conflict,) = json.loads(bridge(served, "conflicts", "list", "--json")[1])
    before = writes(served)
    code, output = bridge(served, "conflicts", "resolve", str(conflict["id"]), "--take", "v1")
    assert code == 0, output
    assert "0 requests sent" in output
    code, output = bridge(served, "sync", "--once", "--project", SMALL_PROJECT)
    assert code == 0, output
    assert writes(served) == before
    assert _line(served, project, v1_id)["description"] == "edited on v1"


def _transaction(world: World, v1_id: str) -> httpx.Response:
    with v1(world) as new:
        return new.get(f"/transactions/{v1_id}")


def test_a_delete_at_source_deletes_only_what_nobody_changed_onv1(served: World) -> None:
    plain_legacy, plain_v1, _ = entry(served, "actual", index=2)
    edited_legacy, edited_v1, _ = entry(served, "actual", index=3)
    with v1(served) as new:
        assert new.patch(f"/transactions/{edited_v1}", json={"description": "checked on v1"}).is_success
    with legacy(served) as old:
        for actual in (plain_legacy, edited_legacy):
            assert old.delete(f"/projects/{SMALL_PROJECT}/actuals/{actual}").status_code == 204
    code, output = bridge(served, "sync", "--once", "--project", SMALL_PROJECT)
    assert code == 1, output
    assert "deleted on target 1" in output
    assert _transaction(served, plain_v1).status_code == 404
    assert _transaction(served, edited_v1).json()["description"] == "checked on v1"
    (conflict,) = json.loads(bridge(served, "conflicts", "list", "--json")[1])
    assert (conflict["legacy_id"], conflict["legacy_change"]) == (edited_legacy, "delete")
    code, output = bridge(served, "conflicts", "resolve", str(conflict["id"]), "--take", "legacy")
    assert code == 0, output
    assert _transaction(served, edited_v1).status_code == 404


def test_an_actual_deleted_at_source_takes_its_receipt_documents_with_it(served: World) -> None:
    """A130: the documents the bridge made of a deleted actual's files are deleted with its transaction, and
    their crosswalk entries with them; the other actuals' receipts stay."""
    store = open_state(str(served.state), read_only=True)
    try:
        receipts = [row for row in store.crosswalk.mappings(SMALL_PROJECT) if row[0] == "receipt"]
        actuals = {
            legacy: v1_id for kind, legacy, v1_id, _ in store.crosswalk.mappings(SMALL_PROJECT) if kind == "actual"
        }
    finally:
        store.close()
    actual = record_of(receipts[0][1])
    documents = [v1_id for _, legacy, v1_id, _ in receipts if record_of(legacy) == actual]
    others = [v1_id for _, legacy, v1_id, _ in receipts if record_of(legacy) != actual]
    assert documents
    assert others
    with legacy(served) as old:
        assert old.delete(f"/projects/{SMALL_PROJECT}/actuals/{actual}").status_code == 204
    code, output = bridge(served, "sync", "--once", "--project", SMALL_PROJECT)
    assert code == 0, output
    assert _transaction(served, actuals[actual]).status_code == 404
    with v1(served) as new:
        assert [new.get(f"/documents/{v1_id}").status_code for v1_id in documents] == [404] * len(documents)
        assert {new.get(f"/documents/{v1_id}").status_code for v1_id in others} == {200}
    store = open_state(str(served.state), read_only=True)
    try:
        left = [legacy for kind, legacy, _, _ in store.crosswalk.mappings(SMALL_PROJECT) if kind == "receipt"]
    finally:
        store.close()
    assert [legacy for legacy in left if record_of(legacy) == actual] == []
    assert len(left) == len(others)


def test_a_split_item_edited_on_both_sides_is_a_conflict_written_once_when_legacy_is_taken(served: World) -> None:
    """Split items are guarded through their transaction's row (read with its items expanded): the v1 edit is
    never overwritten; `resolve --take legacy` writes the part once, under its transaction."""
    store = open_state(str(served.state), read_only=True)
    try:
        rows = store.crosswalk.mappings(SMALL_PROJECT)
    finally:
        store.close()
    actuals = {legacy_id: v1_id for kind, legacy_id, v1_id, _ in rows if kind == "actual"}
    part, item = next((legacy_id, v1_id) for kind, legacy_id, v1_id, _ in rows if kind == "split")
    transaction = actuals[actual_of(part)]
    with v1(served) as new:
        edited = new.patch(f"/transactions/{transaction}/items/{item}", json={"description": "checked on v1"})
        assert edited.is_success, edited.text
    actual = served.service.workspace("source").projects[SMALL_PROJECT].actuals[actual_of(part)]
    actual.subactuals[int(part.rpartition("#")[2])].description = "from legacy"
    code, output = bridge(served, "sync", "--once", "--project", SMALL_PROJECT)
    assert code == 1, output
    assert "1 open conflicts" in bridge(served, "sync", "status")[1]

    def description() -> object:
        with v1(served) as new:
            found = new.get(f"/transactions/{transaction}", params={"expand": "items"}).json()["items"]
        return next(row["description"] for row in found if row["id"] == item)

    assert description() == "checked on v1"
    (conflict,) = json.loads(bridge(served, "conflicts", "list", "--json")[1])
    assert (conflict["kind"], conflict["legacy_id"], conflict["v1"]["description"]) == ("split", part, "checked on v1")
    before = writes(served)
    code, output = bridge(served, "conflicts", "resolve", str(conflict["id"]), "--take", "legacy")
    assert code == 0, output
    assert (description(), writes(served) - before) == ("from legacy", 1)
    assert bridge(served, "sync", "--once", "--project", SMALL_PROJECT)[0] == 0
    assert writes(served) - before == 1


def test_status_says_the_read_age_and_check_fails_on_a_conflict_or_an_old_read(served: World) -> None:
    code, output = bridge(served, "sync", "status", "--json")
    assert code == 0, output
    (project,) = json.loads(output)["projects"]
    assert (project["project"], project["cycles"], project["open_conflicts"]) == (SMALL_PROJECT, 1, 0)
    assert 0 <= project["read_age_seconds"] < 600
    assert bridge(served, "sync", "status", "--check", "--max-lag", "1h")[0] == 0
    code, output = bridge(served, "sync", "status", "--check", "--max-lag", "1ms")
    assert code == 1
    assert f"{SMALL_PROJECT} was last read more than" in output
    _both_edit_a_line(served)
    assert bridge(served, "sync", "--once", "--project", SMALL_PROJECT)[0] == 1
    code, output = bridge(served, "sync", "status", "--check", "--max-lag", "1h")
    assert code == 1
    assert "has open conflicts" in output
    assert "1 open conflicts" in bridge(served, "sync", "status")[1]


def test_sigterm_lets_the_watch_finish_its_cycle_and_exit_0_and_it_serves_its_health(served: World) -> None:
    """A watch stopped by SIGTERM ends after a whole cycle: exit 0, its last line chained. While it runs, its
    loopback port answers /healthz and /metrics."""
    command = ["sync", "--watch", "--interval", "200ms", "--health-port", "0", "--project", SMALL_PROJECT]
    process = subprocess.Popen(
        [str(Path(sys.executable).parent / "bridge"), *command],
        env=served.env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    assert process.stdout is not None
    announced = process.stdout.readline()
    assert announced.startswith("health on http://127.0.0.1:"), announced
    base = announced.split()[2].removesuffix("/healthz")
    first = process.stdout.readline()
    assert first.startswith("cycle 2:"), first
    health = httpx.get(f"{base}/healthz")
    assert (health.status_code, health.json()["ok"]) == (200, True)
    metrics = httpx.get(f"{base}/metrics").text
    assert "bridge_sync_cycles_total" in metrics
    assert "bridge_sync_open_conflicts 0.0" in metrics
    process.send_signal(signal.SIGTERM)
    rest = process.communicate(timeout=120)[0]
    assert process.returncode == 0, rest
    assert "stopped on SIGTERM after a whole cycle" in rest
    check = verify_chain(Path(f"{served.state}.sync.jsonl"))
    assert check.broken is None
    assert check.lines >= 2


def test_a_cycle_that_writes_leaves_the_verify_to_the_next_quiet_one(served: World) -> None:
    """The verdict is about a quiet state: written now, verified by the first cycle that writes nothing."""
    with legacy(served) as old:
        rows = old.get(f"/projects/{SMALL_PROJECT}/actuals", params={"idMode": "system"}).json()["actuals"]
        plain = next(row for row in rows if not row.get("subactuals"))
        assert old.put(f"/projects/{SMALL_PROJECT}/actuals/{plain['id']}", json={"amount": 321.5}).is_success
    code, output = bridge(served, "sync", "--once", "--project", SMALL_PROJECT)
    assert code == 0, output
    assert "actual to update 1; 1 projects to verify once a cycle finds nothing to write" in output
    # What the write moved besides its record (the project's stamp, siblings' order) is no edit made on v1.
    assert "changed on v1 only" not in output
    code, output = bridge(served, "sync", "--once", "--project", SMALL_PROJECT)
    assert code == 0, output
    assert "cycle 3: 0 requests; no change at the source; verified: reconciled" in output
    (project,) = json.loads(bridge(served, "sync", "status", "--json")[1])["projects"]
    assert project["last_verdict"] == "reconciled"
