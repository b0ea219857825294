"""Every declared kind (``engine.kinds.KINDS``) is planned, written, counted, held back under a refused parent,
found on the target after its Idempotency-Key expired, and verified: one case per kind, so a kind added to the
declarations is walked through each of these without a line more here. Every run here carries the kinds an
operator's choice carries too (`--with tax-documents`), since every kind is walked."""

from __future__ import annotations

import asyncio
import sqlite3
from collections import Counter
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bridge.engine.kinds import KINDS, KindSpec, Scope, of_scope
from bridge.engine.plan import Plan
from bridge.engine.run import Transports
from bridge.engine.writes import Write
from bridge.verify.reconcile import VerifyOptions, verify
from bridge.verify.schema import KindLedger
from tests.support.world import World, fast_controls, fresh_world

STAMP = "%Y-%m-%dT%H:%M:%S.%fZ"


def _ids(kinds: tuple[KindSpec, ...]) -> list[str]:
    return [kind.kind.value for kind in kinds]


def _on_target(census: Counter[tuple[str, ...]], kind: KindSpec) -> int:
    return sum(n for key, n in census.items() if key[0] == kind.kind.value)


@pytest.fixture(scope="module")
def every_reference(tmp_path_factory: pytest.TempPathFactory) -> Counter[tuple[str, ...]]:
    """What a clean run of the small project carrying every kind leaves on the target, read through v1."""
    world = fresh_world(tmp_path_factory.mktemp("every-reference") / "state.sqlite")

    async def clean() -> Counter[tuple[str, ...]]:
        assert not (await world.run(extras=("tax-documents",))).ledger.quarantine
        return await world.census()

    return asyncio.run(clean())


@dataclass(frozen=True, slots=True)
class Migrated:
    """A plan and then a run of the small project on a fresh emulator, and what v1 holds after."""

    plan: Plan
    run: Plan
    census: Counter[tuple[str, ...]]


@pytest.fixture(scope="module")
def migrated(tmp_path_factory: pytest.TempPathFactory) -> Migrated:
    world = fresh_world(tmp_path_factory.mktemp("every-kind") / "state.sqlite")

    async def both() -> Migrated:
        plan = (await world.run(dry_run=True, extras=("tax-documents",))).ledger
        run = (await world.run(extras=("tax-documents",))).ledger
        return Migrated(plan, run, await world.census())

    return asyncio.run(both())


@pytest.mark.parametrize("kind", KINDS, ids=_ids(KINDS))
def test_a_kind_is_planned_written_once_and_counted(kind: KindSpec, migrated: Migrated) -> None:
    """The plan predicts creates of the kind, the run makes exactly those, v1 lists each record once, and every
    record of the kind has one fate in the counts."""
    planned, done = migrated.plan.of(kind.kind), migrated.run.of(kind.kind)
    assert planned.to_create > 0
    assert done.to_create == planned.to_create
    assert _on_target(migrated.census, kind) == done.to_create
    assert done.records == planned.records == done.to_create
    assert done.requests == planned.requests > 0


@pytest.fixture(scope="module")
def refused_project(tmp_path_factory: pytest.TempPathFactory) -> tuple[Plan, Counter[tuple[str, ...]]]:
    """A run whose one project the mappings refuse: its name is not in Unicode NFC (the legacy surface keeps it
    as sent, the bridge's text rule refuses it)."""
    world = fresh_world(tmp_path_factory.mktemp("refused") / "state.sqlite")

    async def run() -> tuple[Plan, Counter[tuple[str, ...]]]:
        async with world.client("/api/v1", {"X-API-Key": world.legacy_key}) as legacy:
            answer = await legacy.put(f"/projects/{world.projects[0]}", json={"name": "Cafe\u0301 budget"})
            assert answer.status_code == 200
        return (await world.run(extras=("tax-documents",))).ledger, await world.census()

    return asyncio.run(run())


PROJECT_KINDS = of_scope(Scope.PROJECT)


