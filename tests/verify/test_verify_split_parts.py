"""Split parts' line label, quantity, unit and rate: carried by the run, proven by verify (A99, A100)."""

from __future__ import annotations

import asyncio
from collections import Counter
from decimal import Decimal
from pathlib import Path
from typing import Any

from bridge.verify.report import MD_NAME
from tests.support.migrated import run_cli
from tests.support.world import World
from tests.verify.test_verify_emulator import _legacy_id, _v1_project

Details = tuple[str | None, str | None, str | None, str | None]


def _number(value: object) -> str | None:
    return None if value is None else format(Decimal(str(value)).normalize(), "f")


def _legacy_parts(world: World) -> Counter[Details]:
    async def read() -> list[dict[str, Any]]:
        async with world.legacy_client() as legacy:
            answer = await legacy.get(f"/projects/{world.project_id}/actuals", params={"idMode": "system"})
            rows: list[dict[str, Any]] = answer.json()["actuals"]
            return rows

    return Counter(
        (p.get("lineId"), _number(p.get("quantity")), p.get("unit"), _number(p.get("rate")))
        for a in asyncio.run(read())
        for p in a.get("subactuals") or []
    )


def _v1_items(world: World) -> list[dict[str, object]]:
    transactions = world.list_all("/transactions", {"projectId": _v1_project(world)})
    return [item for t in transactions for item in t.get("items") or []]


def test_the_run_carries_every_parts_details_to_its_item(world: World) -> None:
    """Every legacy part's (label, quantity, unit, rate) is on exactly one v1 item, none made up: some parts
    hold all four, some none, and the quantities and rates are the same decimals."""
    legacy = _legacy_parts(world)
    on_v1 = Counter(
        (i.get("lineNumber"), _number(i.get("qty")), i.get("unit"), _number(i.get("rate"))) for i in _v1_items(world)
    )
    assert on_v1 == legacy
    assert any(None not in details for details in legacy)
    assert (None, None, None, None) in legacy


def test_a_quantity_changed_on_v1_fails_verification_naming_the_part(world: World, tmp_path: Path) -> None:
    item = next(i for i in _v1_items(world) if i.get("qty") is not None)
    transaction = next(
        t for t in world.list_all("/transactions", {"projectId": _v1_project(world)}) if item in (t.get("items") or [])
    )
    changed = str(Decimal(str(item["qty"])) + 1)
    url = f"/transactions/{transaction['id']}/items/{item['id']}"
    assert world.call("PATCH", url, json={"qty": changed}).status_code == 200
    code, report, output = run_cli(world, tmp_path / "reports")
    assert report is not None, output
    assert code == 1
    assert not report.reconciled
    (found,) = [d for p in report.projects for d in p.library if d.kind == "split"]
    legacy_id = _legacy_id(world, "split", str(item["id"]))
    assert (found.legacy_id, found.v1_id, found.field) == (legacy_id, item["id"], "qty")
    assert (found.legacy, found.v1) == (_number(item["qty"]), _number(changed))
    assert legacy_id in (tmp_path / "reports" / MD_NAME).read_text()


def test_a_clean_migration_finds_no_part_differing(world: World, tmp_path: Path) -> None:
    code, report, output = run_cli(world, tmp_path / "reports")
    assert report is not None, output
    assert [d for p in report.projects for d in p.library if d.kind == "split"] == []
    assert code == 0
