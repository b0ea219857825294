"""The emulator's one state holder, on ``app.state.emulator``: the core service and what is kept beside it.

The core ``Service`` holds the workspaces. Beside it: what only the v1 surface has (tokens, the idempotency
store, cursor signing, webhook subscriptions, rate packs and incentives, the budget size limit), what only the
legacy surface has (its optional per-key rate limit, A02), and the control API's own (fault plan, counters,
the control token). Each surface reads the holder through its own protocol (``v1.context.V1Context``,
``legacy.routing.LegacyContext``) and never through the other's, so a reset that swaps the service is seen by
both at once. ``reset`` puts it all back to the seeded state without restarting the server. ``tenants`` are
the workspace pairs it serves (``bridge.emulator.control.tenants``); what is kept per tenant is keyed by
``tenant_of``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from starlette.requests import Request
from starlette.types import Scope

from bridge.emulator.control.faults import FaultInjector, FaultPlan
from bridge.emulator.control.stats import RequestStats
from bridge.emulator.control.tenants import Tenant, credential_workspace
from bridge.emulator.core.model import Workspace
from bridge.emulator.core.store import Service
from bridge.emulator.legacy.routing import TokenBucket
from bridge.emulator.v1.auth import TokenRegistry
from bridge.emulator.v1.cursors import CursorCodec
from bridge.emulator.v1.extras.packs import PackLibrary
from bridge.emulator.v1.idempotency import IdempotencyStore
from bridge.emulator.v1.webhooks import WebhookHub


@dataclass
class EmulatorState:
    """One emulator's state; ``rebuild`` makes a fresh seeded ``Service`` for ``reset``."""

    service: Service
    rebuild: Callable[[], Service]
    tenants: tuple[Tenant, ...] = ()
    # Without it the control API is open, which only a loopback listener may be (``control.serving``).
    control_token: str | None = None
    legacy_bucket: TokenBucket | None = None
    tokens: TokenRegistry = field(default_factory=TokenRegistry)
    idempotency: IdempotencyStore = field(default_factory=IdempotencyStore)
    cursors: CursorCodec = field(default_factory=CursorCodec)
    webhooks: WebhookHub = field(default_factory=WebhookHub)
    packs: PackLibrary = field(default_factory=PackLibrary)
    budget_line_limit: int = 25_000
    stats: RequestStats = field(default_factory=RequestStats)
    faults: FaultInjector = field(init=False)
    # What serving adds to a reset (totals worked out again, the new seed kept out of collections).
    on_reset: list[Callable[[Service], None]] = field(default_factory=list)
    _tenant_by_workspace: dict[str, str] = field(init=False)

    def __post_init__(self) -> None:
        self.faults = FaultInjector(self.tokens, bucket_key=self.tenant_of)
        self._tenant_by_workspace = {name: t.name for t in self.tenants for name in (t.source, t.target)}

    def workspace_of(self, scope: Scope) -> Workspace | None:
        """The workspace a request's credential belongs to, if it carries a known one."""
        workspace_id = credential_workspace(scope, self.service, self.tokens)
        return None if workspace_id is None else self.service.workspaces.get(workspace_id)

    def workspace_name_of(self, scope: Scope) -> str | None:
        """The name of the workspace a request's credential belongs to (the key of the stats' timelines)."""
        workspace = self.workspace_of(scope)
        return None if workspace is None else workspace.name

    def tenant_of(self, scope: Scope) -> str:
        """Who a request counts against: its credential's tenant (a source and its target are one), a workspace
        made through the control API on its own, and every request without a known credential together ("")."""
        workspace = self.workspace_of(scope)
        if workspace is None:
            return ""
        return self._tenant_by_workspace.get(workspace.name, workspace.id)

    def reset(self) -> None:
        """Back to the seeded state: fresh workspaces, no keys, faults, webhooks or counters; tokens stay valid."""
        self.service = self.rebuild()
        self.idempotency.clear()
        self.webhooks.clear()
        self.stats.clear()
        self.packs = PackLibrary()
        self.faults.set_plan(FaultPlan())
        for grant in self.tokens.grants.values():
            grant.revoked = False
        for hook in self.on_reset:
            hook(self.service)


def state_of(request: Request) -> EmulatorState:
    """The state holder of the app serving ``request``."""
    state: EmulatorState = request.app.state.emulator
    return state
