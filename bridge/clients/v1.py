"""The v1 client (``Authorization: Bearer``): typed calls for every write and read the migration makes.

Every create carries the caller's Idempotency-Key (the engine derives it; see engine/keys.py) and answers a
``Written[T]`` that says whether the service replayed an earlier response. Budget calls live in v1_budget.py.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Literal

import httpx

from bridge.clients.http import Call, HttpSession, RunControls, make_endpoint, parse_model
from bridge.clients.models import (
    Contact,
    Identity,
    LibraryItem,
    Project,
    Space,
    Transaction,
    TransactionItem,
    Written,
)
from bridge.clients.pages import iterate_items
from bridge.clients.v1_base import _json
from bridge.clients.v1_budget import BudgetCalls
from bridge.config import REQUEST_TIMEOUT_S, Secret
from bridge.errors import PayloadTooLarge
from bridge.logging import register_secret

LibraryKind = Literal["currencies", "fringes", "fringe-groups", "globals", "tags", "units"]
ProjectCopyKind = Literal["currencies", "fringes", "fringe-groups", "globals"]
MAX_BULK_TRANSACTIONS = 500


class V1Client(BudgetCalls):
    """Typed calls on the v1 surface of one workspace (the token's)."""

    async def me(self) -> Identity:
        """Who the token is and the one workspace it can use."""
        return await self._get("/me", Identity)

    # Spaces (A05)
    async def create_space(self, body: Mapping[str, object], key: str) -> Written[Space]:
        return await self._create("/spaces", body, key, Space)

    async def patch_space(self, space_id: str, body: Mapping[str, object]) -> Space:
        return await self._patch(f"/spaces/{space_id}", body, Space)

    def spaces(self) -> AsyncIterator[Space]:
        return iterate_items(self.session, "/spaces", Space)

    # Projects (A06)
    async def create_project(self, body: Mapping[str, object], key: str) -> Written[Project]:
        """Create a project; the answer carries defaultBudget {budgetId, estimatePhaseId}."""
        return await self._create("/projects", body, key, Project)

    async def patch_project(self, project_id: str, body: Mapping[str, object]) -> Project:
        return await self._patch(f"/projects/{project_id}", body, Project)

    async def get_project(self, project_id: str) -> Project:
        return await self._get(f"/projects/{project_id}", Project)

    def projects(self) -> AsyncIterator[Project]:
        return iterate_items(self.session, "/projects", Project)

    # Contacts (A07)
    async def create_contact(self, body: Mapping[str, object], key: str) -> Written[Contact]:
        return await self._create("/contacts", body, key, Contact)

    def contacts(self) -> AsyncIterator[Contact]:
        return iterate_items(self.session, "/contacts", Contact)

    # Workspace library and project copies (A18)
    async def create_library_item(
        self, kind: LibraryKind, body: Mapping[str, object], key: str
    ) -> Written[LibraryItem]:
        return await self._create(f"/library/{kind}", body, key, LibraryItem)

    async def patch_library_item(self, kind: LibraryKind, item_id: str, body: Mapping[str, object]) -> LibraryItem:
        return await self._patch(f"/library/{kind}/{item_id}", body, LibraryItem)

    def library_items(self, kind: LibraryKind) -> AsyncIterator[LibraryItem]:
        return iterate_items(self.session, f"/library/{kind}", LibraryItem)

    async def add_project_copy(self, project_id: str, kind: ProjectCopyKind, source_id: str) -> Written[LibraryItem]:
        """Copy a workspace item into the project: 201 new, 200 already there (project edits kept).

        No Idempotency-Key exists for this call, and none is needed: re-adding returns the same copy, so the
        call is replay-safe and retried like a read.
        """
        path = f"/projects/{project_id}/library/{kind}"
        call = Call("POST", path, body=_json({"sourceId": source_id}, "POST", path), ok=frozenset({200, 201}))
        return await self._send_parsed(call, lambda data, what, rid: parse_model(LibraryItem, data, what, rid))

    async def patch_project_copy(
        self, project_id: str, kind: ProjectCopyKind, copy_id: str, body: Mapping[str, object]
    ) -> LibraryItem:
        return await self._patch(f"/projects/{project_id}/library/{kind}/{copy_id}", body, LibraryItem)

    def project_copies(self, project_id: str, kind: ProjectCopyKind | Literal["tags"]) -> AsyncIterator[LibraryItem]:
        return iterate_items(self.session, f"/projects/{project_id}/library/{kind}", LibraryItem)

    # Transactions (A16)
    async def create_transaction(self, body: Mapping[str, object], key: str) -> Written[Transaction]:
        return await self._create("/transactions", body, key, Transaction)

    async def create_transactions(
        self, transactions: Sequence[Mapping[str, object]], key: str
    ) -> Written[list[Transaction]]:
        """Bulk create (all-or-nothing, request order); more than 500 is refused before sending."""
        if not 1 <= len(transactions) <= MAX_BULK_TRANSACTIONS:
            raise PayloadTooLarge(f"a bulk of {len(transactions)} transactions; v1 takes 1 to {MAX_BULK_TRANSACTIONS}")
        body = {"transactions": [dict(t) for t in transactions]}
        return await self._create_many("/transactions/bulk", body, key, Transaction)

    async def create_transaction_item(
        self, transaction_id: str, body: Mapping[str, object], key: str
    ) -> Written[TransactionItem]:
        return await self._create(f"/transactions/{transaction_id}/items", body, key, TransactionItem)

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
