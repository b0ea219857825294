"""A migrated emulator for the verifier's tests: migrate one project once, hand each test its own copy.

Migrating takes seconds, so the module-scoped ``migrated`` fixture does it once; ``world`` deep-copies the
emulator's service and the state file per test, so a test can damage its target without touching another.
"""

from __future__ import annotations

import asyncio
import copy
import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from click.testing import CliRunner
from fastapi import FastAPI

from bridge.cli import cli
from bridge.config import Secret, Settings
from bridge.emulator.app import create_app
from bridge.emulator.core.seed import Size, seeded_service
from bridge.emulator.core.store import Service
from bridge.engine.progress import Progress
from bridge.engine.run import Transports, migrate
from bridge.verify.report import JSON_NAME
from bridge.verify.schema import Reconciliation
from tests.support.serving import serving

LEGACY_KEY = "lk_verify_tests_0123456789abcdef"
TOKEN = "sat_verify_tests_0123456789abcdef0123456789"


@dataclass(frozen=True, slots=True)
class Migrated:
    """A source workspace with one project migrated to the target, and the state file of that run."""

    service: Service
    state: Path
    project_id: str


def migrate_one(
    tmp: Path, *, seed: int = 42, size: Size = "small", dirty: bool = False, hostile: bool = False
) -> Migrated:
    """Seed an emulator, migrate one project through the engine, keep the service and state.

    Clean: the project with the smallest id. Dirty: the first project created, the one holding the seed's
    catalogue of bad records.
    """
    service = seeded_service(seed, size, dirty=dirty, hostile=hostile)
    app = create_app(service, legacy_key=LEGACY_KEY, token=TOKEN)
    live = [p.id for p in service.workspace("source").projects.values() if not p.deleted]
    project_id = live[0] if dirty else sorted(live)[0]
    state = tmp / "state.db"
    settings = settings_for("http://emulator", state, (project_id,))
    wires = Transports(httpx.ASGITransport(app=app), httpx.ASGITransport(app=app))
    asyncio.run(migrate(settings, dry_run=False, progress=Progress(), transports=wires))
    return Migrated(service, state, project_id)


def settings_for(base: str, state: Path, projects: tuple[str, ...]) -> Settings:
    return Settings(
        legacy_url=f"{base}/api/v1",
        legacy_key=Secret(LEGACY_KEY),
        v1_url=f"{base}/v1",
        token=Secret(TOKEN),
        state=str(state),
        migration="verify-tests",
        projects=projects,
    )


@dataclass(frozen=True, slots=True)
class World:
    """One test's own copy: the emulator app, its state file, and clients on both surfaces."""

    app: FastAPI
    service: Service
    state: Path
    project_id: str

    def settings(self) -> Settings:
        return settings_for("http://emulator", self.state, (self.project_id,))

    def transports(self) -> Transports:
        return Transports(httpx.ASGITransport(app=self.app), httpx.ASGITransport(app=self.app))

    def call(
        self,
        method: str,
        path: str,
        *,
        json: object = None,
        headers: Mapping[str, str] | None = None,
        params: Mapping[str, str] | None = None,
    ) -> httpx.Response:
        """One request to the v1 surface (or ``/_emulator`` with a path starting there), as the target's admin."""

        async def send() -> httpx.Response:
            transport = httpx.ASGITransport(app=self.app)
            admin = {"Authorization": f"Bearer {TOKEN}"}
            async with httpx.AsyncClient(transport=transport, base_url="http://emulator", headers=admin) as client:
                url = path if path.startswith("/_emulator") else f"/v1{path}"
                return await client.request(method, url, json=json, headers=headers, params=params)

        return asyncio.run(send())

    def list_all(self, path: str, params: dict[str, str] | None = None) -> list[dict[str, Any]]:
        """Every item of a paged v1 list, as the untyped JSON it is."""
        rows: list[dict[str, Any]] = []
        cursor: str | None = None
        while True:
            query = {**(params or {}), "limit": "100", **({"cursor": cursor} if cursor else {})}
            page = self.call("GET", path, params=query).json()
            rows += page["data"]
            cursor = page.get("nextCursor")
            if not cursor:
                return rows


def copy_world(migrated: Migrated, tmp: Path) -> World:
    service = copy.deepcopy(migrated.service)
    state = tmp / "state.db"
    shutil.copyfile(migrated.state, state)
    return World(create_app(service, legacy_key=LEGACY_KEY, token=TOKEN), service, state, migrated.project_id)


def run_cli(world: World, report_dir: Path, *extra: str) -> tuple[int, Reconciliation | None, str]:
    """`bridge verify` against the world served on loopback: exit code, the JSON report, the terminal text."""
    with serving(world.app) as base:
        env = {
            "BRIDGE_LEGACY_URL": f"{base}/api/v1",
            "BRIDGE_V1_URL": f"{base}/v1",
            "BRIDGE_LEGACY_KEY": LEGACY_KEY,
            "BRIDGE_V1_TOKEN": TOKEN,
            "BRIDGE_STATE": str(world.state),
        }
        args = ["verify", "--project", world.project_id, "--report-dir", str(report_dir), *extra]
        result = CliRunner().invoke(cli, args, env=env, catch_exceptions=False)
    report_file = report_dir / JSON_NAME
    report = Reconciliation.model_validate_json(report_file.read_text()) if report_file.exists() else None
    return result.exit_code, report, result.output
