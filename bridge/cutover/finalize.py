"""A project's cutover: readiness, the declared freeze, and the finalize that ends with the certificate.

- ``readiness``: no open conflict, no open quarantine entry, a plan of 0 requests, and a verify at zero
  tolerance (``FailOn.ROUNDING``) that reconciles.
- the freeze is declared (the legacy surface has no lock: A116) and recorded in the state.
- ``finalize``: a last sync cycle; the project's legacy write times read (none may be after the freeze); a quiet
  period; a second full read, which must write nothing and leave both snapshot roots as the first left them,
  with again no write after the freeze; a verify at zero tolerance; a plan of 0 requests; then the certificate
  over the reconciliation report, the plan, both snapshots and the last sync-log line (``certificate``).
A refusal names what holds the cutover back (``Refusal``); nothing is signed then.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from importlib.metadata import version
from pathlib import Path

from bridge.canonical import Json
from bridge.clients.http import RunControls
from bridge.clients.legacy_stamps import Stamp
from bridge.config import Settings
from bridge.cutover.certificate import SigningKey, dumps, issue, spec_digests
from bridge.cutover.render import render_markdown
from bridge.engine.progress import Progress
from bridge.engine.run import Transports, migrate
from bridge.errors import BridgeError, UsageError
from bridge.files import write_private
from bridge.sync.cycle import run_cycle
from bridge.sync.log import SyncLog
from bridge.sync.quiet import after, read_stamps
from bridge.sync.snapshot import merkle_root
from bridge.verify.compare import FailOn
from bridge.verify.headline import money_rows
from bridge.verify.options import VerifyOptions
from bridge.verify.reconcile import verify
from bridge.verify.schema import Reconciliation
from state.store import StateStore, open_state


class CutoverRefused(BridgeError):  # noqa: N818 -- the condition's name, as bridge/errors.py names them
    """The project is not ready to cut over; the message names each reason."""


@dataclass(frozen=True, slots=True)
class Check:
    """One readiness condition: what it is, whether it holds, and what was found."""

    name: str
    holds: bool
    found: str


@dataclass(frozen=True, slots=True)
class Seams:
    """Test seams: in-process transports, run controls, and the quiet period's sleep."""

    transports: Transports | None = None
    controls: RunControls | None = None
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep


def _scoped(settings: Settings, project: str) -> Settings:
    return settings.model_copy(update={"projects": (project,)})


def _state(settings: Settings, *, read_only: bool = True) -> StateStore:
    return open_state(str(settings.state), read_only=read_only, migration=settings.migration)


async def _verified(settings: Settings, project: str, seams: Seams) -> Reconciliation:
    options = VerifyOptions(projects=(project,), fail_on=FailOn.ROUNDING)
    return await verify(_scoped(settings, project), options, transports=seams.transports, controls=seams.controls)


async def readiness(settings: Settings, project: str, seams: Seams) -> tuple[list[Check], Reconciliation]:
    """The readiness conditions of ``project``, each with what was found, and the zero-tolerance report."""
    store = _state(settings)
    try:
        conflicts = len(store.conflicts.open_records(project))
        quarantined = [row for row in store.quarantine.entries() if row.scope == project]
    finally:
        store.close()
    plan = await migrate(
        _scoped(settings, project),
        dry_run=True,
        progress=Progress(),
        transports=seams.transports,
        controls=seams.controls,
    )
    report = await _verified(settings, project, seams)
    checks = [
        Check("no open conflict", conflicts == 0, f"{conflicts:,} open (bridge conflicts list)"),
        Check("quarantine empty", not quarantined, f"{len(quarantined):,} records quarantined (bridge status)"),
        Check("a plan of 0 requests", plan.ledger.requests == 0, f"the plan sends {plan.ledger.requests:,} requests"),
        Check(
            "reconciled at zero tolerance",
            report.reconciled,
            "reconciled" if report.reconciled else "differences (bridge verify --fail-on rounding shows them)",
        ),
    ]
    return checks, report


def freeze(settings: Settings, project: str, at: datetime | None = None) -> datetime:
    """Record the freeze of ``project`` (a second freeze keeps the first instant); the instant recorded."""
    store = _state(settings, read_only=False)
    try:
        return store.cutovers.freeze(project, at or datetime.now(UTC)).frozen_at
    finally:
        store.close()


def _late(stamps: list[Stamp], frozen: datetime) -> list[str]:
    return [f"{s.kind} {s.legacy_id} written {s.at.isoformat()}" for s in after(stamps, frozen)]


def _snapshot(store: StateStore, project: str) -> tuple[dict[str, Json], dict[str, Json]]:
    """Both sides' snapshot of ``project``: its root and the leaves it is computed from (anyone can recompute)."""
    legacy = sorted((kind, legacy_id, digest) for kind, legacy_id, _, digest in store.crosswalk.mappings(project))
    v1 = sorted((m.kind, m.legacy_id, m.mark) for m in store.marks.of(project).values())
    return (
        {"project": project, "root": merkle_root(legacy), "leaves": [list(leaf) for leaf in legacy]},
        {"project": project, "root": merkle_root(v1), "leaves": [list(leaf) for leaf in v1]},
    )


@dataclass(frozen=True, slots=True)
class Finalized:
    certificate: Path
    subjects: tuple[Path, ...]
    predicate: dict[str, Json]


