"""The v1 cursor paginator: follow ``nextCursor`` until it is absent or null; refuse to loop (A22).

The cursor is opaque and bound to the request's filters, so the paginator resends exactly the same query on
every page and only swaps ``cursor``. A cursor handed out twice would make it loop forever (or read rows twice),
so it stops with CursorInvalid instead.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Sequence
from typing import TypeVar

from pydantic import BaseModel

from bridge.clients.http import REQUEST_ID_HEADER, Call, HttpSession, json_body, parse_model
from bridge.errors import CursorInvalid, UnexpectedResponse

ModelT = TypeVar("ModelT", bound=BaseModel)

PAGE_LIMIT = 100


async def iterate_pages(
    session: HttpSession,
    path: str,
    params: Sequence[tuple[str, str]] = (),
    *,
    limit: int = PAGE_LIMIT,
    on_page: Callable[[dict[str, object]], None] | None = None,
) -> AsyncIterator[list[object]]:
    """Yield each page's ``data`` array of ``GET path``; ``on_page`` sees each raw page (for ``truncated``)."""
    seen: set[str] = set()
    cursor: str | None = None
    while True:
        query = [*params, ("limit", str(limit))]
        if cursor is not None:
            query.append(("cursor", cursor))
        call = Call("GET", path, params=query)
        response = await session.send(call)
        page = json_body(response, call.what)
        request_id = response.headers.get(REQUEST_ID_HEADER)
        if not isinstance(page, dict) or not isinstance(page.get("data"), list):
            raise UnexpectedResponse(f"v1 GET {path} answered a list page without a data array", request_id=request_id)
        if on_page is not None:
            on_page(page)
        yield page["data"]
        next_cursor = page.get("nextCursor")
        if next_cursor is None:
            return
        if not isinstance(next_cursor, str) or not next_cursor:
            raise UnexpectedResponse(f"v1 GET {path} answered nextCursor {next_cursor!r}", request_id=request_id)
        if next_cursor in seen:
            raise CursorInvalid(
                f"v1 GET {path} repeated a cursor after {len(seen)} pages; paging stopped to avoid a loop",
                request_id=request_id,
            )
        seen.add(next_cursor)
        cursor = next_cursor


async def iterate_items(
    session: HttpSession,
    path: str,
    model: type[ModelT],
    params: Sequence[tuple[str, str]] = (),
    *,
    limit: int = PAGE_LIMIT,
    on_page: Callable[[dict[str, object]], None] | None = None,
) -> AsyncIterator[ModelT]:
    """Every item of a paged v1 list, parsed as ``model``."""
    async for rows in iterate_pages(session, path, params, limit=limit, on_page=on_page):
        for row in rows:
            yield parse_model(model, row, f"GET {path}")
