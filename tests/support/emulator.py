"""Emulator fixtures shared by every test area (owned by the emulator engineers), a pytest plugin that
``tests/conftest.py`` registers: the app in process and its clients on both surfaces and the control API, and
``served``, a fresh world on a loopback port."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from bridge.emulator.app import create_app
from bridge.emulator.control.state import EmulatorState
from bridge.emulator.core.seed import seeded_service
from bridge.emulator.core.store import Service
from tests.legacy_contract_hook import held_to_legacy_contract
from tests.support.world import IN_PROCESS, World, fresh_world
from tests.v1_contract_hook import held_to_contract

# -- core and legacy surface (the core engineer's part) ----------------------------------------------------

LEGACY_KEY = "test-legacy-key"
LEGACY_CONTRACT_HOOKS = {"response": [held_to_legacy_contract]}
V1_TOKEN = "tok_test-token-for-target"


def in_process(
    app: FastAPI,
    path: str,
    headers: dict[str, str] | None = None,
    event_hooks: Mapping[str, list[Callable[..., Any]]] | None = None,
) -> httpx.AsyncClient:
    """A client of ``app`` in process at ``path`` (``/api/v1``, ``/v1`` or ``/_emulator``)."""
    transport = httpx.ASGITransport(app=app)
    return httpx.AsyncClient(
        transport=transport, base_url=f"{IN_PROCESS}{path}", headers=headers, event_hooks=event_hooks
    )


@pytest.fixture
def emulator_service() -> Service:
    """A fresh seeded service (seed 42, small): `source` generated, `target` empty."""
    return seeded_service(42, "small")


@pytest.fixture
def emulator_app(emulator_service: Service) -> FastAPI:
    """The whole emulator app over ``emulator_service`` with fixed test credentials."""
    return create_app(emulator_service, legacy_key=LEGACY_KEY, token=V1_TOKEN)


@pytest.fixture
async def legacy_client(emulator_app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    """An in-process client of the legacy surface holding the `source` key; every answer of an operation the
    legacy contract encodes is held to its published response shape (a non-conforming one fails the test)."""
    async with in_process(emulator_app, "/api/v1", {"X-API-Key": LEGACY_KEY}, LEGACY_CONTRACT_HOOKS) as client:
        yield client


# -- v1 surface (the v1 engineer's part) ------------------------------------------------------------------

CONTRACT_HOOKS = {"response": [held_to_contract]}


def _empty_service() -> Service:
    service = Service(seed=7)
    service.create_workspace("source")
    service.create_workspace("target")
    return service


@pytest.fixture
def v1_app() -> FastAPI:
    """The whole emulator app (both surfaces, control API) over a service whose workspaces start empty."""
    return create_app(_empty_service(), legacy_key=LEGACY_KEY, token=V1_TOKEN)


@pytest.fixture
def emulator_state(v1_app: FastAPI) -> EmulatorState:
    """The state holder of ``v1_app``: its service, tokens, keys, faults, webhooks and counters."""
    context: EmulatorState = v1_app.state.emulator
    return context


@pytest.fixture
def issue_token(emulator_state: EmulatorState) -> Callable[..., str]:
    """Issue a bearer token: ``issue_token(workspace="target", role="admin")``."""

    def issue(workspace: str = "target", role: str = "admin") -> str:
        return emulator_state.tokens.issue(emulator_state.service.workspace(workspace).id, role).token

    return issue


@pytest.fixture
async def v1_client(v1_app: FastAPI, issue_token: Callable[..., str]) -> AsyncIterator[httpx.AsyncClient]:
    """An in-process client of the v1 surface holding an admin token for `target`; every answer is held to
    the published response shapes (a non-conforming one fails the test)."""
    async with in_process(v1_app, "/v1", {"Authorization": f"Bearer {issue_token()}"}, CONTRACT_HOOKS) as client:
        yield client


@pytest.fixture
async def control_client(v1_app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    """An in-process client of the control API (``/_emulator``)."""
    async with in_process(v1_app, "/_emulator") as client:
        yield client


@pytest.fixture
async def emulator_v1_client(emulator_app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    """An in-process client of the seeded emulator's v1 surface holding the `target` token (answers held to
    the published response shapes)."""
    async with in_process(emulator_app, "/v1", {"Authorization": f"Bearer {V1_TOKEN}"}, CONTRACT_HOOKS) as client:
        yield client


@pytest.fixture
async def emulator_control_client(emulator_app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    """An in-process client of the seeded emulator's control API (``/_emulator``)."""
    async with in_process(emulator_app, "/_emulator") as client:
        yield client


# -- a world on a loopback port (the CLI, subprocesses, over-the-wire tests) --------------------------------


@pytest.fixture
def served(tmp_path: Path) -> Iterator[World]:
    """A fresh `small` emulator on a loopback port (``World.served``), its key and a token, an empty state file."""
    with fresh_world(tmp_path / "state.sqlite").served() as world:
        yield world
