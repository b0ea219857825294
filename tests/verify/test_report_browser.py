"""The HTML report in headless chromium, offline, at a typical laptop viewport (1366x768).

"Above the fold" is measured, not guessed: the report carries no script, so the test renders a copy of it
with one small script appended that reads the boxes of the differences section and of the largest
difference as chromium laid them out, and writes them into the page; ``--dump-dom`` reads them back. The
screenshot of the unmodified report is kept (set ``BRIDGE_REPORT_SHOTS`` to a folder to collect them).

The drift case: a migrated project whose v1 rate was changed on the v1 side afterwards. The dirty case: the
seed's project full of bad and hostile records, migrated with those quarantined.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import struct
import subprocess
from pathlib import Path

import pytest

from bridge.verify.report import HTML_NAME, write_reports
from bridge.verify.schema import Reconciliation
from tests.support.migrated import Migrated, copy_world, migrate_one, run_cli
from tests.support.world import World
from tests.verify.test_verify_emulator import _budget, _legacy_id, _priced_line, _v1_project

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="chromium is installed by `make test`; run that target")

WIDTH, HEIGHT = 1366, 768
PHONE = (390, 844)
_PROBE = """<script>
const box = (s) => { const e = document.querySelector(s); if (!e) return null;
  const r = e.getBoundingClientRect(); return {top: r.top, bottom: r.bottom, left: r.left, right: r.right}; };
// Whether a reader sees it: a closed <details> keeps a laid-out box for its content, but skips rendering it.
const shown = (s) => { const e = document.querySelector(s); return e ? {visible: +e.checkVisibility()} : null; };
const seen = {viewport: innerHeight, width: innerWidth, scroll: document.documentElement.scrollWidth,
  differences: box('#differences'), first: box('#difference-1'), money: box('#money'), projects: box('#projects'),
  verdict: box('#verdict'), table: box('#money table'), cause: box('#difference-1 td[data-label="where"]'),
  drill: shown('#difference-1 details ul'), internal: shown('#difference-1 .internal')};
(parent === window ? document : parent.document).body.insertAdjacentHTML('beforeend',
  '<pre id="measured">' + JSON.stringify(seen) + '</pre>');
