"""A migrated emulator for the verifier's tests: migrate one project once, hand each test its own copy.

Migrating takes seconds, so the module-scoped ``migrated`` fixture does it once; ``world`` deep-copies the
emulator's service and the state file per test, so a test can damage its target without touching another.
Each copy is a ``World`` (``tests.support.world``) with the verifier's fixed credentials and migration name.
"""

from __future__ import annotations

import asyncio
import copy
import shutil
from dataclasses import dataclass
from pathlib import Path

from click.testing import CliRunner

from bridge.cli import cli
from bridge.config import Settings
from bridge.emulator.app import create_app
from bridge.emulator.core.seed import Size, seeded_service
from bridge.emulator.core.store import Service
from bridge.engine.progress import Progress
from bridge.engine.run import migrate
from bridge.verify.report import JSON_NAME
from bridge.verify.schema import Reconciliation
from tests.support.world import World, run_settings

LEGACY_KEY = "lk_verify_tests_0123456789abcdef"
TOKEN = "sat_verify_tests_0123456789abcdef0123456789"
MIGRATION = "verify-tests"


@dataclass(frozen=True, slots=True)
class Migrated:
    """A source workspace with one project migrated to the target, and the state file of that run."""

    service: Service
    state: Path
    project_id: str


def world_over(service: Service, state: Path, projects: tuple[str, ...]) -> World:
    """The world over ``service`` in process, with the verifier's fixed key, token and migration name."""
    app = create_app(service, legacy_key=LEGACY_KEY, token=TOKEN)
    return World.of(app, state, projects=projects, migration=MIGRATION)


def migrate_one(
    tmp: Path, *, seed: int = 42, size: Size = "small", dirty: bool = False, hostile: bool = False
) -> Migrated:
    """Seed an emulator, migrate one project through the engine, keep the service and state.

    Clean: the project with the smallest id. Dirty: the first project created, the one holding the seed's
    catalogue of bad records.
    """
    service = seeded_service(seed, size, dirty=dirty, hostile=hostile)
    live = [p.id for p in service.workspace("source").projects.values() if not p.deleted]
    project_id = live[0] if dirty else sorted(live)[0]
    state = tmp / "state.db"
    world = world_over(service, state, (project_id,))
    asyncio.run(migrate(world.settings(), dry_run=False, progress=Progress(), transports=world.transports()))
    return Migrated(service, state, project_id)


def settings_for(base: str, state: Path, projects: tuple[str, ...]) -> Settings:
    """The settings of a run of the verifier's credentials and migration name against ``base``."""
    return run_settings(base, LEGACY_KEY, TOKEN, state, projects, migration=MIGRATION)


def copy_world(migrated: Migrated, tmp: Path) -> World:
    state = tmp / "state.db"
    shutil.copyfile(migrated.state, state)
    spool = Path(f"{migrated.state}.spool")  # the files' hashes the run kept, which verify reads beside the state
    if spool.exists():
        shutil.copytree(spool, Path(f"{state}.spool"))
    return world_over(copy.deepcopy(migrated.service), state, (migrated.project_id,))


def run_cli(world: World, report_dir: Path, *extra: str) -> tuple[int, Reconciliation | None, str]:
    """`bridge verify` against the world served on loopback: exit code, the JSON report, the terminal text."""
    with world.served() as live:
        args = ["verify", "--project", world.project_id, "--report-dir", str(report_dir), *extra]
        result = CliRunner().invoke(cli, args, env=live.env(), catch_exceptions=False)
    report_file = report_dir / JSON_NAME
    report = Reconciliation.model_validate_json(report_file.read_text()) if report_file.exists() else None
    return result.exit_code, report, result.output
