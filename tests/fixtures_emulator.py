"""Emulator fixtures shared by every test area (owned by the emulator engineers)."""


# -- v1 surface (the v1 engineer's part) ------------------------------------------------------------------

from collections.abc import AsyncIterator, Callable

import httpx
import pytest
from fastapi import FastAPI

from bridge.emulator.store import Service
from bridge.emulator.v1_api import mount_v1
from bridge.emulator.v1_context import V1Context


def _empty_service() -> Service:
    service = Service(seed=7)
    service.create_workspace("source")
    service.create_workspace("target")
    return service


@pytest.fixture
def v1_context() -> V1Context:
    """The v1 side of a fresh emulator whose `source` and `target` workspaces start empty."""
    return V1Context(service=_empty_service(), rebuild=_empty_service)


@pytest.fixture
def v1_app(v1_context: V1Context) -> FastAPI:
    """An app serving the v1 surface and the control API over ``v1_context``."""
    app = FastAPI()
    mount_v1(app, v1_context)
    return app


@pytest.fixture
def issue_token(v1_context: V1Context) -> Callable[..., str]:
    """Issue a bearer token: ``issue_token(workspace="target", role="admin")``."""

    def issue(workspace: str = "target", role: str = "admin") -> str:
        return v1_context.tokens.issue(v1_context.service.workspace(workspace).id, role).token

    return issue


@pytest.fixture
async def v1_client(v1_app: FastAPI, issue_token: Callable[..., str]) -> AsyncIterator[httpx.AsyncClient]:
    """An in-process client of the v1 surface holding an admin token for `target`."""
    headers = {"Authorization": f"Bearer {issue_token()}"}
    transport = httpx.ASGITransport(app=v1_app)
    async with httpx.AsyncClient(transport=transport, base_url="http://emulator/v1", headers=headers) as client:
        yield client


@pytest.fixture
async def control_client(v1_app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    """An in-process client of the control API (``/_emulator``)."""
    transport = httpx.ASGITransport(app=v1_app)
    async with httpx.AsyncClient(transport=transport, base_url="http://emulator/_emulator") as client:
        yield client
