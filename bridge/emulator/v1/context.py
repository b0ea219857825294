"""What the v1 surface reads from the emulator's one state holder (``app.state.emulator``).

The holder (``bridge.emulator.control.state``) keeps the core service and every surface's state; the v1
routes see it only as this protocol, so they never reach the legacy surface's state or the control API's.
"""

from __future__ import annotations

from typing import Protocol

from starlette.requests import Request

from bridge.emulator.core.store import Service
from bridge.emulator.v1.auth import TokenRegistry
from bridge.emulator.v1.cursors import CursorCodec
from bridge.emulator.v1.extras.packs import PackLibrary
from bridge.emulator.v1.idempotency import IdempotencyStore
from bridge.emulator.v1.webhooks import WebhookHub


class V1Context(Protocol):
    """The core service (a reset swaps it) and the v1 surface's own state."""

    service: Service
    tokens: TokenRegistry
    idempotency: IdempotencyStore
    cursors: CursorCodec
    webhooks: WebhookHub
    packs: PackLibrary
    budget_line_limit: int


def context_of(request: Request) -> V1Context:
    """The v1 view of the state of the app serving ``request``."""
    context: V1Context = request.app.state.emulator
    return context
