"""Settings changed on v1 after a run: each is one difference, counted once in every output verify writes.

A setting that differs computes nothing differently yet (the formulas below evaluate to what they replaced),
so the one mismatch each test expects is the setting itself, never a total it moved.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from bridge.verify.report import HTML_NAME, MD_NAME
from bridge.verify.schema import Reconciliation
from state import open_state
from tests.support.migrated import run_cli
from tests.support.world import World


def _v1_project(world: World) -> str:
    with open_state(str(world.state), read_only=True) as store:
        v1_id = store.crosswalk.lookup("project", world.project_id)
    assert v1_id is not None
    return v1_id


def _mismatches_everywhere(world: World, tmp_path: Path) -> tuple[Reconciliation, dict[str, int]]:
    """Verify twice (``--json``, then for the terminal): the report, and the mismatch count each output shows."""
    code, report, printed = run_cli(world, tmp_path / "json", "--json")
    assert report is not None, printed
    assert code == 1, printed
    markdown = (tmp_path / "json" / MD_NAME).read_text()
    page = (tmp_path / "json" / HTML_NAME).read_text()
    _, _, terminal = run_cli(world, tmp_path / "terminal")
    shown = {
        # The runner's output interleaves stderr (the progress line) with the JSON on stdout.
        "json": json.JSONDecoder().raw_decode(printed, printed.index('{\n  "reconciled"'))[0]["verdicts"]["mismatch"],
        "markdown": int(re.findall(r"(\d+) mismatch", markdown)[0]),
        "html": int(re.findall(r'<p id="verdicts">[^<]*?(\d+) mismatch', page)[0]),
        "terminal": int(re.findall(r"(\d+) mismatch", terminal)[0]),
    }
    return report, shown


def test_one_changed_project_setting_is_one_mismatch_in_every_output(world: World, tmp_path: Path) -> None:
    """A project global rewritten on v1 to an equal expression: one library difference, and mismatch 1 in the
    JSON summary, the Markdown, the HTML and the terminal (it was counted twice)."""
    project = _v1_project(world)
    globals_ = world.list_all(f"/projects/{project}/library/globals")
    numeric = next(g for g in globals_ if str(g["formula"]).strip().isdigit())
    rewritten = f"{numeric['formula']} + 0"
    url = f"/projects/{project}/library/globals/{numeric['id']}"
    assert world.call("PATCH", url, json={"formula": rewritten}).status_code == 200
    report, shown = _mismatches_everywhere(world, tmp_path)
    assert [(d.name, d.field, d.v1) for p in report.projects for d in p.library] == [
        (numeric["symbol"], "formula", rewritten)
    ]
    assert report.verdicts.mismatch == 1
    assert shown == {"json": 1, "markdown": 1, "html": 1, "terminal": 1}


def test_a_workspace_fringe_changed_on_v1_is_one_library_difference_naming_it(world: World, tmp_path: Path) -> None:
    """A workspace fringe's rate changed on v1 after the run (its project copies untouched, so no total moves):
    exactly one library difference, naming the fringe, the field, what the run wrote and what v1 holds."""
    with open_state(str(world.state), read_only=True) as store:
        written = {row.v1_id: row.legacy_id for row in store.crosswalk.entries(kind="fringe", scope="")}
    fringe = next(f for f in world.list_all("/library/fringes") if f["id"] in written)
    assert world.call("PATCH", f"/library/fringes/{fringe['id']}", json={"rate": 99.5}).status_code == 200
    report, shown = _mismatches_everywhere(world, tmp_path)
    assert [(d.kind, d.legacy_id, d.v1_id, d.field, d.legacy, d.v1) for d in report.library] == [
        ("fringe", written[fringe["id"]], fringe["id"], "rate", str(fringe["rate"]), "99.5")
    ]
    assert not [d for p in report.projects for d in p.library]
    assert shown == {"json": 1, "markdown": 1, "html": 1, "terminal": 1}
    markdown = (tmp_path / "json" / MD_NAME).read_text()
    assert f"| fringe | {written[fringe['id']]} | rate | {fringe['rate']} | 99.5 |" in markdown
