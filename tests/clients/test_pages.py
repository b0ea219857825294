"""The cursor paginator: same query every page, stops on a missing or null nextCursor, refuses to loop."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable

import httpx
import pytest
import respx

from bridge import errors
from bridge.clients.http import RunControls
from bridge.clients.models import Contact, LibraryItem, Project, Space
from bridge.clients.v1 import V1Client, open_v1
from bridge.config import Secret

BASE = "https://svc.test/v1"
TOKEN = Secret("tok_pages_0123456789abcdefghij")


def page(ids: list[str], cursor: object = "absent") -> httpx.Response:
    body: dict[str, object] = {"data": [{"id": i, "name": i, "type": "estimate"} for i in ids]}
    if cursor != "absent":
        body["nextCursor"] = cursor
    return httpx.Response(200, json=body)


# What each listing yields: records that all keep their v1 id.
Listed = Space | Project | Contact | LibraryItem
LISTS: list[tuple[str, str, Callable[[V1Client], AsyncIterator[Listed]]]] = [
    ("spaces", "/spaces", lambda c: c.spaces()),
    ("projects", "/projects", lambda c: c.projects()),
    ("contacts", "/contacts", lambda c: c.contacts()),
    ("copies", "/projects/prj_1/library/tags", lambda c: c.project_copies("prj_1", "tags")),
]


@pytest.mark.anyio
async def test_rows_of_an_operation_follow_the_cursor_with_its_query(controls: RunControls) -> None:
    """A list named by its operation is read page by page at the path the client renders, query kept."""
    async with respx.mock(assert_all_called=True, using="bridge") as router:
        route = router.get(f"{BASE}/projects/prj_1/budget/lines").mock(side_effect=[page(["a"], "c1"), page(["b"])])
        async with open_v1(BASE, TOKEN, controls) as client:
            pages = [rows async for rows in client.rows("budget_listLines", ("prj_1",), [("type", "line")])]
    assert [[row["id"] for row in rows if isinstance(row, dict)] for rows in pages] == [["a"], ["b"]]
    assert [dict(call.request.url.params) for call in route.calls] == [
        {"type": "line", "limit": "100"},
        {"type": "line", "limit": "100", "cursor": "c1"},
    ]


@pytest.mark.anyio
@pytest.mark.parametrize("last", [None, "absent"], ids=["null", "missing"])
@pytest.mark.parametrize(("name", "path", "listing"), LISTS, ids=[n for n, _, _ in LISTS])
async def test_list_follows_cursor_until_it_ends(
    controls: RunControls,
    name: str,
    path: str,
    listing: Callable[[V1Client], AsyncIterator[Listed]],
    last: object,
) -> None:
    """Every item of every page arrives once; the second request carries the cursor and nothing else changes."""
    async with respx.mock(assert_all_called=True, using="bridge") as router:
        route = router.get(f"{BASE}{path}").mock(side_effect=[page(["a", "b"], "c1"), page(["c"], last)])
        async with open_v1(BASE, TOKEN, controls) as client:
            ids = [item.id async for item in listing(client)]
    assert ids == ["a", "b", "c"]
    first, second = (dict(call.request.url.params) for call in route.calls)
    assert first == {"limit": "100"}
    assert second == {"limit": "100", "cursor": "c1"}


@pytest.mark.anyio
async def test_phases_list_includes_hidden_ones(controls: RunControls) -> None:
    """Phases come back whatever their visibility (the list is not filtered client-side)."""
    hidden = {"id": "phs_h", "name": "Old", "type": "estimate", "isHidden": True}
    async with respx.mock(using="bridge") as router:
        router.get(f"{BASE}/projects/prj_1/budget/phases").mock(
            return_value=httpx.Response(200, json={"data": [hidden]})
        )
        async with open_v1(BASE, TOKEN, controls) as client:
            phases = await client.phases("prj_1")
    assert [p.is_hidden for p in phases] == [True]


@pytest.mark.anyio
async def test_repeated_cursor_raises_instead_of_looping(controls: RunControls) -> None:
    """A service that hands out a cursor it gave before stops the read with CursorInvalid."""
    async with respx.mock(using="bridge") as router:
        router.get(f"{BASE}/spaces").mock(side_effect=[page(["a"], "c1"), page(["b"], "c2"), page(["a"], "c1")])
        async with open_v1(BASE, TOKEN, controls) as client:
            with pytest.raises(errors.CursorInvalid, match="repeated a cursor"):
                _ = [s async for s in client.spaces()]


@pytest.mark.anyio
async def test_page_without_data_array_is_unexpected(controls: RunControls) -> None:
    """A list answer that breaks the documented shape is a contract break, not an empty list."""
    async with respx.mock(using="bridge") as router:
        router.get(f"{BASE}/spaces").mock(return_value=httpx.Response(200, json={"items": []}))
        async with open_v1(BASE, TOKEN, controls) as client:
            with pytest.raises(errors.UnexpectedResponse):
                _ = [s async for s in client.spaces()]


@pytest.mark.anyio
async def test_truncated_line_page_stops_the_read(controls: RunControls) -> None:
    """A budget-line page the service marks truncated is never taken as the whole list."""
    body = {"data": [{"id": "lin_1"}], "nextCursor": None, "truncated": True}
    async with respx.mock(using="bridge") as router:
        router.get(f"{BASE}/projects/prj_1/budget/lines").mock(return_value=httpx.Response(200, json=body))
        async with open_v1(BASE, TOKEN, controls) as client:
            with pytest.raises(errors.ServiceUnavailable, match="truncated"):
                _ = [line async for line in client.lines("prj_1")]