async def finalize(
    settings: Settings,
    project: str,
    *,
    quiet: timedelta,
    key: SigningKey,
    out: Path,
    log: SyncLog,
    seams: Seams,
) -> Finalized:
    """The finalize of the module docstring; CutoverRefused naming every reason when it cannot sign."""
    store = _state(settings)
    try:
        cutover = store.cutovers.get(project)
    finally:
        store.close()
    if cutover is None:
        raise UsageError(f"{project} is not frozen: declare the freeze first with `bridge cutover freeze --project`")
    frozen = cutover.frozen_at
    scoped = _scoped(settings, project)
    first = await run_cycle(scoped, log, transports=seams.transports, controls=seams.controls, fail_on=FailOn.ROUNDING)
    late = _late(await read_stamps(settings, project, transports=seams.transports, controls=seams.controls), frozen)
    if late:
        raise CutoverRefused(
            f"{project}: written on legacy after the freeze at {frozen.isoformat()}: {'; '.join(late)}"
        )
    first_roots = first.record["roots"]
    first_at = first.record["finished"]
    await seams.sleep(quiet.total_seconds())
    second = await run_cycle(scoped, log, transports=seams.transports, controls=seams.controls, fail_on=FailOn.ROUNDING)
    late = _late(await read_stamps(settings, project, transports=seams.transports, controls=seams.controls), frozen)
    reasons = [*late]
    if second.writes:
        reasons.append(f"the second read found changes and sent {second.writes:,} requests (not quiet)")
    if second.record["roots"] != first_roots:
        reasons.append("the snapshot roots of the two reads differ")
    if second.open_conflicts:
        reasons.append(f"{second.open_conflicts:,} open conflicts")
    if reasons:
        raise CutoverRefused(f"{project}: not quiet since the freeze at {frozen.isoformat()}: {'; '.join(reasons)}")
    report = await _verified(settings, project, seams)
    if not report.reconciled:
        raise CutoverRefused(
            f"{project}: verify at zero tolerance finds differences (bridge verify --fail-on rounding)"
        )
    plan = await migrate(
        scoped, dry_run=True, progress=Progress(), transports=seams.transports, controls=seams.controls
    )
    if plan.ledger.requests:
        raise CutoverRefused(f"{project}: the plan still sends {plan.ledger.requests:,} requests")
    stable: list[Json] = [
        {"at": first_at, "root": _legacy_root(first_roots, project)},
        {"at": second.record["finished"], "root": _legacy_root(second.record["roots"], project)},
    ]
    return _sign(
        settings,
        project,
        out=out,
        key=key,
        report=report,
        plan=plan.ledger.to_json(),
        log=log,
        frozen=frozen,
        stable=stable,
    )


def _legacy_root(roots: Json, project: str) -> Json:
    scoped = roots.get(project) if isinstance(roots, dict) else None
    return scoped.get("legacy") if isinstance(scoped, dict) else None


def _sign(
    settings: Settings,
    project: str,
    *,
    out: Path,
    key: SigningKey,
    report: Reconciliation,
    plan: dict[str, object],
    log: SyncLog,
    frozen: datetime,
    stable: list[Json],
) -> Finalized:
    folder = out.parent
    store = _state(settings)
    try:
        legacy_snapshot, v1_snapshot = _snapshot(store, project)
    finally:
        store.close()
    files = {
        f"reconciliation-{project}.json": report.model_dump_json(indent=2).encode(),
        f"plan-{project}.json": (json.dumps(plan, indent=2) + "\n").encode(),
        f"legacy-snapshot-{project}.json": (json.dumps(legacy_snapshot, indent=2) + "\n").encode(),
        f"v1-snapshot-{project}.json": (json.dumps(v1_snapshot, indent=2) + "\n").encode(),
        f"sync-line-{project}.json": log.path.read_bytes().splitlines()[-1] + b"\n",
    }
    subjects = []
    for name, data in files.items():
        write_private(folder / name, data, option="--out")
        subjects.append(folder / name)
    ledger: list[Json] = [
        {"kind": row.kind, "source": row.source, "migrated": row.migrated, "unchanged": row.unchanged}
        for row in report.ledger
    ]
    predicate: dict[str, Json] = {
        "project": project,
        "migration": report.migration,
        "tool": {"version": version("workspace-bridge"), "specs": spec_digests()},
        "verdict": {
            "reconciled": report.reconciled,
            "failOn": FailOn.ROUNDING.value,
            "money": [
                {"currency": row.currency, "phase": row.phase, "legacyMinor": row.legacy_minor, "v1Minor": row.v1_minor}
                for row in money_rows(report)
            ],
        },
        "ledger": ledger,
        "notCarried": {entry.kind: entry.count for entry in report.inventory},
        "openItems": {
            "conflicts": 0,
            "quarantine": 0,
            "poAwaitingApproval": sum(
                p.purchase_orders.awaiting_approval for p in report.projects if p.purchase_orders is not None
            ),
        },
        "cutover": {
            "freezeDeclaredAt": frozen.isoformat(),
            "freezeEnforced": False,
            "stableReads": stable,
            "v1Root": v1_snapshot["root"],
            "lastSyncLine": log.seq,
        },
        "freezeEnforced": False,
    }
    envelope = issue(subjects, predicate, key)
    write_private(out, dumps(envelope), option="--out")
    write_private(out.with_suffix(".md"), render_markdown(envelope).encode(), option="--out")
    store = _state(settings, read_only=False)
    try:
        store.cutovers.finalize(project, str(out), datetime.now(UTC))
    finally:
        store.close()
    return Finalized(out, tuple(subjects), predicate)
