"""The v1 cursor paginator: follow ``nextCursor`` until it is absent or null; refuse to loop (A22).

The cursor is opaque and bound to the request's filters, so the paginator resends exactly the same query on
every page and only swaps ``cursor``. Paging that could never end stops instead:

* a cursor handed out twice (a loop, or rows read twice) and an empty page that still carries a cursor (it
  moved nothing forward) are CursorInvalid, a contract break (exit 4): running again would meet them again;
* more pages than ``max_list_pages`` is a ResumableStop (exit 3): a list of fresh cursors each carrying rows
  cannot be told from a list that long, so the operator raises the budget if the workspace really is that big.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Sequence
from typing import TypeVar

from pydantic import BaseModel

from bridge.clients.http import REQUEST_ID_HEADER, Call, HttpSession, json_body, parse_model
from bridge.errors import CursorInvalid, ResumableStop, UnexpectedResponse

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
    budget = session.controls.limits.max_list_pages
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
        if not page["data"]:
            raise CursorInvalid(
                f"v1 GET {path} answered an empty page with a next cursor after {len(seen)} pages; paging stopped "
                "since it could not end",
                request_id=request_id,
            )
        if len(seen) + 1 >= budget:
            raise ResumableStop(
                f"v1 GET {path} was still handing out cursors after max_list_pages ({budget}) pages; paging "
                "stopped: a workspace with a list that long needs a higher max_list_pages, anything else is a "
                "service that never ends a list",
                request_id=request_id,
                surface="v1",
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
