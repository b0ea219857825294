"""The v1 client (``Authorization: Bearer``): who the token is, the reads verify makes, and the one write path.

The engine writes through ``send_write`` alone (``v1_base``): an operationId, its path parameters, a body checked
against the published shape and the Idempotency-Key the engine derived. Budget reads live in v1_budget.py.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Literal

import httpx

from bridge.clients.http import HttpSession, RunControls, make_endpoint
from bridge.clients.models import Contact, Identity, LibraryItem, Project, Space, Transaction
from bridge.clients.pages import iterate_items
from bridge.clients.v1_budget import BudgetCalls
from bridge.config import REQUEST_TIMEOUT_S, Secret
from bridge.logging import register_secret

LibraryKind = Literal["currencies", "fringes", "fringe-groups", "globals", "tags", "units"]
ProjectCopyKind = Literal["currencies", "fringes", "fringe-groups", "globals"]


class V1Client(BudgetCalls):
    """Typed calls on the v1 surface of one workspace (the token's)."""

    async def me(self) -> Identity:
        """Who the token is and the one workspace it can use."""
        return await self._get("/me", Identity)

    def spaces(self) -> AsyncIterator[Space]:
        return iterate_items(self.session, "/spaces", Space)

    def projects(self) -> AsyncIterator[Project]:
        return iterate_items(self.session, "/projects", Project)

    def contacts(self) -> AsyncIterator[Contact]:
        return iterate_items(self.session, "/contacts", Contact)

    def library_items(self, kind: LibraryKind) -> AsyncIterator[LibraryItem]:
        return iterate_items(self.session, f"/library/{kind}", LibraryItem)

    def project_copies(self, project_id: str, kind: ProjectCopyKind | Literal["tags"]) -> AsyncIterator[LibraryItem]:
        return iterate_items(self.session, f"/projects/{project_id}/library/{kind}", LibraryItem)

    def transactions(self, project_id: str | None = None) -> AsyncIterator[Transaction]:
        params = [("projectId", project_id)] if project_id is not None else []
        return iterate_items(self.session, "/transactions", Transaction, params)


def open_v1(
    base_url: str,
    token: Secret,
    controls: RunControls,
    *,
    transport: httpx.AsyncBaseTransport | None = None,
    timeout: float = REQUEST_TIMEOUT_S,
) -> V1Client:
    """A V1Client over its own endpoint (close it with ``async with`` or ``await client.session.aclose()``)."""
    register_secret(token)
    endpoint = make_endpoint(
        base_url, {"Authorization": f"Bearer {token.reveal()}"}, transport=transport, timeout=timeout
    )
    return V1Client(HttpSession(endpoint, "v1", controls, secrets=(token,)))