</script>"""


def chromium(page: Path, profile: Path, *args: str, size: tuple[int, int] = (WIDTH, HEIGHT)) -> str:
    """Chromium headless, offline, at a viewport (the laptop's unless ``size``): its standard output."""
    result = subprocess.run(
        [
            str(CHROMIUM),
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            # The phone's frame reads the report it frames: both are files of one folder (see ``framed``).
            "--allow-file-access-from-files",
            f"--window-size={size[0]},{size[1]}",
            f"--user-data-dir={profile}",
            *args,
            page.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=90,
        check=True,
    )
    return result.stdout


Box = dict[str, float]


def framed(page: Path, size: tuple[int, int]) -> Path:
    """``page`` as chromium shows it at ``size``. Headless chromium lays a window out at least 500 px wide (a
    390 px screenshot is a crop of that), so a phone's width is an iframe of exactly that size."""
    if size[0] >= 500:
        return page
    frame = page.with_name(f"frame-{size[0]}-{page.name}")
    frame.write_text(
        f'<!DOCTYPE html><html><body style="margin:0"><iframe src="{page.name}" width="{size[0]}" '
        f'height="{size[1]}" style="border:0;display:block"></iframe></body></html>'
    )
    return frame


def measured(
    page: Path, tmp: Path, size: tuple[int, int] = (WIDTH, HEIGHT), *, printed: bool = False
) -> tuple[dict[str, Box], dict[str, float], str]:
    """The laid-out boxes of the page's lead parts, the viewport (height, width, the page's scroll width) and
    the DOM chromium built; ``printed``: laid out with the page's print rules applied on screen."""
    probe = tmp / "probe.html"
    text = page.read_text().replace("@media print{", "@media all{") if printed else page.read_text()
    probe.write_text(text.replace("</body>", _PROBE + "</body>"))
    dom = chromium(framed(probe, size), tmp / f"profile-probe-{size[0]}", "--dump-dom", size=size)
    found = re.search(r'<pre id="measured">(\{.*?\})</pre>', dom)
    assert found, "chromium did not run the measuring script"
    seen = json.loads(found.group(1))
    missing = [k for k in ("money", "differences", "first", "projects", "verdict", "table", "cause") if seen[k] is None]
    assert not missing, f"the page has no {missing}"
    view = {k: float(seen.pop(k)) for k in ("viewport", "width", "scroll")}
    boxes = {k: {side: float(x) for side, x in v.items()} for k, v in seen.items() if v is not None}
    return boxes, view, dom


def screenshot(page: Path, tmp: Path, name: str, size: tuple[int, int] = (WIDTH, HEIGHT)) -> Path:
    """A screenshot of the report as a reader first sees it; copied to $BRIDGE_REPORT_SHOTS when set
    (``BRIDGE_REPORT_SHOTS=docs/screenshots pytest tests/verify/test_report_browser.py`` regenerates the
    ones in the docs)."""
    shot = tmp / f"report-{name}-{size[0]}x{size[1]}.png"
    chromium(framed(page, size), tmp / "profile-shot", f"--screenshot={shot}", size=size)
    width, height = struct.unpack(">II", shot.read_bytes()[16:24])  # the PNG header's IHDR chunk
    assert (width, height) == size
    keep = os.environ.get("BRIDGE_REPORT_SHOTS")
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        shutil.copyfile(shot, Path(keep) / shot.name)
    return shot


def assert_differences_above_the_fold(page: Path, tmp: Path) -> str:
    """The largest difference is wholly on the first screen, after a short summary; its row's DOM."""
    boxes, view, dom = measured(page, tmp)
    assert view["viewport"] > 500
    money, differences, first, projects = (boxes[k] for k in ("money", "differences", "first", "projects"))
    assert money["bottom"] <= differences["top"] <= first["top"] < projects["top"], boxes
    assert first["bottom"] <= view["viewport"], (
        f"the largest difference ends at {first['bottom']} px, below the fold ({view['viewport']} px)"
    )
    row = re.search(r'<tr id="difference-1">.*?</tr>', dom, re.S)
    assert row
    return row.group(0)


def assert_fits_a_phone(page: Path, tmp: Path) -> None:
    """At 390 px the verdict, the money table, the largest difference and its cause need no sideways scroll."""
    boxes, view, _dom = measured(page, tmp, PHONE)
    assert view["width"] == PHONE[0]
    for part in ("verdict", "table", "first", "cause"):
        box = boxes[part]
        assert box["left"] >= 0, f"{part} starts left of the screen: {box}"
        assert box["right"] <= view["width"], f"{part} spans {box} in {view['width']} px"
    assert view["scroll"] <= view["width"], f"the page scrolls sideways: {view['scroll']} px in {view['width']}"


def assert_prints_causes_open_without_internal_paths(page: Path, tmp: Path) -> None:
    """Printed, the largest difference's places are open (a closed <details> would print its summary alone)
    and the bridge's own tree path is left out; on screen they are folded and shown."""
    boxes, _view, _dom = measured(page, tmp)
    assert (boxes["drill"]["visible"], boxes["internal"]["visible"]) == (0, 1), "on screen: folded, path shown"
    boxes, _view, _dom = measured(page, tmp, printed=True)
    assert (boxes["drill"]["visible"], boxes["internal"]["visible"]) == (1, 0), "printed: open, no internal path"


def test_the_drift_case_shows_the_changed_line_above_the_fold(world: World, tmp_path: Path) -> None:
    """A rate changed on v1 after the migration: the first screen shows the mismatch and names its line."""
    lines, phases = _budget(world)
    line, phase_id = _priced_line(lines, phases)
    url = f"/projects/{_v1_project(world)}/budget/lines/{line['id']}/phase-data/{phase_id}"
    assert world.call("PUT", url, json={"rate": float(line["phaseData"][phase_id]["rate"]) + 100}).status_code == 200
    code, report, output = run_cli(world, tmp_path / "reports")
    assert (code, report is not None) == (1, True), output
    page = tmp_path / "reports" / HTML_NAME
    row = assert_differences_above_the_fold(page, tmp_path)
    assert 'class="mismatch"' in row
    assert phases[phase_id]["name"] in row
    assert f"legacy {_legacy_id(world, 'line', line['id'])}" in row
    assert_fits_a_phone(page, tmp_path)
    assert_prints_causes_open_without_internal_paths(page, tmp_path)
    screenshot(page, tmp_path, "drift")
    screenshot(page, tmp_path, "drift", PHONE)


@pytest.fixture(scope="module")
def dirty(tmp_path_factory: pytest.TempPathFactory) -> Migrated:
    return migrate_one(tmp_path_factory.mktemp("dirty"), dirty=True, hostile=True)


def test_the_dirty_case_shows_what_quarantine_holds_back_above_the_fold(dirty: Migrated, tmp_path: Path) -> None:
    """Bad and hostile records quarantined: the first screen shows the held-back money and the largest
    difference with the transactions behind it; the hidden committed phase is said not compared, and why."""
    code, report, output = run_cli(copy_world(dirty, tmp_path), tmp_path / "reports")
    assert (code, report is not None) == (0, True), output
    assert report is not None
    page = tmp_path / "reports" / HTML_NAME
    row = assert_differences_above_the_fold(page, tmp_path)
    assert 'class="quarantine"' in row
    assert "transaction held back: actual" in row
    text = page.read_text()
    assert "No committed phase was compared. Not compared: phase Committed is hidden on v1" in text
    assert all(f"<code>{q.code}</code>" in text for q in report.quarantine)
    assert "<script" not in text
    assert_fits_a_phone(page, tmp_path)
    screenshot(page, tmp_path, "dirty")
    screenshot(page, tmp_path, "dirty", PHONE)


def test_html_opens_in_a_headless_browser_with_its_chart_and_table(report: Reconciliation, tmp_path: Path) -> None:
    """Chromium, offline, parses the page into a DOM holding the difference chart, the totals table and the tree."""
    write_reports(report, tmp_path)
    dom = chromium(tmp_path / HTML_NAME, tmp_path / "profile", "--dump-dom")
    assert '<svg class="chart" id="chart-0"' in dom
    assert dom.count('class="diff ') == 4, "a difference bar per phase and per actuals currency"
    assert '<table class="totals">' in dom
    assert "Camera package" in dom
    assert '<ul class="tree">' in dom
    assert "Not reconciled" in dom
