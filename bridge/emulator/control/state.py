"""Everything the v1 surface and the control API share for one emulator instance, kept on ``app.state.v1``.

The core ``Service`` holds the workspaces; this context adds what only the v1 surface has (tokens, the
idempotency store, cursor signing, webhook subscriptions, rate packs and incentives) plus the fault plan
and counters. ``reset`` puts it all back to the seeded state without restarting the server. ``tenants`` are
the workspace pairs it serves (``bridge.emulator.control.tenants``); what is kept per tenant is keyed by ``tenant_of``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from starlette.requests import Request
from starlette.types import Scope

from bridge.emulator.control.faults import FaultInjector, FaultPlan
from bridge.emulator.control.stats import RequestStats
from bridge.emulator.control.tenants import Tenant, credential_workspace
from bridge.emulator.core.model import Node, Project, Workspace
from bridge.emulator.core.store import Service
from bridge.emulator.core.workspace_library import PackLibrary
from bridge.emulator.v1.auth import Grant, TokenRegistry
from bridge.emulator.v1.cursors import CursorCodec
from bridge.emulator.v1.idempotency import IdempotencyStore
from bridge.emulator.v1.webhooks import WebhookHub

TARGET = "target"


@dataclass
class V1Context:
    """One emulator's v1-side state; ``rebuild`` makes a fresh seeded ``Service`` for ``reset``."""

    service: Service
    rebuild: Callable[[], Service]
    tokens: TokenRegistry = field(default_factory=TokenRegistry)
    idempotency: IdempotencyStore = field(default_factory=IdempotencyStore)
    cursors: CursorCodec = field(default_factory=CursorCodec)
    webhooks: WebhookHub = field(default_factory=WebhookHub)
    stats: RequestStats = field(default_factory=RequestStats)
    faults: FaultInjector = field(init=False)
    packs: PackLibrary = field(default_factory=PackLibrary)
    budget_line_limit: int = 25_000
    on_reset: list[Callable[[Service], None]] = field(default_factory=list)
    tenants: tuple[Tenant, ...] = ()
    _tree_order: dict[str, tuple[int, list[Node]]] = field(default_factory=dict)
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

    def tree_order(self, project: Project) -> list[Node]:
        """The project's nodes in tree order, cached per project version (paging re-reads it every page)."""
        cached = self._tree_order.get(project.id)
        if cached is None or cached[0] != project.version:
            cached = (project.version, list(self.service.walk(project)))
            self._tree_order[project.id] = cached
        return cached[1]

    def workspace(self, grant: Grant) -> Workspace:
        """The one workspace a token is bound to."""
        return self.service.workspace(grant.workspace)

    def reset(self) -> None:
        """Back to the seeded state: fresh workspaces, no keys, faults, webhooks or counters; tokens stay valid."""
        self.service = self.rebuild()
        self.idempotency.clear()
        self.webhooks.clear()
        self.stats.clear()
        self._tree_order.clear()
        self.packs = PackLibrary()
        self.faults.set_plan(FaultPlan())
        for grant in self.tokens.grants.values():
            grant.revoked = False
        for hook in self.on_reset:
            hook(self.service)


def context_of(request: Request) -> V1Context:
    """The context of the app serving ``request``."""
    context: V1Context = request.app.state.v1
    return context