@pytest.mark.parametrize("kind", PROJECT_KINDS, ids=_ids(PROJECT_KINDS))
def test_a_project_kind_is_held_back_under_a_refused_project(
    kind: KindSpec, migrated: Migrated, refused_project: tuple[Plan, Counter[tuple[str, ...]]]
) -> None:
    """Every record of the kind the refused project holds is counted as held back, and none reaches v1.
    (A workspace kind has no parent to wait for: a refused record of it is quarantined itself.)"""
    done, census = refused_project
    assert done.of(kind.kind).held_back == migrated.plan.of(kind.kind).records
    assert done.of(kind.kind).requests == 0
    assert _on_target(census, kind) == 0


class Crash(BaseException):
    """The process dying, as far as the run can tell: nothing after it runs (not an error it could handle)."""


@dataclass(slots=True)
class CrashAfterCommit:
    """Stops the run once the service has committed the first create of ``kind`` (its create operation: never
    a follow-up PATCH), before its answer is read: the write's records are on v1 and the journal still holds the
    intent in flight."""

    kind: KindSpec

    def reached(self, write: Write, point: str) -> None:
        if point == "service" and write.kind is self.kind.kind and write.operation == self.kind.create:
            raise Crash


def _age_in_flight(state: Path, hours: int) -> int:
    """Move the journal time of the intents in flight ``hours`` back; how many there are."""
    with sqlite3.connect(state) as db:
        rows = db.execute("SELECT step_key, created_at FROM intents WHERE status IN ('pending', 'sent')").fetchall()
        for step_key, created in rows:
            older = datetime.strptime(created, STAMP).replace(tzinfo=UTC) - timedelta(hours=hours)
            db.execute("UPDATE intents SET created_at = ? WHERE step_key = ?", (older.strftime(STAMP), step_key))
    return len(rows)


@pytest.mark.parametrize("kind", KINDS, ids=_ids(KINDS))
def test_a_kind_is_found_on_the_target_after_its_key_expired(
    kind: KindSpec, tmp_path: Path, every_reference: Counter[tuple[str, ...]]
) -> None:
    """Stopped right after the service committed a create of the kind, resumed two days later on a service
    that forgot every key: the resume finds the records on the target by their natural fields (the kind's
    declared listing) instead of creating them again. The target ends as a clean run leaves it."""
    world: World = fresh_world(tmp_path / "state.sqlite")

    async def crash_then_resume() -> Counter[tuple[str, ...]]:
        with pytest.raises(Crash):
            await world.run(observer=CrashAfterCommit(kind), extras=("tax-documents",))
        assert _age_in_flight(tmp_path / "state.sqlite", hours=48) > 0
        await world.control("POST", "/settings", {"idempotencyRetentionS": 0})
        resumed = await world.run(extras=("tax-documents",))
        assert not resumed.ledger.quarantine
        return await world.census()

    assert asyncio.run(crash_then_resume()) == every_reference


@dataclass(frozen=True, slots=True)
class Verified:
    """A run of the whole small workspace, then `bridge verify` of it."""

    run: Plan
    ledger: dict[str, KindLedger]


@pytest.fixture(scope="module")
def verified(tmp_path_factory: pytest.TempPathFactory) -> Verified:
    world = fresh_world(tmp_path_factory.mktemp("verified") / "state.sqlite")
    world.projects = ()

    async def both() -> Verified:
        run = (await world.run(extras=("tax-documents",))).ledger
        transports = Transports(world.transport, world.transport)
        report = await verify(world.settings(), VerifyOptions(), transports, fast_controls())
        return Verified(run, {entry.kind: entry for entry in report.ledger})

    return asyncio.run(both())


@pytest.mark.parametrize("kind", KINDS, ids=_ids(KINDS))
def test_a_kind_is_verified(kind: KindSpec, verified: Verified) -> None:
    """`bridge verify` counts every record of the kind the run wrote in its closed ledger, finds each on the
    target, and nothing of the kind there that the crosswalk does not know."""
    entry = verified.ledger[kind.kind.value]
    assert entry.source == verified.run.of(kind.kind).records > 0
    assert (entry.migrated, entry.ok, entry.closed, entry.checked_on_target) == (entry.source, entry.source, True, True)
    assert (entry.missing, entry.unexpected, entry.duplicated) == ([], [], [])
