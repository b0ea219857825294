"""What legacy says was written when: the evidence that a frozen project stayed quiet.

The legacy surface cannot be locked, so a freeze is declared and detected: every record that publishes a write
time (``lastModified`` on phases, fringes, globals, lines, actuals and their parts, purchase orders and their
items; ``updatedAt`` on the project) is read, and one written after the freeze is named. Records that publish no
write time (tags, notes, rates, files) are covered by the content comparison of two reads instead (the
snapshot roots of ``sync.snapshot``).
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date, datetime

from bridge.clients.http import RunControls
from bridge.clients.legacy import BUDGET_EXPANDS, LegacyClient, open_legacy
from bridge.clients.legacy_stamps import Stamp, stamps
from bridge.config import Settings
from bridge.engine.run import Transports
from mappings.records import LegacyRecord

# Actuals are read in the widest window the engine reads them in (``engine.actuals``): business dates, not
# write times, so every window is read.
YEARS = 20


def _record_stamps(record: LegacyRecord, kind: str) -> Iterator[Stamp]:
    """A parsed record's write time (kept among its extra fields), and its parts'."""
    yield from stamps({"id": getattr(record, "id", None), **(record.model_extra or {})}, kind)
    for part in getattr(record, "subactuals", ()) or ():
        if isinstance(part, LegacyRecord):
            yield from _record_stamps(part, "actual part")


async def project_stamps(legacy: LegacyClient, project_id: str) -> list[Stamp]:
    """The write times of one project's records: its own, its budget's (phases, fringes, globals, lines), its
    purchase orders' (and items') and its actuals' (and their parts')."""
    found: list[Stamp] = []
    for status in ("active", "archived"):
        rows = await legacy.rows("/projects", "projects", [("status", status)])
        found += [
            s for row in rows if isinstance(row, dict) and row.get("id") == project_id for s in stamps(row, "project")
        ]
    params = [("includeHiddenPhases", "true"), *(("expands[]", value) for value in BUDGET_EXPANDS)]
    budget, _ = await legacy.get_json(f"/projects/{project_id}/budget", params)
    found += stamps(budget, "line")
    orders = await legacy.rows(f"/projects/{project_id}/purchaseOrders", "purchaseOrders", [("expands[]", "items")])
    found += stamps(orders, "purchase order")
    today = date.today()
    _reader, actuals = legacy.actuals(
        project_id, today.replace(year=today.year - YEARS, day=1), today.replace(year=today.year + YEARS, day=28)
    )
    async for actual in actuals:
        found += _record_stamps(actual, "actual")
    return sorted(found)


def after(found: list[Stamp], instant: datetime) -> list[Stamp]:
    """The records written after ``instant``, oldest first."""
    return [stamp for stamp in found if stamp.at > instant]


async def read_stamps(
    settings: Settings, project: str, *, transports: Transports | None = None, controls: RunControls | None = None
) -> list[Stamp]:
    """``project_stamps`` over a legacy client of its own (the settings' connection)."""
    legacy_url, key = settings.require_legacy()
    transport = transports.legacy if transports else None
    controls = controls or RunControls.of(settings)
    async with open_legacy(legacy_url, key, controls, transport=transport, timeout=settings.request_timeout) as legacy:
        return await project_stamps(legacy, project)
