"""v1 budget reads: phases, lines, one line, and the budget and totals documents with ETags."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass

from pydantic import BaseModel

from bridge.clients.http import REQUEST_ID_HEADER, Call, json_body, parse_model
from bridge.clients.models import BudgetDocument, BudgetLine, BudgetTotals, Cached, Phase
from bridge.clients.pages import iterate_items
from bridge.clients.v1_base import V1Calls
from bridge.errors import ServiceUnavailable

MAX_BULK_LINES = 100
MAX_BULK_PHASE_DATA = 500


@dataclass(frozen=True, slots=True)
class LineFilter:
    """Filters of GET budget/lines; all combine with AND. ``tags`` are tag ids; ``types`` e.g. ('line',)."""

    account_id: str | None = None
    path: str | None = None
    tags: tuple[str, ...] = ()
    tag_mode: str | None = None
    types: tuple[str, ...] = ()
    expand: tuple[str, ...] = ()

    def params(self) -> list[tuple[str, str]]:
        query: list[tuple[str, str]] = []
        for name, value in (("accountId", self.account_id), ("path", self.path), ("tagMode", self.tag_mode)):
            if value is not None:
                query.append((name, value))
        for name, values in (("tags", self.tags), ("type", self.types), ("expand", self.expand)):
            if values:
                query.append((name, ",".join(values)))
        return query


def _selection(path: str | None, account_id: str | None, phase: str | None) -> list[tuple[str, str]]:
    pairs = (("path", path), ("accountId", account_id), ("phase", phase))
    return [(name, value) for name, value in pairs if value is not None]


class BudgetCalls(V1Calls):
    """Budget phases, lines and reads of one project's budget."""

    async def phases(self, project_id: str) -> list[Phase]:
        """Every phase of the project, hidden ones included (A08), in the one answer the list gives (A47)."""
        what = f"GET /projects/{project_id}/budget/phases"
        return [
            parse_model(Phase, row, what, None)
            async for rows in self.rows("budget_listPhases", (project_id,))
            for row in rows
        ]

    async def get_line(self, project_id: str, line_id: str, expand: Sequence[str] = ()) -> BudgetLine:
        params = [("expand", ",".join(expand))] if expand else []
        return await self._get(f"/projects/{project_id}/budget/lines/{line_id}", BudgetLine, params)

    def lines(self, project_id: str, where: LineFilter | None = None) -> AsyncIterator[BudgetLine]:
        """Every budget line matching ``where``, page by page.

        A page marked ``truncated`` left out lines the service could not serve: the list would be silently
        short, so the read stops (resumably) instead of letting a count or a total be computed from it.
        """
        path = f"/projects/{project_id}/budget/lines"

        def refuse_truncated(page: dict[str, object]) -> None:
            if page.get("truncated") is True:
                raise ServiceUnavailable(f"v1 GET {path} answered a truncated page: some lines were unavailable")

        params = (where or LineFilter()).params()
        return iterate_items(self.session, path, BudgetLine, params, on_page=refuse_truncated)

    async def _conditional(
        self, path: str, params: list[tuple[str, str]], model: type[BaseModel]
    ) -> tuple[BaseModel, str | None, bool]:
        """GET with If-None-Match from the last answer to the same query; a 304 returns the cached body."""
        cache_key = (path, tuple(params))
        cached = self._etags.get(cache_key)
        headers = {"If-None-Match": cached[0]} if cached else {}
        call = Call("GET", path, params=params, headers=headers, ok=frozenset({200, 304}))
        response = await self.session.send(call)
        if response.status_code == 304 and cached is not None:
            return cached[1], cached[0], True
        value = parse_model(model, json_body(response, call.what), call.what, response.headers.get(REQUEST_ID_HEADER))
        etag = response.headers.get("ETag")
        if etag:
            self._etags[cache_key] = (etag, value)
        return value, etag, False

    async def budget(
        self, project_id: str, *, path: str | None = None, account_id: str | None = None, phase: str | None = None
    ) -> Cached[BudgetDocument]:
        """The budget document (visible phases, totals, lines), reusing the last ETag of the same selection."""
        value, etag, hit = await self._conditional(
            f"/projects/{project_id}/budget", _selection(path, account_id, phase), BudgetDocument
        )
        assert isinstance(value, BudgetDocument)  # _conditional parsed it with this model
        return Cached(value, etag, hit)

    async def totals(
        self, project_id: str, *, phase: str | None = None, account_id: str | None = None, path: str | None = None
    ) -> Cached[BudgetTotals]:
        """Totals per phase as of computedAt, in workspace-currency minor units (A09), ETag reused."""
        value, etag, hit = await self._conditional(
            f"/projects/{project_id}/budget/totals", _selection(path, account_id, phase), BudgetTotals
        )
        assert isinstance(value, BudgetTotals)  # _conditional parsed it with this model
        return Cached(value, etag, hit)
