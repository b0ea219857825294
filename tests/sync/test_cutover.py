"""`bridge cutover check|freeze|finalize` on a synced project, and the certificate it signs checked offline."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from tests.support.keys import keypair
from tests.support.synced import bridge, legacy
from tests.support.world import SMALL_PROJECT, World

pytestmark = pytest.mark.wire


def _finalize(world: World, key: Path, certificate: Path) -> tuple[int, str]:
    """`bridge cutover finalize` of the small project with no quiet period, signed with ``key``."""
    args = ("--project", SMALL_PROJECT, "--quiet-period", "0s", "--key", str(key), "--out", str(certificate))
    return bridge(world, "cutover", "finalize", *args)


def test_check_freeze_finalize_signs_a_certificate_that_verifies_offline(served: World, tmp_path: Path) -> None:
    code, output = bridge(served, "cutover", "check", "--project", SMALL_PROJECT)
    assert "ok   no open conflict" in output
    assert "ok   a plan of 0 requests" in output
    assert code == 0, output
    code, output = bridge(served, "cutover", "check", "--project", SMALL_PROJECT, "--json")
    checked = json.loads(output)
    assert (code, checked["project"], checked["ready"]) == (0, SMALL_PROJECT, True)
    assert {"check": "a plan of 0 requests", "holds": True} in [
        {"check": c["check"], "holds": c["holds"]} for c in checked["checks"]
    ]
    assert bridge(served, "cutover", "freeze", "--project", SMALL_PROJECT)[0] == 0
    keys = keypair(tmp_path, "run")
    certificate = tmp_path / "out" / f"cutover-{SMALL_PROJECT}.intoto.json"
    certificate.parent.mkdir()
    code, output = _finalize(served, keys.private, certificate)
    assert code == 0, output
    assert f"{SMALL_PROJECT} cut over" in output
    statement = json.loads(base64.b64decode(json.loads(certificate.read_bytes())["payload"]))
    predicate = statement["predicate"]
    assert predicate["freezeEnforced"] is False
    assert predicate["verdict"]["reconciled"] is True
    first, second = predicate["cutover"]["stableReads"]
    assert first["root"] == second["root"]
    names = {subject["name"] for subject in statement["subject"]}
    assert f"reconciliation-{SMALL_PROJECT}.json" in names
    assert f"sync-line-{SMALL_PROJECT}.json" in names
    code, output = bridge(served, "cutover", "verify", str(certificate), "--pubkey", str(keys.public))
    assert (code, output) == (0, "verified: 5 subject(s), 1 signature(s)\n")
    report = certificate.parent / f"reconciliation-{SMALL_PROJECT}.json"
    report.write_bytes(report.read_bytes().replace(b'"reconciled": true', b'"reconciled": false'))
    code, output = bridge(served, "cutover", "verify", str(certificate), "--pubkey", str(keys.public))
    assert code == 1
    assert f"subject reconciliation-{SMALL_PROJECT}.json" in output


def test_finalize_refuses_a_legacy_write_after_the_freeze_naming_it(served: World, tmp_path: Path) -> None:
    assert bridge(served, "cutover", "freeze", "--project", SMALL_PROJECT)[0] == 0
    with legacy(served) as old:
        actual = old.get(f"/projects/{SMALL_PROJECT}/actuals", params={"idMode": "system"}).json()["actuals"][0]["id"]
        assert old.put(f"/projects/{SMALL_PROJECT}/actuals/{actual}", json={"amount": 12.5}).is_success
    keys = keypair(tmp_path, "run")
    certificate = tmp_path / "cert.intoto.json"
    code, output = _finalize(served, keys.private, certificate)
    assert code == 1, output
    assert f"actual {actual} written" in output
    assert "after the freeze" in output
    assert not certificate.exists()


def test_a_cut_over_project_is_only_watched(served: World, tmp_path: Path) -> None:
    """After the cutover nothing is written for the project; its later legacy writes are named, not carried. A
    sync of every project keeps the others in step and watches it, with the workspace library still planned from
    every project (a cycle of the workspace in step sends nothing); naming only cut-over projects is refused."""
    keys = keypair(tmp_path, "run")
    assert bridge(served, "run")[0] == 0  # every project migrated
    assert bridge(served, "sync", "--once")[0] in (0, 1)
    assert bridge(served, "cutover", "freeze", "--project", SMALL_PROJECT)[0] == 0
    assert _finalize(served, keys.private, tmp_path / "c.intoto.json")[0] == 0
    code, output = bridge(served, "sync", "--once", "--project", SMALL_PROJECT)
    assert code == 2
    assert "every project named is cut over" in output
    with legacy(served) as old:
        actual = old.get(f"/projects/{SMALL_PROJECT}/actuals", params={"idMode": "system"}).json()["actuals"][0]["id"]
        assert old.put(f"/projects/{SMALL_PROJECT}/actuals/{actual}", json={"amount": 12.5}).is_success
    code, output = bridge(served, "sync", "--once")
    assert code == 0, output
    assert f"legacy writes after the cutover of {SMALL_PROJECT}" in output
    last = json.loads(Path(f"{served.state}.sync.jsonl").read_text().splitlines()[-1])["record"]
    assert (last["requests"], last["touched"]) == ("0", [])
    assert SMALL_PROJECT not in last["projects"]
    assert "prj_42eaee104525" in last["projects"]
    assert any(late.startswith(f"actual {actual} written") for late in last["afterCutover"][SMALL_PROJECT])
