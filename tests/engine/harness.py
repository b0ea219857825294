"""Helpers for the engine's over-the-wire tests: a served emulator, `bridge` subprocesses, a census of v1.

The census reads the target only through the v1 surface (never the crosswalk) and lists every migrated
object by its natural fields, so two runs can be compared as multisets: a duplicate shows as a count of
two, a missing record as a count of zero.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

from bridge.emulator.app import create_app
from bridge.emulator.seed import seeded_service
from bridge.emulator.serve import BackgroundServer

BRIDGE = [sys.executable, "-c", "from bridge.cli import main; main()"]


@dataclass(frozen=True, slots=True)
class Served:
    """A live emulator and the credentials and environment a `bridge` subprocess needs."""

    base_url: str
    legacy_key: str
    token: str

    def env(self, state: Path, **extra: str) -> dict[str, str]:
        return {
            **os.environ,
            "BRIDGE_LEGACY_URL": f"{self.base_url}/api/v1",
            "BRIDGE_V1_URL": f"{self.base_url}/v1",
            "BRIDGE_LEGACY_KEY": self.legacy_key,
            "BRIDGE_V1_TOKEN": self.token,
            "BRIDGE_STATE": str(state),
            **extra,
        }

    def control(self) -> httpx.Client:
        return httpx.Client(base_url=f"{self.base_url}/_emulator", timeout=30)


@contextmanager
def served(size: str = "small", seed: int = 42) -> Iterator[Served]:
    """A freshly seeded emulator under uvicorn on a loopback port, with an admin token for `target`."""
    app = create_app(seeded_service(seed, size))  # type: ignore[arg-type]
    with BackgroundServer(app) as base_url, httpx.Client(base_url=f"{base_url}/_emulator") as control:
        token = control.post("/tokens", json={"workspace": "target", "role": "admin"}).json()["token"]
        yield Served(base_url, app.state.credentials.legacy_key, token)


def bridge(args: list[str], env: dict[str, str], timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """Run `bridge ARGS` in a subprocess; its output is captured for assertions and failure messages."""
    return subprocess.run([*BRIDGE, *args], env=env, capture_output=True, text=True, timeout=timeout, check=False)


def _pages(client: httpx.Client, path: str, **params: str) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    cursor: str | None = None
    while True:
        query = {**params, "limit": "100", **({"cursor": cursor} if cursor else {})}
        page = client.get(path, params=query).json()
        rows += page["data"]
        cursor = page.get("nextCursor")
        if not cursor:
            return rows


def census(target: Served) -> Counter[tuple[str, ...]]:
    """Every object on the target that a migration writes, by kind and natural fields, read through v1."""
    seen: Counter[tuple[str, ...]] = Counter()
    headers = {"Authorization": f"Bearer {target.token}"}
    with httpx.Client(base_url=f"{target.base_url}/v1", headers=headers, timeout=30) as v1:
        for space in _pages(v1, "/spaces"):
            seen[("space", str(space["name"]), str(space.get("archived")))] += 1
        for contact in _pages(v1, "/contacts"):
            seen[("contact", str(contact["name"]))] += 1
        for kind, field in (("currencies", "code"), ("fringes", "name"), ("globals", "symbol"), ("tags", "name")):
            for item in _pages(v1, f"/library/{kind}"):
                seen[(kind, str(item[field]))] += 1
        for project in _pages(v1, "/projects"):
            name = str(project["name"])
            seen[("project", name, str(project.get("status")))] += 1
            pid = str(project["id"])
            for kind in ("currencies", "fringes", "globals"):
                seen.update(
                    (f"project {kind}", name, str(len(_pages(v1, f"/projects/{pid}/library/{kind}")))) for _ in (0,)
                )
            for phase in _pages(v1, f"/projects/{pid}/budget/phases"):
                seen[("phase", name, str(phase["name"]), str(phase["type"]))] += 1
            by_id = {str(line["id"]): line for line in _pages(v1, f"/projects/{pid}/budget/lines")}
            for line in by_id.values():
                parent = by_id.get(str(line.get("parentId")), {})
                seen[
                    ("line", name, str(parent.get("description")), str(line["description"]), str(line.get("type")))
                ] += 1
            for txn in _pages(v1, "/transactions", projectId=pid):
                amount = txn["amount"]
                assert isinstance(amount, dict)
                items = txn.get("items") or []
                seen[
                    (
                        "transaction",
                        name,
                        str(txn.get("timestamp")),
                        str(amount["amount"]),
                        str(txn.get("description")),
                        str(len(items)),
                    )
                ] += 1  # type: ignore[arg-type]
    return seen
